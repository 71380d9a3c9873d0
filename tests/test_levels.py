"""Levelled deal sets (SEMANTICS 7, `deals.levels`, `deals --level`): the classes' exact counts
add up to the scenario's, every board is in its class (read by endplay, classified here from
the contract's words), each class is uniform (against the unlevelled deals that fall in it),
the natural shares are the unlevelled frequencies, and the mix is delivered exactly."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from endplay import evaluate
from endplay.types import Deal as EndplayDeal
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.boards.pbn import parse_deal
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from bridgeshape_mirror.deals.levels import LevelError, boards_per_class, class_probability, level, levelled_outcome, parse_mix
from bridgeshape_mirror.deals.rules.predicate import shape_class, violations
from support.cli import run
from support.statistics import critical_value, homogeneity

SUITS = "SHDC"
#: (scenario, measure): one of each measure, some with overlapping suits (a two-suiter takes
#: the first of its long suits)
CASES = [
    ("opener hcp:12-21 H:5+; responder hcp:6-10 H:3+", "hcp:opener"),
    ("opener hcp:12-21 H:5+; responder hcp:6-10 H:3+", "hcp:opener:12-14,15-17,18-21"),
    ("opener hcp:12-21 x:5+; responder hcp:6-10", "suit:opener"),
    ("opener hcp:10-15 x:4+ xhcp:3+; opp1 hcp:8+", "suit:opener"),
    ("opener hcp:12-21; responder hcp:6+ fit:M8+", "fit"),
    ("fit:9+ opener hcp:11+; responder hcp:4+", "fit"),
    ("opener hcp:15-17; opp1 hcp:8+ x:5+", "shape:opener"),
    ("responder hcp:0-7", "shape:responder"),
]


def scenario(text: str):
    return dsl.parse_scenarios(text)[0]


def seat_of(role: str) -> str:
    return {"opener": "north", "opp1": "east", "responder": "south", "opp2": "west"}[role]


def lengths_and_hcp(pbn: str, role: str) -> tuple[list[int], list[int], int]:
    """The role's lengths and HCP per suit, and its HCP, read by endplay (not by this project)."""
    hand = getattr(EndplayDeal(pbn), seat_of(role))
    suits = [hand.spades, hand.hearts, hand.diamonds, hand.clubs]
    return [len(s) for s in suits], [evaluate.hcp(s) for s in suits], evaluate.hcp(hand)


def true_class(pbn: str, text: str, by: str) -> str | None:
    """The class of a deal, from SEMANTICS 7's words: a band of the role's HCP, its shape
    class, or the first suit in S, H, D, C order that the wildcard (or the first fit) takes."""
    kind, _, rest = by.partition(":")
    s = scenario(text)
    if kind == "fit":
        fit = s.fits[0]
        a, b = ("north", "south") if fit.pair.value == "declarer" else ("east", "west")
        deal = EndplayDeal(pbn)
        for suit in fit.candidate_suits():
            k = SUITS.index(suit.value)
            total = sum(len([getattr(deal, seat).spades, getattr(deal, seat).hearts, getattr(deal, seat).diamonds, getattr(deal, seat).clubs][k]) for seat in (a, b))
            if total >= fit.min:
                return suit.value
        return None
    role = rest.split(":")[0]
    lengths, suit_hcp, hcp = lengths_and_hcp(pbn, role)
    if kind == "shape":
        return shape_class(tuple(lengths)).value
    if kind == "hcp":
        return None  # bands are checked against the class's own name below
    position = s.position(dsl.model.Role(role))
    for k, suit in enumerate(SUITS):
        if dsl.model.Suit(suit) in position.named_suits:
            continue
        if (position.x is None or position.x.contains(lengths[k])) and (position.x_hcp is None or position.x_hcp.contains(suit_hcp[k])):
            return suit
    return None


def in_class(pbn: str, text: str, by: str, name: str) -> bool:
    if by.startswith("hcp:"):
        role = by.split(":")[1]
        _, _, hcp = lengths_and_hcp(pbn, role)
        lo, _, hi = name.partition("-")
        return int(lo) <= hcp <= int(hi or lo)
    return true_class(pbn, text, by) == name


@pytest.mark.parametrize("text, by", CASES)
def test_the_classes_exact_counts_add_up_to_the_scenarios(text, by):
    s = scenario(text)
    probabilities = [class_probability(c) for c in level(s, by).classes]
    assert all(p.exact for p in probabilities)
    assert sum(p.fraction for p in probabilities) == ScenarioSampler(s).probability.fraction


@settings(max_examples=15, deadline=None)
@given(st.integers(12, 20).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, 24))), st.integers(1, 3), st.data())
def test_random_bands_add_up_to_the_scenario(bounds, n, data):
    """Any partition of a role's range into bands: the bands' counts add up to the whole."""
    lo, hi = bounds
    cuts = sorted(data.draw(st.sets(st.integers(lo + 1, hi), max_size=min(n, hi - lo))) if hi > lo else set())
    edges = [lo, *cuts, hi + 1]
    bands = ",".join(f"{a}-{b - 1}" if b - 1 > a else str(a) for a, b in zip(edges, edges[1:]))
    s = scenario(f"opener hcp:{lo}-{hi} S:5+; responder hcp:6-9")
    classes = level(s, f"hcp:opener:{bands}").classes
    assert [c.name for c in classes] == bands.split(",")
    assert sum(class_probability(c).fraction for c in classes) == ScenarioSampler(s).probability.fraction


@pytest.mark.parametrize("text, by", CASES)
def test_every_board_is_in_its_class_and_its_scenario(text, by):
    s = scenario(text)
    lv = level(s, by)
    outcome = levelled_outcome(s, 1, 4 * len(lv.classes) + 1, lv, None, lambda k: make_rng(11, k))
    assert len(outcome.deals) == 4 * len(lv.classes) + 1 == len(outcome.deal_classes)
    for pbn, name in zip(outcome.deals, outcome.deal_classes):
        assert not violations(parse_deal(pbn), s)
        assert in_class(pbn, text, by, name), (pbn, name)
    # classes in turn, the remainder to the first
    names = [c.name for c in lv.classes]
    assert list(outcome.deal_classes[: len(names)]) == names
    assert [c.boards for c in outcome.levels.classes] == [5] + [4] * (len(names) - 1)


@pytest.mark.parametrize("text, by", [CASES[0], CASES[2], CASES[4], CASES[6]])
def test_the_natural_shares_are_the_unlevelled_frequencies(text, by):
    """Among unlevelled deals, each class comes up at its natural share (binomial, 4.5 sigma)."""
    s = scenario(text)
    lv = level(s, by)
    outcome = levelled_outcome(s, 1, len(lv.classes), lv, None, lambda k: make_rng(3, k))
    shares = {c.name: float(c.natural_share) for c in outcome.levels.classes}
    assert math.isclose(sum(shares.values()), 1.0, rel_tol=1e-12)
    rows = np.concatenate(list(ScenarioSampler(s).batches(3000, make_rng(99))))
    from bridgeshape_mirror.deals.boards.pbn import format_many

    seen = [next(n for n in shares if in_class(pbn, text, by, n)) for pbn in format_many(rows)]
    for name, p in shares.items():
        k, n = seen.count(name), len(seen)
        assert abs(k - n * p) <= 4.5 * math.sqrt(n * p * (1 - p)) + 1, (name, k, n * p)


def test_a_class_after_others_is_uniform_within_itself():
    """Class H of `x:5+` (hearts taken, spades not): its deals against the unlevelled deals
    whose first qualifying suit is hearts, on the opener's HCP, spade and heart lengths."""
    text, by = CASES[2]
    s = scenario(text)
    lv = level(s, by)
    hearts = next(c for c in lv.classes if c.name == "H")
    outcome = levelled_outcome(s, 1, 4 * 600, lv, None, lambda k: make_rng(5, k))
    mine = [pbn for pbn, name in zip(outcome.deals, outcome.deal_classes) if name == "H"]
    assert len(mine) == 600 and hearts.earlier
    from bridgeshape_mirror.deals.boards.pbn import format_many

    theirs = [pbn for pbn in format_many(np.concatenate(list(ScenarioSampler(s).batches(4000, make_rng(6))))) if true_class(pbn, text, by) == "H"]
    assert len(theirs) > 600

    def stats(pbns):
        read = [lengths_and_hcp(p, "opener") for p in pbns]
        return {"hcp": np.array([r[2] for r in read]), "spades": np.array([r[0][0] for r in read]), "hearts": np.array([r[0][1] for r in read])}

    a, b = stats(mine), stats(theirs)
    for name in a:
        stat, df = homogeneity(a[name], b[name])
        assert stat <= critical_value(df), name


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 500), st.lists(st.integers(1, 5), min_size=1, max_size=6), st.data())
def test_boards_per_class_gives_each_its_share_and_the_remainder_to_the_first(total, shares, data):
    alive = data.draw(st.lists(st.booleans(), min_size=len(shares), max_size=len(shares)))
    boards = boards_per_class(total, shares, alive)
    live = [i for i, a in enumerate(alive) if a]
    if not live:
        assert boards == [0] * len(shares)
        return
    assert sum(boards) == total and all(boards[i] == 0 for i, a in enumerate(alive) if not a)
    weight = sum(shares[i] for i in live)
    floors = [total * shares[i] // weight for i in live]
    extra = [boards[i] - f for i, f in zip(live, floors)]
    assert all(e in (0, 1) for e in extra) and extra == sorted(extra, reverse=True)


def test_a_class_with_no_deal_is_proved_and_its_boards_go_to_the_others():
    text = "opener S:0-1 hcp:12+; responder S:0-2 hcp:6+ fit:M8+"
    s = scenario(text)
    lv = level(s, "fit")
    outcome = levelled_outcome(s, 1, 7, lv, None, lambda k: make_rng(1, k))
    spades, hearts = outcome.levels.classes
    assert spades.boards == 0 and spades.empty is not None and spades.probability.fraction == 0
    assert hearts.boards == 7 and set(outcome.deal_classes) == {"H"}
    assert hearts.natural_share == 1


def test_levelling_never_changes_the_unlevelled_output(monkeypatch):
    """The same DSL, count and seed without `--level` give the same document as ever; with it,
    every deal has its class and the scenario its levels."""
    code, plain, _ = run(monkeypatch, CASES[0][0], "--count", "6", "--seed", "4")
    assert code == 0 and b"class" not in plain and b"levels" not in plain
    code, out, err = run(monkeypatch, CASES[0][0], "--count", "9", "--seed", "4", "--level", "hcp:opener", "--mix", "2:1:1")
    assert code == 0, err
    (entry,) = json.loads(out)["scenarios"]
    # 9 in 2:1:1 is 4, 2, 2 and one more to the first; classes in turn
    assert [d["class"] for d in entry["deals"]] == ["12-15", "16-18", "19-21"] * 2 + ["12-15"] * 3
    assert [d["board"] for d in entry["deals"]] == list(range(1, 10))
    levels = entry["levels"]
    assert levels["by"] == "hcp:opener:12-15,16-18,19-21" and [c["boards"] for c in levels["classes"]] == [5, 2, 2]
    shares = [Fraction(c["natural_share_fraction"]) for c in levels["classes"]]
    assert sum(shares) == 1 and all(c["probability_exact"] for c in levels["classes"])
    assert Fraction(entry["probability_fraction"]) == sum(Fraction(c["probability_fraction"]) for c in levels["classes"])
    assert "natural" in err and "delivered 55.6% (5 boards)" in err


def test_a_levelled_pbn_names_each_boards_class(monkeypatch):
    """The PBN's `Level` tag, read by endplay's PBN reader."""
    from endplay.parsers import pbn as endplay_pbn

    code, out, err = run(monkeypatch, CASES[6][0], "--count", "8", "--seed", "2", "--level", "shape:opener", "--format", "pbn")
    assert code == 0, err
    boards = endplay_pbn.loads(out.decode())
    assert [b.info["Level"] for b in boards] == ["balanced", "one_suiter", "two_suiter", "three_suiter"] * 2
    for b in boards:  # the opener is the board's dealer
        opener = getattr(b.deal, {"N": "north", "E": "east", "S": "south", "W": "west"}[b.dealer.abbr])
        lengths = [len(getattr(opener, s)) for s in ("spades", "hearts", "diamonds", "clubs")]
        assert shape_class(tuple(lengths)).value == b.info["Level"]
    comments = [line for line in out.decode().splitlines() if line.startswith("{scenario")]
    assert comments == [f"{{scenario 1; class {b.info['Level']}}}" for b in boards]


def test_a_levelled_lin_names_each_boards_class_where_readers_skip_it(monkeypatch):
    """LIN's `st` field holds the class; endplay's LIN reader reads the same boards as the
    levelled JSON says, in the same classes."""
    from endplay.parsers import lin as endplay_lin

    args = (CASES[6][0], "--count", "8", "--seed", "2", "--level", "shape:opener")
    code, out, err = run(monkeypatch, *args, "--format", "lin")
    assert code == 0, err
    _, doc, _ = run(monkeypatch, *args, "--format", "json")
    deals = json.loads(doc)["scenarios"][0]["deals"]
    boards = endplay_lin.loads(out.decode())
    assert len(boards) == len(deals) == 8
    for line, b, deal in zip(out.decode().splitlines(), boards, deals):
        assert f"|st|class {deal['class']}|" in line
        assert b.board_num == deal["board"] and b.deal.to_pbn() == EndplayDeal(deal["board_pbn"]).to_pbn()


@pytest.mark.parametrize(
    "text, args, says",
    [
        (CASES[0][0], ["--level", "hcp:dealer"], "unknown role 'dealer'"),
        (CASES[0][0], ["--level", "colour:opener"], "unknown measure 'colour'"),
        (CASES[0][0], ["--level", "hcp:opener:12-15,15-21"], "overlap"),
        (CASES[0][0], ["--level", "hcp:opener:12-14,16-21"], "leave a gap (15)"),
        (CASES[0][0], ["--level", "hcp:opener:10-14,15-21"], "opener's range 12-21 starts at 12"),
        (CASES[0][0], ["--level", "hcp:opener:12-14,15-17"], "ends at 21"),
        (CASES[0][0], ["--level", "suit:opener"], "opener has no wildcard"),
        (CASES[0][0], ["--level", "fit"], "no fit"),
        (CASES[0][0], ["--level", "hcp:opener", "--mix", "1:1"], "2 shares for 3 classes"),
        (CASES[0][0], ["--level", "hcp:opener", "--mix", "1:0:1"], "share of 0"),
        (CASES[0][0], ["--mix", "1:1"], "--mix needs --level"),
        ("opener x:5+ hcp:12+; responder fit:8+", ["--level", "fit"], "beside opener's wildcard"),
    ],
)
def test_a_level_that_does_not_apply_is_a_usage_error(monkeypatch, text, args, says):
    code, out, err = run(monkeypatch, text, "--count", "3", *args)
    assert code == 2 and says in err and not out, err


def test_parse_mix_and_level_refuse_what_they_cannot_read():
    assert parse_mix("2:1:1") == (2, 1, 1)
    for bad in ("", "2:", "a:b", "1.5:1"):
        with pytest.raises(LevelError):
            parse_mix(bad)
    with pytest.raises(LevelError, match="takes a role only"):
        level(scenario(CASES[6][0]), "shape:opener:1-2")


def test_two_measures_level_by_the_product_of_their_classes():
    """`hcp:opener` x `suit:opp1`: 3 x 4 classes whose exact counts add up to the scenario's,
    every board in both of its classes."""
    from bridgeshape_mirror.deals.levels import product

    text = "opener hcp:12-21 x:5+; opp1 hcp:8-16 x:5+"
    s = scenario(text)
    lv = product(s, ["hcp:opener", "suit:opp1"])
    assert [c.name for c in lv.classes][:5] == ["12-15/S", "12-15/H", "12-15/D", "12-15/C", "16-18/S"] and len(lv.classes) == 12
    assert sum(class_probability(c).fraction for c in lv.classes) == ScenarioSampler(s).probability.fraction
    outcome = levelled_outcome(s, 1, 24, lv, None, lambda k: make_rng(8, k))
    for pbn, name in zip(outcome.deals, outcome.deal_classes):
        band, suit = name.split("/")
        assert not violations(parse_deal(pbn), s)
        assert in_class(pbn, text, "hcp:opener", band) and in_class(pbn, text, "suit:opp1", suit), (pbn, name)
    with pytest.raises(LevelError, match="the same measure twice"):
        product(s, ["hcp:opener", "hcp:opener:12-15,16-21"])


def _class_script_condition(text: str, by: str, name: str):
    from bridgeshape_mirror.deals.scripts.condition import difference_condition

    cls = next(c for c in level(scenario(text), by).classes if c.name == name)
    return difference_condition(cls.base, cls.earlier)


@pytest.mark.parametrize("text, by", CASES)
def test_a_class_script_accepts_exactly_the_class(text, by):
    """`export --level --class`'s condition, read as the script languages read it, against
    SEMANTICS 7's classes read by endplay: on the unlevelled scenario's deals (each in one
    class) and on deals of no class (random ones, mostly outside the scenario)."""
    import random

    from support.scenario_sets import random_deal
    from support.script_conditions import evaluate

    from bridgeshape_mirror.deals.outcome import deal_outcome

    s = scenario(text)

    inside = list(deal_outcome(s, 1, 300, make_rng(7)).deals)
    rng = random.Random(8)
    outside = [d.pbn() for d in (random_deal(rng) for _ in range(300))]
    names = [c.name for c in level(s, by).classes]
    conditions = {n: _class_script_condition(text, by, n) for n in names}
    for pbn in inside:
        accepted = [n for n in names if evaluate(conditions[n], parse_deal(pbn))]
        assert len(accepted) == 1 and in_class(pbn, text, by, accepted[0]), (pbn, accepted)
    for pbn in outside:
        if violations(parse_deal(pbn), s):
            assert not any(evaluate(c, parse_deal(pbn)) for c in conditions.values()), pbn


DEALER = "/usr/games/dealer"


@pytest.mark.slow
@pytest.mark.parametrize("text, by, name", [(CASES[1][0], CASES[1][1], "18-21"), (CASES[2][0], CASES[2][1], "D"), (CASES[4][0], "fit", "S")])
def test_dealer_deals_a_class_at_its_exact_probability(tmp_path, monkeypatch, text, by, name):
    """The exported class script in Debian's dealer: every deal it prints is in the class
    (endplay's reading) and the scenario, and its acceptance rate is the class's exact
    probability (z = 4.5)."""
    import os
    import subprocess

    from support.cli import run_export

    if not os.path.exists(DEALER):
        pytest.skip("Debian's dealer is not installed")
    code, out, err = run_export(monkeypatch, text, "--to", "dealer", "--level", by, "--class", name)
    assert code == 0, err
    path = tmp_path / "class.dlr"
    path.write_text(out, encoding="utf-8")
    generated = 400_000
    run = subprocess.run([DEALER, "-s", "5", "-p", str(generated), "-g", str(generated), str(path)], capture_output=True, text=True, timeout=120, check=True)
    lines = run.stdout.splitlines()
    produced = int(next(line for line in lines if line.startswith("Produced")).split()[1])
    for line in (line for line in lines if line.startswith("n ")):
        parts = line.split()
        hands = {parts[i]: parts[i + 1] for i in range(0, 8, 2)}
        pbn = "N:" + " ".join(hands[s] for s in "nesw").upper()
        assert not violations(parse_deal(pbn), scenario(text)) and in_class(pbn, text, by, name), pbn
    cls = next(c for c in level(scenario(text), by).classes if c.name == name)
    p = float(class_probability(cls).fraction)
    assert f"exact probability {class_probability(cls).fraction.numerator}/" in out
    assert generated * p >= 30 and abs(produced - generated * p) <= 4.5 * math.sqrt(generated * p * (1 - p)), (produced, generated * p)


@pytest.mark.parametrize(
    "text, args, says",
    [
        (CASES[0][0], ["--level", "hcp:opener"], "--level and --class go together"),
        (CASES[0][0], ["--class", "12-15"], "--level and --class go together"),
        (CASES[0][0], ["--level", "hcp:opener", "--class", "18-21"], "its classes are 12-15, 16-18, 19-21"),
        (CASES[0][0] + " // opener hcp:20+", ["--level", "hcp:opener", "--class", "12-15"], "say which one to level with --scenario N"),
        (CASES[0][0], ["--level", "suit:opener", "--class", "S"], "opener has no wildcard"),
    ],
)
def test_export_of_a_class_that_cannot_be_named_is_a_usage_error(monkeypatch, text, args, says):
    from support.cli import run_export

    code, out, err = run_export(monkeypatch, text, "--to", "dealer", *args)
    assert code == 2 and says in err and not out, err
