"""Uniform sampling of the deals that satisfy a scenario, and the scenario's probability.

Method
------
A scenario's constraints split by partnership: the rules of opener and responder plus the
declarer fits, and the rules of opp1 and opp2 plus the defence fits. A partnership is
counted exactly by `deals.counting.partnership.PairModel` (pairs of length vectors, per-suit HCP tables,
a meet-in-the-middle 2-D convolution, inclusion-exclusion for a wildcard's HCP); one seat
alone (no fit) is counted as single hands ("rest mode").

Sampling draws a *core* exactly from its counts (`deals.drawing.part_sampler`: lengths, HCP per
suit, honours, spots, every step an exact integer-weighted draw), then deals every card not
yet placed uniformly at random to the seats that hold nothing yet. That makes each deal of
the core's superset S' equally likely, where S' is "the core satisfies its rules, leaving
out the HCP part of wildcards". Then the whole deal is checked against the whole scenario; a
deal that fails is thrown away and a fresh deal is drawn from scratch (never keeping any
hand). A uniform draw on S' conditioned on landing in S is uniform on S, so accepted deals
are exactly uniform.

- One partnership constrained (the Splinter, Stayman and preempt examples): the core is that
  partnership, the probability is exact, `count / (C(52,13) C(39,13))` (or `/ C(52,13)` in
  rest mode), a Fraction; rejection happens only for wildcard HCP, at a rate the counts give.
- Both partnerships constrained (the take-out double and overcall examples): every
  constrained seat is counted alone, and a partnership as a whole when that is cheap (one
  seat and fits, or at most `SMALL_PARTNERSHIP` pairs of length vectors); the core is the
  candidate with the smallest exact probability (fewest rejections), the rest is checked by
  rejection. The probability is exact: by `deals.counting.crossing` when at most two seats have HCP
  rules (the overcall examples), by `deals.counting.honour_placements` when the rules are HCP
  totals only (any number of seats, no length rule: in hundredths of a second), by
  `deals.counting.column_products` when the length rules are per suit or shapes (ranges, wildcard
  lengths, fits, shape classes: the take-out doubles and the sample's Cue-bid and Contro
  sputnik scenarios, three seats with HCP rules, in about a second), else by
  `deals.counting.length_matrices`, which counts any scenario through its 4x4 length matrices
  (wildcards with HCP); all are
  cached on disk by `deals.counting.cache`. Only a scenario past both budgets (say, four seats
  with HCP rules and length rules) is *estimated*: P(S') (exact)
  times the acceptance rate, with a 95% Wilson interval, on at least `MIN_ESTIMATE_DRAWS`
  draws: the caller's own draws when it made that many, else exactly `MIN_ESTIMATE_DRAWS`
  draws from a generator seeded by the compiled scenario (`rules_rng`), so every page repeating the rules gets the same estimate,
  computed once per process and remembered on disk.

Drawing from the exact counts (both partnerships constrained, probability exact). Two more
supersets of the scenario tie all four seats together and are drawn exactly, with no
rejection of their own:
- the deals where every seat's HCP total is in range, all other rules dropped, drawn from
  the honour-placement count (`deals.drawing.placement_draw`). When the scenario's rules are HCP
  totals only (`deals.counting.honour_placements.hcp_only`) it is the scenario itself: nothing is
  checked or rejected, and a scenario of probability 1e-10 deals as fast as a common one;
- the deals whose every suit's lengths pass the per-suit length rules (suit ranges, fits
  and wildcards in one suit; HCP, shapes and disjunctions over several suits dropped),
  drawn from the column products' sum with one HCP cell (`deals.drawing.length_draw`).
The rarest of the core and these proposes the deals, and the whole scenario is checked as
above (a scenario rare by its HCP, `opener hcp:27+ S:4+; opp1 hcp:11+ H:5+; responder
hcp:0-1`, then rejects 91% instead of 99.9%; one rare by its lengths, `opener S:8+ hcp:10+;
opp1 H:8+ hcp:8+`, 62% instead of 99.7%). The rule: a call to `batches` that expects at least
`EXACT_DRAW_FROM` proposals by rejection (deals asked / the current core's exact acceptance
rate), for a scenario of HCP totals only or one whose core accepts less than
`PLACEMENTS_BELOW_RATE` of its proposals, builds these tables (0.05-0.1 s each for
realistic rules, the cost of a few thousand proposals; placements up to 0.6 s for loose
HCP bounds, which is why a core that rejects little is left alone; kept for
`DRAWS_CACHE_SIZE` scenarios) and keeps the rarest. A smaller call (the mirror's ten deals
of a common scenario) keeps the core, which is cheaper there. A third superset covers a
scenario rare by its HCP and its lengths at once (each of those two alone far larger): the
column products' positive term with its HCP cells (`deals.drawing.column_draw`: every rule but the
disjunctions over several suits, so that only those reject; none when there are none). Its
tables cost 0.2-0.5 s and a proposal about `COLUMN_PROPOSAL_COST` of the core's, so a call
expecting at least `COLUMN_DRAW_FROM` proposals by rejection builds it (whatever the core's
rate: benchmark C's 100,000 deals take it), and keeps it when its count times that cost is
below the best (a positive term of HCP totals only, benchmark E's, is counted first by the
honour placements, so that its tables are not built in vain; one such table is kept, up to
`column_draw.MAX_DRAW_BYTES`). A fourth covers a scenario rare by its disjunctions over
several suits: the union of the terms that pin each to one suit (`deals.drawing.union_draw`: exactly
the scenario, each deal kept with probability 1 / the terms holding it), built when the
deals asked would pay for `UNION_PROPOSALS_PER_CLASS` proposals a class of its tables plus
its own, and kept when its sum of term counts times `COLUMN_PROPOSAL_COST` is below the
best (benchmark E, whose core accepts 30%, keeps the core). Estimated scenarios keep their
core (the estimate is a rate of that core's proposals).

Unsatisfiable scenarios are proved by counting before any draw: a seat, or a partnership,
whose count is 0, or totals over the four seats that exceed the deck (HCP, cards of a suit,
HCP of a suit, a fit's cards). A scenario with both partnerships constrained can be empty in
subtler ways: if no deal is accepted in `PROVE_AFTER_DRAWS` draws, the partnerships not yet
counted are counted (a 0 proves it empty); after `MAX_EMPTY_DRAWS` draws without a single
satisfying deal, the sampler raises `TooRare` with the resulting upper bound instead of
looping forever (see the report: not a proof, but never a hang nor a silent shortfall).

Deals are produced in batches (numpy, `(rows, 52)` seat-of-card int8 arrays), in order, so a
caller can stream 100,000 deals in bounded memory.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from bridgeshape_mirror.dsl.model import Scenario

from ..counting.cache import Bounded
from ..counting.partnership import PAIR_MODELS, PairModel, length_pairs
from ..errors import TooRare, Unsatisfiable
from ..counting.feasibility import joint_contradiction, why_empty
from ..counting.honour_placements import hcp_only, placement_count
from .part_sampler import draw_part
from ..probability import Probability, wilson
from ..rules.reasons import BOTH_PARTNERSHIPS, Reason
from .hands import deal_out_rest, part_ok
from .rng import Rng, make_rng
from ..rules.compiled import FREE, CompiledScenario, PartRules, compile_scenario
from ..counting.symmetry import canonical_part
from ..counting.tables import ALL_DEALS

BATCH = 16384
MIN_ESTIMATE_DRAWS = 20_000
MAX_EMPTY_DRAWS = 2_000_000
PROVE_AFTER_DRAWS = 100_000
SMALL_PARTNERSHIP = 40_000
#: Expected proposals by rejection from which drawing from the exact counts is cheaper:
#: building the tables costs about as much as 1,000-5,000 proposals (see the docstring).
EXACT_DRAW_FROM = 4096
#: ... and, unless the scenario is HCP totals only, a core accepting less than this.
PLACEMENTS_BELOW_RATE = 0.05
#: Expected proposals by rejection from which the column products' positive term is built
#: too (`deals.drawing.column_draw`: 0.2-0.5 s, the cost of some 30,000-50,000 core proposals) ...
COLUMN_DRAW_FROM = 40_000
#: ... and kept when its count times this (its proposals cost about that many of the core's,
#: measured on benchmark C) is below the best superset's.
COLUMN_PROPOSAL_COST = 3
#: The union of cover terms (`deals.drawing.union_draw`, disjunctions over several suits pinned to
#: one suit each) is built when the proposals expected from the best superset so far exceed
#: its own (column-drawn, this many a deal: its terms overlap little; benchmark E's 1.2) ...
UNION_OVERLAP = 1.25
#: ... by this many core proposals per class of its terms (a class's tables cost about as
#: much: 0.2-0.5 s) ...
UNION_PROPOSALS_PER_CLASS = 50_000
#: ... and has at most this many classes (benchmark E's 48 terms are 3).
UNION_MAX_CLASSES = 8
#: Superset tables kept for reuse, of each kind (placements weigh up to 25 MB, most under 2).
DRAWS_CACHE_SIZE = 2

if TYPE_CHECKING:  # the drawing tables' modules load only when a scenario needs them
    from .column_draw import ColumnDraw
    from .length_draw import LengthDraw
    from .placement_draw import PlacementDraw
    from .union_draw import UnionDraw




#: The models kept for reuse: at most this many, holding at most this many bytes together.
#: A model keeps its counts, not its HCP tables (`deals.drawing.part_sampler` rebuilds the few a
#: small draw needs), so most weigh well under 5 MB; one that built its full draw tables
#: for a long run can weigh tens of MB, and the byte budget pushes the oldest out.
MODEL_CACHE_SIZE = 256
MODEL_CACHE_BYTES = 160 * 2**20
_MODELS: Bounded[PartRules, PairModel] = Bounded(lambda model: model.nbytes)
#: Per renaming class of rules (`deals.counting.symmetry.canonical_part`), the last rules of it
#: modelled and their renaming: a model of theirs may be renamed rather than counted again.
_RENAMED: dict[PartRules, tuple[PartRules, tuple[int, ...]]] = {}


def pair_model(part: PartRules) -> PairModel:
    """The exact model of a partnership's rules, shared by every scenario with the same rules.

    Counting is most of the cost of a new scenario, and a wiki repeats hand types across
    pages (the same opening, the same splinter response). A model is only read after it
    is built (its lazily built draw tables depend on the model alone), so sharing is safe.
    Least recently used models are dropped past `MODEL_CACHE_SIZE` or `MODEL_CACHE_BYTES`.
    """
    model = _MODELS.get(part)
    if model is not None:
        return model
    # The same rules over other suits (an opening of 1H beside one of 1S): the counts of one
    # renamed (`PairModel`'s `renaming`), not counted again.
    key, order = canonical_part(part)
    seen = _RENAMED.get(key)
    source = _MODELS.get(seen[0]) if seen is not None else None
    if source is None:
        model = PairModel(part)
    else:
        suit_of = [0] * 4
        for j, k in enumerate(order):
            suit_of[k] = seen[1][j]
        model = PairModel(part, renaming=(source, tuple(suit_of)))
    _RENAMED[key] = (part, order)
    if len(_RENAMED) > 4 * MODEL_CACHE_SIZE:
        _RENAMED.pop(next(iter(_RENAMED)))
    return _MODELS.put(part, model, MODEL_CACHE_SIZE, MODEL_CACHE_BYTES)


class ScenarioSampler:
    """Counts a scenario once, then deals from it as often as asked."""

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.compiled: CompiledScenario = compile_scenario(scenario)
        parts = self.compiled.constrained_parts
        self.parts = parts
        self.models: list[PairModel] = []  # exact models of whole partnerships
        self._unproven: list[PartRules] = []  # partnerships not counted yet (both constrained)
        self.core: PairModel | None = None
        self.checked: tuple[PartRules, ...] = ()
        self._accepted = 0
        self._drawn = 0
        self.probability: Probability | None = None
        #: A superset drawn exactly (`deals.drawing.placement_draw`, `deals.drawing.length_draw`,
        #: `deals.drawing.column_draw`, `deals.drawing.union_draw`), once `batches` has found it rarer than
        #: the core's; it then proposes every deal, `BATCH` at a time unless it says its own
        #: `batch` (a union: about `BATCH` for the class it draws most).
        self.exact_draw: PlacementDraw | LengthDraw | ColumnDraw | UnionDraw | None = None
        self._supersets_tried = True  # only exact scenarios of both partnerships try it
        self._hcp_only = False
        self._draws_scenario = False  # the exact draw is the scenario itself: nothing to check
        if len(parts) <= 1:
            self.models = [pair_model(p) for p in parts]
            for part, model in zip(parts, self.models):
                if model.count == 0:
                    raise Unsatisfiable(why_empty(part))
            # A field the models do not handle: they are a superset, their deals checked by the
            # rules, and the probability is estimated.
            modelled = PAIR_MODELS.takes(self.compiled)
            if modelled:
                self.probability = Probability.of(self.models[0].probability if self.models else Fraction(1))
            if self.models:
                self.core = self.models[0]
                if any(r.hcp_wildcard for r in self.core.rules) or not modelled:
                    self.checked = (self.core.part,)
            return
        # Both partnerships constrained. Count every constrained seat alone (cheap), and whole
        # partnerships when that is cheap; the probability is exact when `deals.counting.crossing`
        # covers the scenario, estimated otherwise.
        candidates = []
        for part in parts:
            for seat, rule in zip(part.seats, part.rules):
                if rule.is_free:
                    continue
                alone = pair_model(PartRules((seat, _partner(seat)), (rule, FREE)))
                if alone.count == 0:
                    raise Unsatisfiable(why_empty(PartRules((seat, _partner(seat)), (rule, FREE))))
                candidates.append(alone)
        reason = joint_contradiction(self.compiled)
        if reason:
            raise Unsatisfiable(reason)
        for part in parts:
            if sum(not r.is_free for r in part.rules) == 1 and not part.fits:
                continue  # the same as its seat alone, counted above
            if any(r.is_free for r in part.rules) or length_pairs(part) <= SMALL_PARTNERSHIP:
                model = pair_model(part)
                if model.count == 0:
                    raise Unsatisfiable(why_empty(part))
                self.models.append(model)
                candidates.append(model)
            else:
                self._unproven.append(part)
        # The core is the rarest exactly drawable superset: the fewest deals to reject.
        self.core = min(candidates, key=lambda m: m.superset_probability)
        self.checked = parts
        # Exact after all unless the scenario is past the counting budget (`exact_cross_count`).
        count = exact_cross_count(self.compiled)
        if count == 0:
            raise Unsatisfiable(Reason(BOTH_PARTNERSHIPS))
        if count is not None:
            self.probability = Probability.of(Fraction(count, ALL_DEALS))
            self._unproven = []
            self._supersets_tried = False
            self._hcp_only = hcp_only(self.compiled)

    @property
    def exact(self) -> bool:
        return self.probability is not None

    def _proposals(self, n: int, rng: Rng) -> np.ndarray:
        if self.exact_draw is not None:
            return self.exact_draw.draw(n, rng)
        if self.core is None:
            owner = np.full((n, 52), -1, dtype=np.int8)
        else:
            owner = draw_part(self.core, n, rng)
        return deal_out_rest(owner, rng)

    def _accept(self, owner: np.ndarray) -> np.ndarray:
        ok = np.ones(owner.shape[0], dtype=bool)
        if self._draws_scenario:
            return ok  # the placements are the scenario itself
        held = self._core_holds
        for part in self.checked:
            if part is not held:
                ok &= part_ok(owner, part)
        return ok

    @property
    def _core_holds(self) -> PartRules | None:
        """The partnership whose rules every proposal satisfies by construction, so that
        checking it again would reject nothing: the core's own, when it is a whole
        partnership of the scenario drawn by its model (no wildcard HCP, which the model leaves
        out) and no exact superset has replaced it."""
        core = self.core
        if self.exact_draw is not None or core is None or any(r.hcp_wildcard for r in core.rules):
            return None
        if not PAIR_MODELS.takes(self.compiled):
            return None
        return next((p for p in self.checked if p == core.part), None)

    def _expected_rate(self) -> float:
        if self.core is None:
            return 1.0
        if self._drawn >= 1000:
            return max(self._accepted, 1) / self._drawn
        if self.probability is not None and self.probability.fraction is not None:
            return max(float(self.probability.fraction / self._superset_probability), 1e-9)
        return 0.05

    @property
    def _superset_probability(self) -> Fraction:
        """The probability of what the proposals are drawn from."""
        if self.exact_draw is not None:
            return Fraction(self.exact_draw.count, ALL_DEALS)
        assert self.core is not None
        return self.core.superset_probability

    def _try_exact_supersets(self, left: int) -> None:
        """Take the rarest of the HCP-totals and the length superset as the core when `left`
        deals would cost at least `EXACT_DRAW_FROM` proposals and it is rarer than the core's
        (see the docstring)."""
        rate = self._expected_rate()
        if self._supersets_tried or left / rate < EXACT_DRAW_FROM:
            return
        columns_pay = not self._hcp_only and left / rate >= COLUMN_DRAW_FROM
        if not self._hcp_only and rate >= PLACEMENTS_BELOW_RATE and not columns_pay:
            return
        self._supersets_tried = True
        best = self._superset_probability * ALL_DEALS  # a count, to beat
        if self._hcp_only or rate < PLACEMENTS_BELOW_RATE:
            lengths = None if self._hcp_only else length_draw(self.compiled)
            if lengths is not None and lengths.count < best:
                self.exact_draw, best = lengths, lengths.count
            from .placement_draw import scenario_bounds

            bounds = tuple(scenario_bounds(self.compiled))
            # The placements' count first: their tables (up to 25 MB for loose bounds) only if kept.
            placements = placement_count(list(bounds)) if any(b != (FREE.hcp_lo, FREE.hcp_hi) for b in bounds) else best
            if placements < best:
                self.exact_draw, best = placement_draw(bounds), placements
                self._draws_scenario = self._hcp_only
        # the union first: its terms are inside the positive term, and rarely overlap
        union = columns_pay and self._try_union(left, best)
        # when the positive term is HCP totals only (benchmark E), its count first (in
        # milliseconds, and remembered on disk as the scenarios' are: a run that keeps the
        # core reads it), and its tables only if they would be kept; else the tables count it
        positive = positive_term(self.compiled) if columns_pay and not union else None
        if positive is not None and hcp_only(positive):
            count = exact_cross_count(positive)  # by honour placements (`scenario_count`)
            if count is not None and count * COLUMN_PROPOSAL_COST >= best:
                positive = None
        if positive is not None:
            columns = column_draw(self.compiled)
            if columns is not None and columns.count * COLUMN_PROPOSAL_COST < best:
                self.exact_draw, best = columns, columns.count * COLUMN_PROPOSAL_COST
                # no disjunction dropped: the positive term is the scenario, nothing to check
                assert self.probability is not None and self.probability.fraction is not None
                self._draws_scenario = columns.count == self.probability.fraction * ALL_DEALS
        if self.exact_draw is not None:
            self._drawn = self._accepted = 0  # the rate seen so far was the old core's

    def _try_union(self, left: int, best: int) -> bool:
        """Take the union of cover terms (`deals.drawing.union_draw`) when the scenario has
        disjunctions over several suits, the proposals that `left` deals expect from the
        best superset so far (`best`: its count weighed by its proposals' cost, in core
        proposals) exceed the union's own (at `COLUMN_PROPOSAL_COST`, `UNION_OVERLAP` a
        deal) by its tables' cost (`UNION_PROPOSALS_PER_CLASS` a class), and its sum of term
        counts at that cost is below `best`. Returns whether it was taken."""
        from .union_draw import class_count

        assert self.probability is not None and self.probability.fraction is not None
        proposals = float(left * best / (self.probability.fraction * ALL_DEALS))
        own = COLUMN_PROPOSAL_COST * UNION_OVERLAP * left
        # a union has a class at least: below one class's cost, no need to count them
        # (benchmark E at 100,000 deals: its proposals are below its own, 18 ms saved)
        if proposals - own < UNION_PROPOSALS_PER_CLASS:
            return False
        classes = class_count(self.compiled, UNION_MAX_CLASSES)
        if not classes or proposals - own < classes * UNION_PROPOSALS_PER_CLASS:
            return False
        union = union_draw(self.compiled)
        if union is None or union.count * COLUMN_PROPOSAL_COST >= best:
            return False
        self.exact_draw = union
        self._draws_scenario = True  # its deals are the scenario's: the 1 / m test is in the draw
        return True

    def _prove_or_give_up(self) -> None:
        """No deal found yet: count the partnerships not counted so far (an empty one proves
        the scenario unsatisfiable); past `MAX_EMPTY_DRAWS`, give up with `TooRare`."""
        while self._unproven:
            part = self._unproven.pop()
            model = pair_model(part)
            if model.count == 0:
                raise Unsatisfiable(why_empty(part))
            self.models.append(model)
        if self._drawn >= MAX_EMPTY_DRAWS:
            raise TooRare(self._drawn, self._upper_bound())

    def _batch(self) -> int:
        """Proposals asked at a time: `BATCH`, unless the exact draw says its own."""
        own = self.exact_draw.batch if self.exact_draw is not None else None
        return own or BATCH

    def batches(self, count: int, rng: Rng) -> Iterator[np.ndarray]:
        """`count` satisfying deals, uniformly and independently, as `(rows, 52)` arrays."""
        left = count
        self._try_exact_supersets(left)
        while left > 0:
            want = int(left / self._expected_rate() * 1.05) + 64
            owner = self._proposals(min(self._batch(), want), rng)
            self._drawn += owner.shape[0]
            if self.checked:  # the rows kept by `take` (a third of the time of a boolean index)
                owner = owner.take(np.flatnonzero(self._accept(owner)), axis=0)
            self._accepted += owner.shape[0]
            if self._accepted == 0 and self._drawn >= PROVE_AFTER_DRAWS:
                self._prove_or_give_up()
            if owner.shape[0]:
                owner = owner[:left]
                left -= owner.shape[0]
                yield owner

    def _upper_bound(self) -> float:
        return float(self._superset_probability) * wilson(self._accepted, self._drawn)[1]

    def estimate_probability(self, rng: Rng, min_draws: int = MIN_ESTIMATE_DRAWS) -> Probability:
        """The exact probability, or (both partnerships constrained) an estimate: from the
        draws made so far when there are at least `min_draws` of them (a long CLI run),
        otherwise from exactly `min_draws` draws of the scenario's own generator (see
        `_rules_estimate`; `rng` is then left alone). Never raises: with no deal accepted
        the estimate is 0 with its upper bound."""
        if self.probability is not None:
            return self.probability
        assert self.core is not None
        if self._drawn >= min_draws:
            accepted, drawn = self._accepted, self._drawn
        else:
            accepted, drawn = self._rules_estimate(min_draws), min_draws
        base = float(self.core.superset_probability)
        low, high = wilson(accepted, drawn)
        upper = min([float(m.probability) for m in self.models] + [base])
        return Probability(base * accepted / drawn, None, base * low, min(base * high, upper), drawn)

    def _rules_estimate(self, draws: int) -> int:
        """How many of `draws` proposals are accepted, with proposals drawn from a generator
        seeded by the compiled scenario alone (`rules_rng`): the estimate is a property of
        the rules, the same on every page that repeats them, so it is computed once per
        process (and remembered on disk by `deals.counting.cache`), not once per page."""
        from ..counting import cache

        key = (self.compiled, draws)
        accepted = _ESTIMATES.get(key)
        if accepted is None:
            accepted = cache.get_int("estimate", key)
        if accepted is None:
            rng = rules_rng(self.compiled)
            accepted = drawn = 0
            while drawn < draws:
                owner = self._proposals(min(BATCH, draws - drawn), rng)
                drawn += owner.shape[0]
                accepted += int(self._accept(owner).sum())
            cache.put_int("estimate", key, accepted)
        _ESTIMATES[key] = accepted
        return accepted


_ESTIMATES: dict = {}  # (compiled scenario, draws) -> accepted draws


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
    """The drawing tables of a scenario's positive column-products term (up to
    `column_draw.MAX_DRAW_BYTES`), or None when that module does not draw it."""
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
    from dataclasses import replace

    from ..counting.column_products import over_several_suits

    def kept(rule):
        return replace(rule, wildcard=None) if over_several_suits(rule) else rule

    parts = tuple(
        replace(p, rules=tuple(kept(r) for r in p.rules), fits=tuple(f for f in p.fits if not over_several_suits(f)))
        for p in compiled.parts
    )
    return replace(compiled, seat_rules=tuple(kept(r) for r in compiled.seat_rules), parts=parts)


def rules_rng(compiled: CompiledScenario) -> Rng:
    """A generator seeded by the compiled scenario only (a SHA-256 of its repr, which is
    made of tuples, ints and enums, so the same on every run and machine)."""
    import hashlib

    digest = hashlib.sha256(f"estimate|{compiled!r}".encode()).digest()
    return make_rng(_RULES_TAG, *(int.from_bytes(digest[i : i + 4], "big") for i in range(0, 16, 4)))


_RULES_TAG = 0x72756C65  # "rule"


def exact_cross_count(compiled: CompiledScenario) -> int | None:
    """The exact count of a scenario tying both partnerships together: `deals.counting.honour_placements`
    when its rules are HCP totals only, `deals.counting.crossing` when it covers the scenario (fast),
    else `deals.counting.column_products` when its length rules are per suit (ranges, and wildcards
    and fits by inclusion-exclusion) within its budget, else `deals.counting.length_matrices` within
    theirs, else None. Remembered on disk (each can take up to a second or two), under the
    scenario's representative among the renamings of its suits (`deals.counting.symmetry.canonical`:
    the same count), so that the same auction in another suit is read, not counted again."""
    from ..counting import cache
    from ..rules.handled import EVERY_FIELD
    from ..counting.symmetry import canonical

    if compiled.written - EVERY_FIELD:
        # A field newer than the counters: each declines it, and the disk cache, keyed by the
        # rules alone, must not answer for the scenario without it.
        return _counted_afresh(compiled)
    # A -1 means past the budgets of its day: a new kind whenever they grow, so that an old
    # cache's -1 does not keep a scenario estimated that is now counted ("cross", then
    # "cross-columns", then "cross-band" before the column products' budget grew 4x).
    kind = "cross-wider"
    key = canonical(compiled)
    cached = cache.get_int(kind, key)
    if cached is not None:
        return cached if cached >= 0 else None
    count = _counted_afresh(compiled)
    cache.put_int(kind, key, -1 if count is None else count)
    return count


def _counted_afresh(compiled: CompiledScenario) -> int | None:
    # The counting modules only on a miss: importing them costs more than reading the count.
    from ..counting.column_products import column_count
    from ..counting.crossing import cross_count
    from ..counting.honour_placements import scenario_count
    from ..counting.length_matrices import matrix_count

    count = scenario_count(compiled)  # HCP totals only: by honour placements, in milliseconds
    if count is None:
        count = cross_count(compiled)
    if count is None:
        count = column_count(compiled)
    if count is None:
        count = matrix_count(compiled)
    return count


def counting_cost(compiled: CompiledScenario) -> tuple[int, int, int]:
    """How costly counting `compiled` is likely to be, as a sort key (larger: costlier), read
    from its rules alone: both partnerships constrained first (their exact count ties the
    four hands together: `exact_cross_count`, seconds where one partnership takes
    hundredths), then the seats with HCP rules, then the constrained seats. A scheduler's
    guess, never a promise: the costliest jobs go first so that no worker is left with a
    long one at the end while the others wait."""
    parts = compiled.constrained_parts
    rules = [rule for part in parts for rule in part.rules if not rule.is_free]
    hcp = sum(rule.hcp_lo > FREE.hcp_lo or rule.hcp_hi < FREE.hcp_hi for rule in rules)
    return len(parts), hcp, len(rules)


def _partner(seat: int) -> int:
    return (seat + 2) % 4
