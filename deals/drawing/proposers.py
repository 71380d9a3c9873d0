"""What proposes a scenario's deals: the core, or a rarer superset drawn exactly.

The core is a partnership's (or a seat's) exact draw, every other card dealt at random: each
deal of its superset equally likely. Four more supersets tie all four seats together and are
drawn exactly, with no rejection of their own: the HCP totals (`placement_draw`; for rules of
HCP totals only, the scenario itself), the per-suit lengths (`length_draw`), the column
products' positive term with its HCP cells (`column_draw`: every rule but the disjunctions over
several suits) and the union of the terms that pin each such disjunction to one suit
(`union_draw`: exactly the scenario). Their tables cost the price of thousands of core
proposals, so a call builds them only when the deals it asks would cost more proposals by
rejection than that (`worth_trying`), and keeps the one whose count, weighed by its proposals'
cost, is the smallest (`rarer_superset`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..counting.honour_placements import hcp_only, placement_count
from ..counting.partnership import PairModel
from ..counting.scenario import ScenarioCounts, exact_cross_count
from ..counting.tables import ALL_DEALS
from ..rules.compiled import FREE, CompiledScenario
from .hands import deal_out_rest
from .part_sampler import draw_part
from .rng import Rng

if TYPE_CHECKING:  # the drawing tables' modules load only when a scenario needs them
    from .column_draw import ColumnDraw
    from .length_draw import LengthDraw
    from .placement_draw import PlacementDraw
    from .union_draw import UnionDraw

#: Expected proposals by rejection from which drawing from the exact counts is cheaper:
#: building the tables costs about as much as 1,000-5,000 proposals.
EXACT_DRAW_FROM = 4096
#: ... and, unless the scenario is HCP totals only, a core accepting less than this.
PLACEMENTS_BELOW_RATE = 0.05
#: Expected proposals by rejection from which the column products' positive term is built
#: too (0.2-0.5 s, the cost of some 30,000-50,000 core proposals) ...
COLUMN_DRAW_FROM = 40_000
#: ... and kept when its count times this (its proposals cost about that many of the core's)
#: is below the best superset's.
COLUMN_PROPOSAL_COST = 3
#: The union of cover terms is built when the proposals expected from the best superset so
#: far exceed its own (column-drawn, this many a deal: its terms overlap little) ...
UNION_OVERLAP = 1.25
#: ... by this many core proposals per class of its terms (a class's tables cost about as
#: much) ...
UNION_PROPOSALS_PER_CLASS = 50_000
#: ... and has at most this many classes.
UNION_MAX_CLASSES = 8
#: Superset tables kept for reuse, of each kind (placements weigh up to 25 MB, most under 2).
DRAWS_CACHE_SIZE = 2


class Proposer(Protocol):
    """Draws deals `(rows, 52)` seat-of-card int8, uniformly over a superset of `count` deals."""

    #: rows asked at a time: None, the sampler's own batch
    batch: int | None

    @property
    def count(self) -> int | Fraction: ...

    def draw(self, n: int, rng: Rng) -> np.ndarray: ...


@dataclass(frozen=True)
class CoreProposer:
    """The core's exact draw (none: no seat constrained), the rest of the deck dealt at random."""

    model: PairModel | None
    batch: int | None = None

    @property
    def count(self) -> Fraction:
        return ALL_DEALS * (Fraction(1) if self.model is None else self.model.superset_probability)

    def draw(self, n: int, rng: Rng) -> np.ndarray:
        if self.model is None:
            owner = np.full((n, 52), -1, dtype=np.int8)
        else:
            owner = draw_part(self.model, n, rng)
        return deal_out_rest(owner, rng)


@dataclass(frozen=True)
class Choice:
    """A superset chosen to propose a scenario's deals."""

    proposer: PlacementDraw | LengthDraw | ColumnDraw | UnionDraw
    #: its deals are exactly the scenario's: nothing to check
    is_scenario: bool


def worth_trying(left: int, rate: float, scenario_hcp_only: bool) -> bool:
    """Would `left` deals at the core's acceptance `rate` pay for building a superset's tables?"""
    if left / rate < EXACT_DRAW_FROM:
        return False
    return scenario_hcp_only or rate < PLACEMENTS_BELOW_RATE or left / rate >= COLUMN_DRAW_FROM


def rarer_superset(counts: ScenarioCounts, left: int, rate: float, best: int | Fraction) -> Choice | None:
    """The superset to draw `left` deals of an exact scenario from, when one is rarer than
    `best` (the core's count, at a core acceptance `rate`); None: keep the core."""
    compiled, count, scenario_hcp_only = counts.compiled, counts.count, counts.hcp_only
    columns_pay = not scenario_hcp_only and left / rate >= COLUMN_DRAW_FROM
    choice = None
    if scenario_hcp_only or rate < PLACEMENTS_BELOW_RATE:
        lengths = None if scenario_hcp_only else length_draw(compiled)
        if lengths is not None and lengths.count < best:
            choice, best = Choice(lengths, False), lengths.count
        from .placement_draw import scenario_bounds

        bounds = tuple(scenario_bounds(compiled))
        # The placements' count first: their tables (up to 25 MB for loose bounds) only if kept.
        placements = placement_count(list(bounds)) if any(b != (FREE.hcp_lo, FREE.hcp_hi) for b in bounds) else best
        if placements < best:
            choice, best = Choice(placement_draw(bounds), scenario_hcp_only), placements
    # the union first: its terms are inside the positive term, and rarely overlap
    union = _union(compiled, count, left, best) if columns_pay else None
    if union is not None:
        return union
    # when the positive term is HCP totals only, its count first (in milliseconds, and
    # remembered on disk as the scenarios' are), and its tables only if they would be kept;
    # else the tables count it
    positive = positive_term(compiled) if columns_pay else None
    if positive is not None and hcp_only(positive):
        positive_count = exact_cross_count(positive)  # by honour placements
        if positive_count is not None and positive_count * COLUMN_PROPOSAL_COST >= best:
            positive = None
    if positive is not None:
        columns = column_draw(compiled)
        if columns is not None and columns.count * COLUMN_PROPOSAL_COST < best:
            # no disjunction dropped: the positive term is the scenario, nothing to check
            choice = Choice(columns, columns.count == count)
    return choice


def _union(compiled: CompiledScenario, count: int, left: int, best: int | Fraction) -> Choice | None:
    """The union of cover terms when the scenario has disjunctions over several suits, the
    proposals that `left` deals expect from the best superset so far (`best`: its count
    weighed by its proposals' cost, in core proposals) exceed the union's own (at
    `COLUMN_PROPOSAL_COST`, `UNION_OVERLAP` a deal) by its tables' cost
    (`UNION_PROPOSALS_PER_CLASS` a class), and its sum of term counts at that cost is below
    `best`."""
    from .union_draw import class_count

    proposals = float(left * best / count)
    own = COLUMN_PROPOSAL_COST * UNION_OVERLAP * left
    # a union has a class at least: below one class's cost, no need to count them
    if proposals - own < UNION_PROPOSALS_PER_CLASS:
        return None
    classes = class_count(compiled, UNION_MAX_CLASSES)
    if not classes or proposals - own < classes * UNION_PROPOSALS_PER_CLASS:
        return None
    union = union_draw(compiled)
    if union is None or union.count * COLUMN_PROPOSAL_COST >= best:
        return None
    return Choice(union, True)  # the 1 / m test is in the draw


@functools.lru_cache(maxsize=DRAWS_CACHE_SIZE)
def placement_draw(bounds: tuple[tuple[int, int], ...]) -> PlacementDraw:
    """The drawing tables of HCP bounds, shared by the scenarios repeating them (only read
    once built)."""
    from .placement_draw import PlacementDraw

    return PlacementDraw(list(bounds))


@functools.lru_cache(maxsize=DRAWS_CACHE_SIZE)
def length_draw(compiled: CompiledScenario) -> LengthDraw:
    """The drawing tables of a scenario's length superset (at most a few MB)."""
    from .length_draw import LengthDraw

    return LengthDraw(compiled)


@functools.lru_cache(maxsize=1)  # up to `column_draw.MAX_DRAW_BYTES` each: one is kept
def column_draw(compiled: CompiledScenario) -> ColumnDraw | None:
    """The drawing tables of a scenario's positive column-products term, or None when
    `deals.drawing.column_draw` does not draw it."""
    from .column_draw import column_draw as build

    return build(compiled)


@functools.lru_cache(maxsize=1)  # a few column draws' tables each: one is kept
def union_draw(compiled: CompiledScenario) -> UnionDraw | None:
    """The drawing tables of a scenario's union of cover terms, or None when
    `deals.drawing.union_draw` does not draw it."""
    from .union_draw import union_draw as build

    return build(compiled, UNION_MAX_CLASSES)


def positive_term(compiled: CompiledScenario) -> CompiledScenario:
    """The scenario without its disjunctions over several suits
    (`column_products.over_several_suits`): what `deals.drawing.column_draw` draws from."""
    from ..counting.column_products import over_several_suits

    def kept(rule):
        return replace(rule, wildcard=None) if over_several_suits(rule) else rule

    parts = tuple(
        replace(p, rules=tuple(kept(r) for r in p.rules), fits=tuple(f for f in p.fits if not over_several_suits(f)))
        for p in compiled.parts
    )
    return replace(compiled, seat_rules=tuple(kept(r) for r in compiled.seat_rules), parts=parts)
