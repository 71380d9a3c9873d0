"""Levelled deal sets (SEMANTICS 7): a scenario split into classes by one measure, each class
dealt exactly its number of boards, uniformly within it, with its own exact probability.

A class is the scenario with the class's condition added (a role's HCP band, its shape class,
the suit its wildcard or the scenario's first fit takes), so it is counted and dealt like any
scenario. A deal whose wildcard or fit could take two suits belongs to the first class that
holds it (S, H, D, C): the class of suit k is "pinned to k and to none of the suits before",
counted by inclusion-exclusion over those suits and dealt by drawing "pinned to k" and
throwing away the deals an earlier suit holds (uniform on what is kept).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING

from bridgeshape_mirror.dsl.deck import MAX_HAND_HCP
from bridgeshape_mirror.dsl.model import SUITS, Fit, Position, Range, Role, Scenario, ShapeClass, Suit

from .errors import DealsError, TooRare, Unsatisfiable
from .outcome import ClassShare, Levels, ScenarioDeals
from .probability import Probability
from .rules.reasons import EARLIER_CLASS, Reason

if TYPE_CHECKING:
    import numpy as np

    from .rules.compiled import PartRules

#: The measures a scenario can be levelled by, as `--level` writes them.
MEASURES = ("hcp:ROLE[:BANDS]", "suit:ROLE", "fit", "shape:ROLE")
#: The shape classes, in the order their classes take.
SHAPES = (ShapeClass.BALANCED, ShapeClass.ONE_SUITER, ShapeClass.TWO_SUITER, ShapeClass.THREE_SUITER)
#: A class's draws without one deal kept, past which it gives up (its deals are all in earlier
#: classes but too rarely to prove it by counting: an estimated scenario).
MAX_CLASS_DRAWS = 2_000_000


class LevelError(DealsError):
    """A `--level` or `--mix` that does not apply to the scenario (the message says why)."""


@dataclass(frozen=True)
class LevelClass:
    """One class: its name, the signed scenarios whose counts add up to its own (inclusion-
    exclusion over the suits before it; one term for bands and shapes), and the scenario its
    deals are drawn from with the earlier classes' scenarios whose deals are thrown away."""

    name: str
    terms: tuple[tuple[int, Scenario], ...]
    earlier: tuple[Scenario, ...] = ()

    @property
    def base(self) -> Scenario:
        return self.terms[0][1]


@dataclass(frozen=True)
class Level:
    """A measure applied to one scenario: its text (`hcp:opener:12-14,15-17,18-21`) and classes."""

    by: str
    classes: tuple[LevelClass, ...]


def parse_mix(text: str) -> tuple[int, ...]:
    """`2:1:1` as (2, 1, 1): whole numbers of at least 1 (raises `LevelError`)."""
    if not re.fullmatch(r"[0-9]+(:[0-9]+)*", text):
        raise LevelError(f"the mix {text!r} is not shares like 1:1:1 or 2:1:1")
    shares = tuple(int(s) for s in text.split(":"))
    if any(s == 0 for s in shares):
        raise LevelError(f"the mix {text!r} has a share of 0: leave that class out of the bands instead")
    return shares


def level(scenario: Scenario, by: str) -> Level:
    """The classes of `scenario` by the measure `by` (raises `LevelError`)."""
    check_measure(by)
    kind, _, rest = by.partition(":")
    if kind == "fit":
        return _by_fit(scenario)
    role_name, _, bands = rest.partition(":")
    role = Role(role_name)
    position = scenario.position(role) or Position(role)
    if kind == "hcp":
        return _by_hcp(scenario, position, bands)
    if kind == "shape":
        shapes = SHAPES if position.shape in (None, ShapeClass.ANY) else (position.shape,)
        classes = tuple(LevelClass(s.value, ((1, _with(scenario, replace(position, shape=s))),)) for s in shapes)
        return Level(f"shape:{role.value}", classes)
    return _by_wildcard(scenario, position)


def check_measure(by: str) -> None:
    """Raise `LevelError` when `by` is not a measure of any scenario (an unknown measure or
    role, bands that do not read); what depends on a scenario is checked when it is applied.
    For settings read before any scenario (the mirror's `[build] level`)."""
    kind, _, rest = by.partition(":")
    if kind == "fit":
        if rest:
            raise LevelError(f"{by!r}: fit takes no role (it is the scenario's first fit)")
        return
    if kind not in ("hcp", "suit", "shape"):
        raise LevelError(f"unknown measure {kind!r} in {by!r}: one of {', '.join(MEASURES)}")
    role_name, _, bands = rest.partition(":")
    _role(role_name, by)
    if bands and kind != "hcp":
        raise LevelError(f"{by!r}: {kind} takes a role only")
    if bands:  # whether they cover the role's range is the scenario's to say
        _check_adjacent(_read_bands(bands, MAX_HAND_HCP))


def applied(scenario: Scenario, bys: Sequence[str]) -> Level | None:
    """`scenario`'s classes by the measures `bys`, or None where they do not apply to it (no
    wildcard, no fit, bands outside its range): the mirror deals that scenario uniformly."""
    try:
        return product(scenario, bys)
    except LevelError:
        return None


def product(scenario: Scenario, bys: Sequence[str]) -> Level:
    """The classes of `scenario` by several measures at once (`hcp:opener` and `suit:opp1`:
    3 x 4 classes, named like `12-14/S`), in the order of the first measure's classes, then
    the second's. Each product class is a class of the second measure within a class of the
    first: its terms are the second measure's terms of each of the first's, and a deal an
    earlier class of either holds is thrown away."""
    if not bys:
        raise LevelError("no measure to level by")
    measures = [":".join(b.split(":")[:2]) for b in bys]
    if len(set(measures)) < len(measures):
        raise LevelError(f"the same measure twice: {' and '.join(bys)}")
    first = level(scenario, bys[0])
    if len(bys) == 1:
        return first
    rest = product(scenario, bys[1:])  # checks the other measures apply to the scenario itself
    names = [c.name for c in rest.classes]
    classes = []
    for outer in first.classes:
        inner_of = [(sign, product(term, bys[1:])) for sign, term in outer.terms]
        if any([c.name for c in lv.classes] != names for _, lv in inner_of):
            raise LevelError(f"{' and '.join(bys)} cannot be combined: one changes the other's classes")
        for j, inner in enumerate(rest.classes):
            terms = tuple((sign * s2, t2) for sign, lv in inner_of for s2, t2 in lv.classes[j].terms)
            earlier = outer.earlier + inner_of[0][1].classes[j].earlier
            classes.append(LevelClass(f"{outer.name}/{inner.name}", terms, earlier))
    return Level(f"{first.by} {rest.by}", tuple(classes))


def _role(name: str, by: str) -> Role:
    try:
        return Role(name)
    except ValueError:
        roles = ", ".join(r.value for r in Role)
        raise LevelError(f"unknown role {name!r} in {by!r}: one of {roles}") from None


def _by_hcp(scenario: Scenario, position: Position, text: str) -> Level:
    role = position.role
    lo = position.hcp.min if position.hcp is not None else 0
    hi = position.hcp.upper(MAX_HAND_HCP) if position.hcp is not None else MAX_HAND_HCP
    bands = _bands(text, lo, hi, role) if text else _thirds(lo, hi)
    classes = tuple(
        LevelClass(_band_name(a, b), ((1, _with(scenario, replace(position, hcp=Range(a, b)))),)) for a, b in bands
    )
    return Level(f"hcp:{role.value}:" + ",".join(c.name for c in classes), classes)


def _band_name(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}-{b}"


def _thirds(lo: int, hi: int) -> list[tuple[int, int]]:
    """The range in three bands of near-equal width (the wider first), fewer when narrower."""
    values = hi - lo + 1
    n = min(3, values)
    bands, start = [], lo
    for i in range(n):
        width = values // n + (1 if i < values % n else 0)
        bands.append((start, start + width - 1))
        start += width
    return bands


def _bands(text: str, lo: int, hi: int, role: Role) -> list[tuple[int, int]]:
    """The bands `text` says, which must cover `role`'s range `lo`-`hi` exactly."""
    bands = _read_bands(text, hi)
    where = f"{role.value}'s range {_band_name(lo, hi)}"
    if bands[0][0] != lo:
        raise LevelError(f"the bands start at {bands[0][0]}, where {where} starts at {lo}")
    _check_adjacent(bands)
    if bands[-1][1] != hi:
        raise LevelError(f"the bands end at {bands[-1][1]}, where {where} ends at {hi}")
    return bands


def _read_bands(text: str, hi: int) -> list[tuple[int, int]]:
    """Each band of `text` as (low, high); `18+` ends at `hi`."""
    bands = []
    for piece in text.split(","):
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+)|(\+))?", piece.strip())
        if not m:
            raise LevelError(f"the band {piece!r} is not like 12-14, 15 or 18+")
        a = int(m[1])
        b = hi if m[3] else int(m[2]) if m[2] else a
        if b < a:
            raise LevelError(f"the band {piece!r} ends before it starts")
        bands.append((a, b))
    return bands


def _check_adjacent(bands: list[tuple[int, int]]) -> None:
    """Each band starts where the one before it ends: no overlap, no gap."""
    for (a1, b1), (a2, b2) in itertools.pairwise(bands):
        if a2 <= b1:
            raise LevelError(f"the bands {_band_name(a1, b1)} and {_band_name(a2, b2)} overlap")
        if a2 > b1 + 1:
            raise LevelError(f"the bands {_band_name(a1, b1)} and {_band_name(a2, b2)} leave a gap ({_band_name(b1 + 1, a2 - 1)})")


def _by_wildcard(scenario: Scenario, position: Position) -> Level:
    role = position.role
    if not position.has_wildcard:
        raise LevelError(f"{role.value} has no wildcard (x: or xhcp:) whose suit could level the scenario")
    fit_suits = {f.suit for f in scenario.fits_of(role.pair) if f.suit is not None}
    candidates = [s for s in SUITS if s not in position.named_suits and s not in fit_suits]

    def pinned(suits: Sequence[Suit]) -> Scenario:
        lengths, hcp = dict(position.suits), dict(position.suit_hcp)
        for s in suits:
            if position.x is not None:
                lengths[s] = position.x
            if position.x_hcp is not None:
                hcp[s] = position.x_hcp
        return _with(scenario, replace(position, suits=lengths, suit_hcp=hcp, x=None, x_hcp=None))

    return Level(f"suit:{role.value}", _suit_classes(candidates, pinned))


def _by_fit(scenario: Scenario) -> Level:
    if not scenario.fits:
        raise LevelError("the scenario has no fit to level by")
    fit = scenario.fits[0]
    if fit.suit is None:
        wildcards = [p.role.value for p in scenario.positions if p.role.pair is fit.pair and p.has_wildcard]
        if wildcards:
            # a fit in a named suit takes that suit from the partnership's wildcards' candidates
            raise LevelError(
                f"levelling by the fit beside {' and '.join(wildcards)}'s wildcard is not supported: "
                "pinning the fit's suit would change the wildcard's candidate suits"
            )
    others = scenario.fits[1:]

    def pinned(suits: Sequence[Suit]) -> Scenario:
        fits = tuple(Fit(fit.min, s, None, fit.pair, fit.declared_in) for s in suits)
        return replace(scenario, fits=fits + others)

    return Level("fit", _suit_classes(list(fit.candidate_suits()), pinned))


def _suit_classes(candidates: Sequence[Suit], pinned: Callable[[Sequence[Suit]], Scenario]) -> tuple[LevelClass, ...]:
    classes = []
    for i, suit in enumerate(candidates):
        before = candidates[:i]
        terms = tuple(
            ((-1) ** len(subset), pinned((suit, *subset)))
            for n in range(len(before) + 1)
            for subset in itertools.combinations(before, n)
        )
        classes.append(LevelClass(suit.value, terms, tuple(pinned((s,)) for s in before)))
    return tuple(classes)


def _with(scenario: Scenario, position: Position) -> Scenario:
    """`scenario` with `position` in place of its role's (or added, when it had none)."""
    if scenario.position(position.role) is None:
        return replace(scenario, positions=(*scenario.positions, position))
    return replace(scenario, positions=tuple(position if p.role is position.role else p for p in scenario.positions))


def class_probability(cls: LevelClass) -> Probability:
    """The class's probability: exact when each of its terms is counted exactly, else the sum
    of the terms' estimates (never below 0)."""
    from .drawing.rng import make_rng
    from .drawing.sampler import ScenarioSampler

    exact, value, low, high = Fraction(0), 0.0, 0.0, 0.0
    all_exact = True
    for sign, scenario in cls.terms:
        try:
            sampler = ScenarioSampler(scenario)
        except Unsatisfiable:
            continue
        p = sampler.estimate_probability(make_rng(0))
        if p.fraction is None:
            all_exact = False
        else:
            exact += sign * p.fraction
        value += sign * p.value
        if sign > 0:
            low, high = low + p.low, high + p.high
        else:  # minus an interval: its ends swap
            low, high = low - p.high, high - p.low
    if all_exact:
        return Probability.of(exact)
    return Probability(max(value, 0.0), None, max(low, 0.0), max(high, 0.0))


def boards_per_class(total: int, shares: Sequence[int], alive: Sequence[bool]) -> list[int]:
    """`total` boards in the `shares` of the classes that have deals (`alive`), the remainder
    of the division to the first of them; a class without deals gets none."""
    weight = sum(s for s, a in zip(shares, alive) if a)
    if not weight:
        return [0] * len(shares)
    boards = [total * s // weight if a else 0 for s, a in zip(shares, alive)]
    left = total - sum(boards)
    for i, a in enumerate(alive):
        if a and left:
            boards[i] += 1
            left -= 1
    return boards


def levelled_outcome(
    scenario: Scenario, index: int, count: int, by: Level, shares: Sequence[int] | None, rng_of: Callable[[int], object]
) -> ScenarioDeals:
    """`count` boards of `scenario` levelled `by` its classes in `shares` (equal when None):
    the outcome's deals take the classes in turn, each deal's class in `deal_classes`, and
    `levels` says each class's probability, natural share and boards. `rng_of(k)` is class
    k's generator (from 0)."""
    from .outcome import deal_outcome

    if shares is not None and len(shares) != len(by.classes):
        names = ", ".join(c.name for c in by.classes)
        raise LevelError(f"the mix has {len(shares)} shares for {len(by.classes)} classes ({names})")
    whole = deal_outcome(scenario, index, 0, rng_of(len(by.classes)))
    if whole.no_deals_reason is not None:
        return whole
    probabilities = [class_probability(c) for c in by.classes]
    reasons = [_empty_reason(c) if p.fraction == 0 else None for c, p in zip(by.classes, probabilities)]
    rngs = [rng_of(k) for k in range(len(by.classes))]
    dealt: list[list[str]] = [[] for _ in by.classes]
    # a class found empty while dealing (not proved by its count: an estimate) gives its
    # boards to the others, which then deal a few more
    while True:
        boards = boards_per_class(count, shares or [1] * len(by.classes), [r is None for r in reasons])
        for k, cls in enumerate(by.classes):
            if reasons[k] is None and len(dealt[k]) < boards[k]:
                more, reasons[k] = _class_deals(cls, boards[k] - len(dealt[k]), rngs[k])
                if reasons[k] is not None:
                    dealt[k] = []
                    break
                dealt[k].extend(more)
        else:
            break
    turn = [(pbn, by.classes[k].name) for row in itertools.zip_longest(*dealt) for k, pbn in enumerate(row) if pbn is not None]
    total = whole.probability
    shares_out = tuple(
        ClassShare(cls.name, p, _share(p, total), len(dealt[k]), reasons[k]) for k, (cls, p) in enumerate(zip(by.classes, probabilities))
    )
    return replace(
        whole, deals=tuple(pbn for pbn, _ in turn), deal_classes=tuple(name for _, name in turn), levels=Levels(by.by, shares_out)
    )


def _share(p: Probability, total: Probability) -> Fraction | float:
    if p.fraction is not None and total.fraction:
        return p.fraction / total.fraction
    return p.value / total.value if total.value else 0.0


def _empty_reason(cls: LevelClass) -> Reason:
    try:
        from .drawing.sampler import ScenarioSampler

        ScenarioSampler(cls.base)
    except Unsatisfiable as exc:
        return exc.reason
    return Reason(EARLIER_CLASS)


def _class_deals(cls: LevelClass, n: int, rng) -> tuple[list[str], Reason | None]:
    """`n` deals of the class, uniformly: drawn from its base scenario, those an earlier class
    holds thrown away."""
    from .boards.pbn import format_many
    from .drawing.sampler import ScenarioSampler

    try:
        sampler = ScenarioSampler(cls.base)
    except Unsatisfiable as exc:
        return [], exc.reason
    earlier = _earlier_rules(cls)
    kept: list[str] = []
    drawn = 0
    while len(kept) < n:
        want = n - len(kept)
        try:
            for rows in sampler.batches(want if not cls.earlier else max(want, 64), rng):
                drawn += len(rows)
                kept.extend(format_many(rows[~_held_by(earlier, rows)] if earlier else rows))
        except TooRare as exc:
            return [], exc.reason
        if not kept and drawn >= MAX_CLASS_DRAWS:
            return [], Reason(EARLIER_CLASS)
    return kept[:n], None


def _earlier_rules(cls: LevelClass) -> list[tuple[PartRules, ...]]:
    """The earlier classes' rules, each class's constrained partnerships (as the sampler
    checks a proposal): a class with no deal holds none, and is left out."""
    from .rules.compiled import compile_scenario

    rules = []
    for scenario in cls.earlier:
        try:
            rules.append(compile_scenario(scenario).constrained_parts)
        except Unsatisfiable:
            continue
    return rules


def _held_by(earlier: list[tuple[PartRules, ...]], rows: np.ndarray) -> np.ndarray:
    """Which deals (seat-of-card rows) some earlier class holds, all rows at once."""
    import numpy as np

    from .drawing.hands import part_ok

    held = np.zeros(len(rows), dtype=bool)
    for parts in earlier:
        inside = np.ones(len(rows), dtype=bool)
        for part in parts:
            inside &= part_ok(rows, part)
        held |= inside
    return held
