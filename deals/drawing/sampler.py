"""Uniform sampling of the deals that satisfy a scenario, and the scenario's probability.

A sampler counts the scenario once (`deals.counting.scenario`), then for each call chooses
what proposes the deals (`deals.drawing.proposers`: the core, or a rarer superset drawn
exactly), draws proposals in batches and checks each against the rules the proposer does not
guarantee, throwing a failing deal away whole. Every proposer draws uniformly over a superset
S' of the scenario S, so a uniform draw on S' kept when it lands in S is uniform on S: the
accepted deals are exactly uniform, and independent.

The probability is exact when the counts cover the scenario; past every counting budget it is
estimated: P(S') (exact) times the acceptance rate, with a 95% Wilson interval, from at least
`MIN_ESTIMATE_DRAWS` draws of a generator seeded by the rules alone (`rules_rng`), so every
page repeating the rules gets the same estimate. A scenario with no deal found in
`PROVE_AFTER_DRAWS` draws has its remaining partnerships counted (an empty one proves it
unsatisfiable); after `MAX_EMPTY_DRAWS` without a deal it raises `TooRare` with an upper bound,
never a hang nor a silent shortfall.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from bridgeshape_mirror.dsl.model import Scenario

from ..counting.partnership import PAIR_MODELS, PairModel
from ..counting.scenario import ScenarioCounts, count_scenario
from ..counting.tables import ALL_DEALS
from ..errors import TooRare
from ..probability import Probability, wilson
from ..rules.compiled import CompiledScenario, PartRules, compile_scenario
from .hands import part_ok
from . import proposers
from .proposers import Choice, CoreProposer, Proposer, rarer_superset, worth_trying
from .rng import Rng, make_rng

BATCH = 16384
#: The first batch of proposals, doubled at each batch up to `BATCH`: what is drawn never
#: depends on the count asked, so the first k deals of a longer run are the deals of k
#: (SEMANTICS 3: asking for more deals adds deals, it does not reshuffle them).
FIRST_BATCH = 256
MIN_ESTIMATE_DRAWS = 20_000
MAX_EMPTY_DRAWS = 2_000_000
PROVE_AFTER_DRAWS = 100_000


class ScenarioSampler:
    """Counts a scenario once, then deals from it as often as asked."""

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.counts: ScenarioCounts = count_scenario(compile_scenario(scenario))
        self.proposer: Proposer = CoreProposer(self.counts.core)
        #: the proposer's deals are the scenario's: nothing to check
        self.proposes_scenario = False
        #: has a rarer superset been looked for (done once; only exact scenarios of both partnerships look)
        self.supersets_tried = not self.counts.has_supersets
        #: proposals drawn and accepted by the current proposer
        self.drawn = 0
        self.accepted = 0
        #: proposals made by every proposer, and batches drawn: what the next batch's size and
        #: the look for a superset go by
        self.proposals = 0
        self._batches = 0
        self._looks = 0

    @property
    def compiled(self) -> CompiledScenario:
        return self.counts.compiled

    @property
    def parts(self) -> tuple[PartRules, ...]:
        return self.counts.parts

    @property
    def core(self) -> PairModel | None:
        return self.counts.core

    @property
    def checked(self) -> tuple[PartRules, ...]:
        return self.counts.checked

    @property
    def probability(self) -> Probability | None:
        return self.counts.probability

    @property
    def exact(self) -> bool:
        return self.probability is not None

    @property
    def exact_draw(self) -> Proposer | None:
        """The superset drawn exactly that proposes the deals, None while the core does."""
        return None if isinstance(self.proposer, CoreProposer) else self.proposer

    def batches(self, count: int, rng: Rng) -> Iterator[np.ndarray]:
        """`count` satisfying deals, uniformly and independently, as `(rows, 52)` arrays: the
        first `count` of the stream of deals this sampler and `rng` give (what is drawn, and
        by which proposer, depends on the proposals made so far, never on `count`)."""
        left = count
        while left > 0:
            self._look_for_superset()
            size = min(self.proposer.batch or BATCH, FIRST_BATCH << min(self._batches, 10))
            self._batches += 1
            owner = self.propose(size, rng)
            self.proposals += owner.shape[0]
            self.drawn += owner.shape[0]
            if self.checked:  # the rows kept by `take` (a third of the time of a boolean index)
                owner = owner.take(np.flatnonzero(self.accept(owner)), axis=0)
            self.accepted += owner.shape[0]
            if self.accepted == 0 and self.drawn >= PROVE_AFTER_DRAWS:
                self._prove_or_give_up()
            if owner.shape[0]:
                owner = owner[:left]
                left -= owner.shape[0]
                yield owner

    def _look_for_superset(self) -> None:
        """At each of `superset_looks()` proposals made, look for a rarer superset to propose
        the deals, as if as many proposals again were to come."""
        looks = superset_looks()
        if self.supersets_tried or self._looks >= len(looks) or self.proposals < looks[self._looks]:
            return
        while self._looks < len(looks) and self.proposals >= looks[self._looks]:
            self._looks += 1
        rate = self.expected_rate()
        self.choose_proposer(max(1, round(self.proposals * rate)), last=self._looks == len(looks))

    def choose_proposer(self, left: int, last: bool = True) -> None:
        """Let a rarer superset propose when `left` deals would pay for its tables; once one
        does, or after the `last` look, none is looked for again."""
        rate = self.expected_rate()
        if self.supersets_tried or not worth_trying(left, rate, self.counts.hcp_only):
            return
        choice: Choice | None = rarer_superset(self.counts, left, rate, self.proposer.count)
        self.supersets_tried = last or choice is not None
        if choice is not None:
            self.proposer, self.proposes_scenario = choice.proposer, choice.is_scenario
            self.drawn = self.accepted = 0  # the rate seen so far was the core's

    def propose(self, n: int, rng: Rng) -> np.ndarray:
        """`n` proposals of the current proposer."""
        return self.proposer.draw(n, rng)

    def accept(self, owner: np.ndarray) -> np.ndarray:
        """Which proposals satisfy the scenario (a boolean per row)."""
        ok = np.ones(owner.shape[0], dtype=bool)
        if self.proposes_scenario:
            return ok
        held = self.core_holds
        for part in self.checked:
            if part is not held:
                ok &= part_ok(owner, part)
        return ok

    @property
    def core_holds(self) -> PartRules | None:
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

    def expected_rate(self) -> float:
        """The share of proposals expected to be accepted."""
        if self.core is None:
            return 1.0
        if self.drawn >= 1000:
            return max(self.accepted, 1) / self.drawn
        if self.probability is not None and self.probability.fraction is not None:
            return max(float(self.probability.fraction / self._superset_probability), 1e-9)
        return 0.05

    @property
    def _superset_probability(self) -> Fraction:
        """The probability of what the proposals are drawn from."""
        return Fraction(self.proposer.count, ALL_DEALS)

    def _prove_or_give_up(self) -> None:
        """No deal found yet: count the partnerships not counted so far (an empty one proves
        the scenario unsatisfiable); past `MAX_EMPTY_DRAWS`, give up with `TooRare`."""
        self.counts = self.counts.proved()
        if self.drawn >= MAX_EMPTY_DRAWS:
            raise TooRare(self.drawn, self._upper_bound())

    def _upper_bound(self) -> float:
        return float(self._superset_probability) * wilson(self.accepted, self.drawn)[1]

    def estimate_probability(self, rng: Rng, min_draws: int = MIN_ESTIMATE_DRAWS) -> Probability:
        """The exact probability, or (both partnerships constrained) an estimate: from the
        draws made so far when there are at least `min_draws` of them (a long CLI run),
        otherwise from exactly `min_draws` draws of the scenario's own generator (see
        `_rules_estimate`; `rng` is then left alone). Never raises: with no deal accepted
        the estimate is 0 with its upper bound."""
        if self.probability is not None:
            return self.probability
        assert self.core is not None
        if self.drawn >= min_draws:
            accepted, drawn = self.accepted, self.drawn
        else:
            accepted, drawn = self._rules_estimate(min_draws), min_draws
        base = float(self.core.superset_probability)
        low, high = wilson(accepted, drawn)
        upper = min([float(m.probability) for m in self.counts.models] + [base])
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
                owner = self.propose(min(BATCH, draws - drawn), rng)
                drawn += owner.shape[0]
                accepted += int(self.accept(owner).sum())
            cache.put_int("estimate", key, accepted)
        _ESTIMATES[key] = accepted
        return accepted


_ESTIMATES: dict = {}  # (compiled scenario, draws) -> accepted draws


def superset_looks() -> tuple[int, ...]:
    """The proposals made at which a rarer superset is looked for while the core proposes:
    the history says when a superset's tables would pay for themselves, not the count asked
    (the thresholds `deals.drawing.proposers` weighs them by)."""
    columns = proposers.COLUMN_DRAW_FROM
    return (proposers.EXACT_DRAW_FROM, columns, 4 * columns, 16 * columns)


def rules_rng(compiled: CompiledScenario) -> Rng:
    """A generator seeded by the compiled scenario only (a SHA-256 of its repr, which is
    made of tuples, ints and enums, so the same on every run and machine)."""
    import hashlib

    digest = hashlib.sha256(f"estimate|{compiled!r}".encode()).digest()
    return make_rng(_RULES_TAG, *(int.from_bytes(digest[i : i + 4], "big") for i in range(0, 16, 4)))


_RULES_TAG = 0x72756C65  # "rule"
