"""The scenarios the script exports are held to, and the deals they are tried on: every
scenario of the reference page's examples and of the sample wiki; a representative deal of
each of the 560 length patterns; random deals."""

from __future__ import annotations

import random
from itertools import product
from pathlib import Path

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.dsl.model import SUITS, Scenario

ROOT = Path(__file__).resolve().parent.parent.parent


def reference_scenarios() -> list[tuple[str, Scenario]]:
    """Every scenario of the reference page's examples (examples/*.dsl, as
    tests/test_dsl_reference.py reads them)."""
    out = []
    for path in sorted((ROOT / "examples").glob("*.dsl")):
        if path.stem != "broken":
            for i, s in enumerate(dsl.parse_scenarios(path.read_text(encoding="utf-8").strip()), start=1):
                out.append((f"{path.stem}-{i}", s))
    return out


def sample_wiki_scenarios() -> list[tuple[str, Scenario]]:
    from bridgeshape_mirror.sync.dump import read_dump
    from bridgeshape_mirror.sync.extract import extract, template_title
    from bridgeshape_mirror.sync.syncer import SyncSettings

    settings = SyncSettings()
    site, pages = read_dump(ROOT / "examples" / "sample-wiki.xml")
    template = template_title(settings.template, site)
    out = []
    for page in pages:
        raw = extract(page.text, template, settings.parameter, site).raw
        result = dsl.parse(raw or "")
        if raw and result.valid:
            out += [(f"{page.page_id}-{i}", s) for i, s in enumerate(result.scenarios, start=1)]
    return out


def every_pattern() -> list[tuple[int, int, int, int]]:
    """The 560 (spades, hearts, diamonds, clubs) lengths of a hand."""
    return [t for t in product(range(14), repeat=4) if sum(t) == 13]  # type: ignore[misc]


def pattern_deal(lengths: tuple[int, ...], seat: int = 0) -> Deal:
    """A deal where `seat` has `lengths`, the top cards of each suit; the other cards dealt
    in order to the other seats."""
    owner = [-1] * 52
    others = [s for s in range(4) if s != seat]
    for suit, n in enumerate(lengths):
        for rank in range(n):
            owner[13 * suit + rank] = seat
    held = {s: 0 for s in others}
    for card in range(52):
        if owner[card] < 0:
            target = next(s for s in others if held[s] < 13)
            owner[card] = target
            held[target] += 1
    return Deal.from_seat_of_card(owner)


def random_deal(rng: random.Random) -> Deal:
    order = list(range(52))
    rng.shuffle(order)
    owner = [0] * 52
    for i, card in enumerate(order):
        owner[card] = i // 13
    return Deal.from_seat_of_card(owner)


assert len(SUITS) == 4
