"""A whole scenario's exact counts: the partnership models, the core the sampler draws from,
and the exact probability, or the proof that no deal satisfies it.

One partnership constrained: its model is the scenario (`ALL_DEALS`-relative probability
exact, a wildcard's HCP left to a check). Both constrained: every constrained seat is counted
alone, and a partnership as a whole when that is cheap; the rarest of those is the core, and
the scenario's own count ties the four seats together (`exact_cross_count`), or is past every
budget (then the sampler estimates it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from .cache import Bounded
from .feasibility import joint_contradiction, why_empty
from .honour_placements import hcp_only
from .partnership import PAIR_MODELS, PairModel, length_pairs
from .symmetry import canonical, canonical_part
from .tables import ALL_DEALS
from ..errors import Unsatisfiable
from ..probability import Probability
from ..rules.compiled import FREE, CompiledScenario, PartRules
from ..rules.reasons import BOTH_PARTNERSHIPS, Reason

#: A partnership of both seats constrained is counted up front when it has at most this many
#: pairs of length vectors (else only to prove an empty scenario: `ScenarioCounts.proved`).
SMALL_PARTNERSHIP = 40_000

#: The models kept for reuse: at most this many, holding at most this many bytes together.
#: A model keeps its counts, not its HCP tables (`deals.drawing.part_sampler` rebuilds the few a
#: small draw needs), so most weigh well under 5 MB; one that built its full draw tables
#: for a long run can weigh tens of MB, and the byte budget pushes the oldest out.
MODEL_CACHE_SIZE = 256
MODEL_CACHE_BYTES = 160 * 2**20
_MODELS: Bounded[PartRules, PairModel] = Bounded(lambda model: model.nbytes)
#: Per renaming class of rules (`canonical_part`), the last rules of it modelled and their
#: renaming: a model of theirs may be renamed rather than counted again.
_RENAMED: dict[PartRules, tuple[PartRules, tuple[int, ...]]] = {}


def pair_model(part: PartRules) -> PairModel:
    """The exact model of a partnership's rules, shared by every scenario with the same rules
    (a wiki repeats hand types across pages; a model is only read once built). Least recently
    used models are dropped past `MODEL_CACHE_SIZE` or `MODEL_CACHE_BYTES`."""
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


@dataclass(frozen=True)
class ScenarioCounts:
    """What counting a scenario found, before any deal is drawn."""

    compiled: CompiledScenario
    #: exact models of whole partnerships (and, once proved, of those counted late)
    models: tuple[PairModel, ...]
    #: the rarest exactly drawable superset of the scenario, None when no seat is constrained
    core: PairModel | None
    #: the partnerships a proposal is checked against (the core's own too, unless it holds)
    checked: tuple[PartRules, ...]
    #: None when past every counting budget: the sampler estimates it
    probability: Probability | None
    #: partnerships of both seats not counted yet (too large); counted only to prove emptiness
    unproven: tuple[PartRules, ...] = ()
    #: may a rarer superset than the core propose the deals? (exact scenarios of both partnerships)
    has_supersets: bool = False
    #: the rules are HCP totals only (`honour_placements.hcp_only`)
    hcp_only: bool = False

    @property
    def parts(self) -> tuple[PartRules, ...]:
        return self.compiled.constrained_parts

    @property
    def count(self) -> int:
        """The exact number of deals (of an exact scenario)."""
        assert self.probability is not None and self.probability.fraction is not None
        return int(self.probability.fraction * ALL_DEALS)

    def proved(self) -> ScenarioCounts:
        """These counts with the partnerships not counted so far counted: raises
        `Unsatisfiable` at the first empty one."""
        models = list(self.models)
        for part in reversed(self.unproven):
            model = pair_model(part)
            if model.count == 0:
                raise Unsatisfiable(why_empty(part))
            models.append(model)
        return replace(self, models=tuple(models), unproven=())


def count_scenario(compiled: CompiledScenario) -> ScenarioCounts:
    """Count `compiled` (raises `Unsatisfiable` when a count proves it empty)."""
    parts = compiled.constrained_parts
    if len(parts) <= 1:
        models = tuple(pair_model(p) for p in parts)
        for part, model in zip(parts, models):
            if model.count == 0:
                raise Unsatisfiable(why_empty(part))
        # A field the models do not handle: they are a superset, their deals checked by the
        # rules, and the probability is estimated.
        modelled = PAIR_MODELS.takes(compiled)
        probability = Probability.of(models[0].probability if models else Fraction(1)) if modelled else None
        core = models[0] if models else None
        checked = (core.part,) if core is not None and (any(r.hcp_wildcard for r in core.rules) or not modelled) else ()
        return ScenarioCounts(compiled, models, core, checked, probability)
    candidates = []
    for part in parts:
        for seat, rule in zip(part.seats, part.rules):
            if rule.is_free:
                continue
            alone = PartRules((seat, partner(seat)), (rule, FREE))
            model = pair_model(alone)
            if model.count == 0:
                raise Unsatisfiable(why_empty(alone))
            candidates.append(model)
    reason = joint_contradiction(compiled)
    if reason:
        raise Unsatisfiable(reason)
    models, unproven = [], []
    for part in parts:
        if sum(not r.is_free for r in part.rules) == 1 and not part.fits:
            continue  # the same as its seat alone, counted above
        if any(r.is_free for r in part.rules) or length_pairs(part) <= SMALL_PARTNERSHIP:
            model = pair_model(part)
            if model.count == 0:
                raise Unsatisfiable(why_empty(part))
            models.append(model)
            candidates.append(model)
        else:
            unproven.append(part)
    # The core is the rarest exactly drawable superset: the fewest deals to reject.
    core = min(candidates, key=lambda m: m.superset_probability)
    count = exact_cross_count(compiled)
    if count == 0:
        raise Unsatisfiable(Reason(BOTH_PARTNERSHIPS))
    if count is None:
        return ScenarioCounts(compiled, tuple(models), core, parts, None, tuple(unproven))
    probability = Probability.of(Fraction(count, ALL_DEALS))
    return ScenarioCounts(compiled, tuple(models), core, parts, probability, (), True, hcp_only(compiled))


def exact_cross_count(compiled: CompiledScenario) -> int | None:
    """The exact count of a scenario tying both partnerships together: `honour_placements`
    when its rules are HCP totals only, `crossing` when it covers the scenario (fast), else
    `column_products` when its length rules are per suit within its budget, else
    `length_matrices` within theirs, else None. Remembered on disk (each can take a second or
    two), under the scenario's representative among the renamings of its suits
    (`symmetry.canonical`: the same count), so the same auction in another suit is read."""
    from . import cache
    from ..rules.handled import EVERY_FIELD

    if compiled.written - EVERY_FIELD:
        # A field newer than the counters: each declines it, and the disk cache, keyed by the
        # rules alone, must not answer for the scenario without it.
        return _counted_afresh(compiled)
    # A -1 means past the budgets of its day: a new kind whenever they grow, so that an old
    # cache's -1 does not keep a scenario estimated that is now counted.
    kind = "cross-wider"
    key = canonical(compiled)
    cached = cache.get_int(kind, key)
    if cached is not None:
        return cached if cached >= 0 else None
    count = _counted_afresh(compiled)
    cache.put_int(kind, key, -1 if count is None else count)
    return count


def _counted_afresh(compiled: CompiledScenario) -> int | None:
    # Each counting module only when the ones before it decline: importing them costs more
    # than reading the count, and most scenarios are counted by the first two.
    from .honour_placements import scenario_count

    count = scenario_count(compiled)  # HCP totals only: by honour placements, in milliseconds
    if count is None:
        from .crossing import cross_count

        count = cross_count(compiled)
    if count is None:
        from .column_products import column_count

        count = column_count(compiled)
    if count is None:
        from .length_matrices import matrix_count

        count = matrix_count(compiled)
    return count


def counting_cost(compiled: CompiledScenario) -> tuple[int, int, int]:
    """How costly counting `compiled` is likely to be, as a sort key (larger: costlier), read
    from its rules alone: both partnerships constrained first (`exact_cross_count` ties the
    four hands together: seconds where one partnership takes hundredths), then the seats with
    HCP rules, then the constrained seats. A scheduler's guess, never a promise: the costliest
    jobs go first so that no worker is left with a long one at the end."""
    parts = compiled.constrained_parts
    rules = [rule for part in parts for rule in part.rules if not rule.is_free]
    hcp = sum(rule.hcp_lo > FREE.hcp_lo or rule.hcp_hi < FREE.hcp_hi for rule in rules)
    return len(parts), hcp, len(rules)


def partner(seat: int) -> int:
    return (seat + 2) % 4
