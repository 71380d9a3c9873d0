"""A scenario as an exact boolean condition over what both script languages measure: a suit's
length, a hand's HCP and a suit's HCP, by seat (opener North, as SEMANTICS 3 seats them).

Everything SEMANTICS 3 defines is a sum of such measures against a bound, joined by and/or:
- a range is one or two bounds (a bound the measure cannot pass is left out), a range of one
  value is `Exactly` that value;
- a wildcard is "some candidate suit has both the length and the HCP" (the candidates:
  suits the position does not name, nor the named suit of a fit of its pair);
- a fit is "some suit of the class has the pair's combined length";
- a shape class is a statement on the four lengths: balanced = every suit 2..5 and every
  two suits at least 5 together (no two doubletons: 4333, 4432, 5332); one_suiter = some
  suit 6+ and the others 0..3; two_suiter = a suit 5+, another 4+, the other two 0..3;
  three_suiter = three suits 4+ (4441, 5440). Each is the sorted-lengths rule of SEMANTICS 3
  said suit by suit (`tests/test_exports_scripts.py` holds them to `deals.rules.predicate` on
  every pattern). A class is a `Shape`: those bounds, and the patterns they accept (read off
  the bounds on all 560 hands), for a language that can list patterns (dealer's `shape()`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import permutations, product

from bridgeshape_mirror.dsl.deck import MAX_HAND_HCP, MAX_SUIT_HCP, MAX_SUIT_LENGTH, ROLE_SEAT
from bridgeshape_mirror.dsl.model import SUITS, Position, Range, Scenario, ShapeClass, Suit

from ..errors import NotExpressible
from ..rules.handled import Handles, UnhandledField


class Kind(StrEnum):
    LENGTH = "length"
    HCP = "hcp"


@dataclass(frozen=True)
class Measure:
    """The length of `suit` in `seat`'s hand, or its HCP (in `suit`, or the whole hand)."""

    kind: Kind
    seat: int
    suit: Suit | None = None

    @property
    def most(self) -> int:
        """The most this measure can be: a bound at it says nothing."""
        if self.kind is Kind.LENGTH:
            return MAX_SUIT_LENGTH
        return MAX_SUIT_HCP if self.suit is not None else MAX_HAND_HCP


@dataclass(frozen=True)
class Bound:
    """`sum(terms) >= value` (`at_least`) or `sum(terms) <= value`."""

    terms: tuple[Measure, ...]
    value: int
    at_least: bool


@dataclass(frozen=True)
class Exactly:
    """`measure == value`: a range of one value."""

    measure: Measure
    value: int


@dataclass(frozen=True)
class All:
    parts: tuple[Condition, ...]


@dataclass(frozen=True)
class Any:
    parts: tuple[Condition, ...]


@dataclass(frozen=True)
class Shape:
    """`seat`'s hand is of class `shape`: `bounds` on its lengths say it, and so does
    `patterns`, the lengths it allows sorted longest first (every order of each is allowed)."""

    seat: int
    shape: ShapeClass
    bounds: Condition
    patterns: tuple[tuple[int, int, int, int], ...]


Condition = Bound | Exactly | All | Any | Shape
TRUE = All(())
FALSE = Any(())

#: The fields this module turns into conditions. A field added to the model (a new DSL key)
#: is refused by `scenario_condition` until it is said here: never a script that silently
#: ignores a constraint.
SCRIPTS = Handles("the script exports")


def _range(measure: Measure, r: Range | None) -> list[Condition]:
    if r is None:
        return []
    parts: list[Condition] = []
    if r.min == r.upper(measure.most):
        return [Exactly(measure, r.min)]
    if r.min > 0:
        parts.append(Bound((measure,), r.min, True))
    if r.max is not None and r.max < measure.most:
        parts.append(Bound((measure,), r.max, False))
    return parts


def length(seat: int, suit: Suit) -> Measure:
    return Measure(Kind.LENGTH, seat, suit)


def _length_range(seat: int, suit: Suit, low: int, high: int) -> list[Condition]:
    return _range(length(seat, suit), Range(low, high))


def lengths_hold(c: Condition, lengths: tuple[int, ...]) -> bool:
    """Does a hand of these (S, H, D, C) lengths pass `c`, a condition on lengths only?"""
    if isinstance(c, Bound):
        assert all(t.kind is Kind.LENGTH and t.suit is not None for t in c.terms)
        total = sum(lengths[SUITS.index(t.suit)] for t in c.terms)  # type: ignore[arg-type]
        return total >= c.value if c.at_least else total <= c.value
    if isinstance(c, Exactly):
        assert c.measure.kind is Kind.LENGTH and c.measure.suit is not None
        return lengths[SUITS.index(c.measure.suit)] == c.value
    if isinstance(c, Shape):
        return lengths_hold(c.bounds, lengths)
    if isinstance(c, All):
        return all(lengths_hold(p, lengths) for p in c.parts)
    return any(lengths_hold(p, lengths) for p in c.parts)


HANDS = tuple(t for t in product(range(MAX_SUIT_LENGTH + 1), repeat=len(SUITS)) if sum(t) == MAX_SUIT_LENGTH)


def shape_condition(seat: int, shape: ShapeClass) -> Condition:
    if shape is ShapeClass.ANY:
        return TRUE
    bounds = _shape_bounds(seat, shape)
    patterns = sorted({tuple(sorted(t, reverse=True)) for t in HANDS if lengths_hold(bounds, t)})
    return Shape(seat, shape, bounds, tuple(patterns))  # type: ignore[arg-type]


def _shape_bounds(seat: int, shape: ShapeClass) -> Condition:
    if shape is ShapeClass.BALANCED:
        parts: list[Condition] = [p for s in SUITS for p in _length_range(seat, s, 2, 5)]
        parts += [Bound((length(seat, a), length(seat, b)), 5, True) for i, a in enumerate(SUITS) for b in SUITS[i + 1 :]]
        return All(tuple(parts))
    if shape is ShapeClass.ONE_SUITER:
        return Any(
            tuple(
                All(tuple(_length_range(seat, s, 6, MAX_SUIT_LENGTH) + [p for o in SUITS if o is not s for p in _length_range(seat, o, 0, 3)]))
                for s in SUITS
            )
        )
    if shape is ShapeClass.TWO_SUITER:
        return Any(
            tuple(
                All(
                    tuple(
                        _length_range(seat, a, 5, MAX_SUIT_LENGTH)
                        + _length_range(seat, b, 4, MAX_SUIT_LENGTH)
                        + [p for o in SUITS if o not in (a, b) for p in _length_range(seat, o, 0, 3)]
                    )
                )
                for a, b in permutations(SUITS, 2)
            )
        )
    if shape is ShapeClass.THREE_SUITER:
        return Any(tuple(All(tuple(p for o in SUITS if o is not short for p in _length_range(seat, o, 4, MAX_SUIT_LENGTH))) for short in SUITS))
    raise NotExpressible(f"the shape class {shape.value!r}")


def position_condition(position: Position, scenario: Scenario) -> Condition:
    """What `position` asks of its hand (its seat as SEMANTICS 3 says)."""
    seat = ROLE_SEAT[position.role]
    parts: list[Condition] = []
    for suit, r in position.suits.items():
        parts += _range(length(seat, suit), r)
    for suit, r in position.suit_hcp.items():
        parts += _range(Measure(Kind.HCP, seat, suit), r)
    parts += _range(Measure(Kind.HCP, seat), position.hcp)
    if position.shape is not None:
        parts.append(shape_condition(seat, position.shape))
    if position.has_wildcard:
        fit_suits = {f.suit for f in scenario.fits_of(position.role.pair) if f.suit is not None}
        candidates = [s for s in SUITS if s not in position.named_suits and s not in fit_suits]
        parts.append(
            Any(
                tuple(
                    All(tuple(_range(length(seat, s), position.x) + _range(Measure(Kind.HCP, seat, s), position.x_hcp)))
                    for s in candidates
                )
            )
        )
    return All(tuple(parts))


def scenario_condition(scenario: Scenario) -> Condition:
    """Exactly the deals SEMANTICS 3 lets `scenario` have."""
    try:
        SCRIPTS.refuse(scenario)
    except UnhandledField as exc:
        raise NotExpressible(exc.what) from exc
    parts: list[Condition] = [position_condition(p, scenario) for p in scenario.positions]
    for fit in scenario.fits:
        first, second = (ROLE_SEAT[role] for role in fit.pair.roles)
        parts.append(Any(tuple(Bound((length(first, s), length(second, s)), fit.min, True) for s in fit.candidate_suits())))
    return All(tuple(parts))


def union_condition(scenarios: list[Scenario]) -> Condition:
    """The deals that satisfy at least one of `scenarios`."""
    return Any(tuple(scenario_condition(s) for s in scenarios))


def difference_condition(scenario: Scenario, without: Sequence[Scenario]) -> Condition:
    """The deals of `scenario` that none of `without` has (a levelled class: its base
    scenario without the deals an earlier class holds, `deals.levels`)."""
    kept = scenario_condition(scenario)
    if not without:
        return kept
    # What `kept` says is true of its deals: an earlier class's condition needs only its other parts negated.
    said = set(_conjuncts(kept))
    return All((kept, *(negated(All(tuple(p for p in _conjuncts(scenario_condition(s)) if p not in said))) for s in without)))


def _conjuncts(c: Condition) -> list[Condition]:
    return [q for p in c.parts for q in _conjuncts(p)] if isinstance(c, All) else [c]


def negated(c: Condition) -> Condition:
    """The deals `c` refuses, said with the same kinds of condition: the negation pushed down
    to the bounds (Bridge Champ negates nothing but `hascard`, and dealer's and Deal's bounds
    read as plainly). A shape class is negated through its bounds: the patterns it lists
    would need a name of their own."""
    if isinstance(c, Bound):
        if c.at_least:
            return Bound(c.terms, c.value - 1, False) if c.value > 0 else FALSE
        return Bound(c.terms, c.value + 1, True)
    if isinstance(c, Exactly):
        below = (Bound((c.measure,), c.value - 1, False),) if c.value > 0 else ()
        above = (Bound((c.measure,), c.value + 1, True),) if c.value < c.measure.most else ()
        return Any(below + above)
    if isinstance(c, Shape):
        return negated(c.bounds)
    if isinstance(c, All):
        return Any(tuple(negated(p) for p in c.parts))
    return All(tuple(negated(p) for p in c.parts))
