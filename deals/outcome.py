"""A scenario's outcome: its deals and probability, or why it has none.

`deal_outcome` is the one place that deals a scenario and turns the deal errors into an
outcome; the mirror (its JSON, PBN and pages, and the state file) and the `deals` command's
formats all read the `ScenarioDeals` it returns. Its JSON, one entry of `scenarios` in
`api/deals/<pageId>.json` and in the command's output:

    {"index": 1, "label": "...", "deals": [{"pbn": "N:..."}, ...],
     "probability": 0.00037, "probability_exact": true, "probability_fraction": "p/q"}

An estimate has `"probability_exact": false` and `"probability_ci95": [low, high]` instead of
the fraction. A scenario proved empty has no deals, `"probability": 0`,
`"probability_exact": true` and `"unsatisfiable": "<why>"`; one too rare to deal and not
proved empty (`deals.errors.TooRare`) has no deals, `"probability": 0`,
`"probability_exact": false`, `"probability_ci95": [0, <95% upper bound>]` and
`"too_rare": "<why>"`. One the build could not count or deal (an internal error, reported in
its log; `failed_outcome`) has no deals, `"probability": 0`, `"probability_exact": false`,
`"probability_ci95": [0, 1]`, `"failed": "<why>"` and `"error": "<the exception's class>"`.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .boards.board import BoardDeal, page_boards
from .probability import Probability
from .rules.reasons import INTERNAL_ERROR, Reason

if TYPE_CHECKING:
    import numpy as np

    from bridgeshape_mirror.dsl.model import Scenario

    from .drawing.rng import Rng

#: The probability of a scenario proved empty. The integer zeros are what the published
#: JSON has always said (`0`, not `0.0`).
PROVED_EMPTY = Probability(0, Fraction(0), 0, 0)


@dataclass(frozen=True)
class ClassShare:
    """One class of a levelled set (`deals.levels`): its probability among all deals, its
    share of the scenario's deals (a Fraction when both are exact), the boards it got, and
    why it has none when it has none."""

    name: str
    probability: Probability
    natural_share: Fraction | float
    boards: int
    empty: Reason | None = None

    def to_json(self) -> dict[str, Any]:
        p = self.probability
        out: dict[str, Any] = {"class": self.name, "probability": p.value, "probability_exact": p.exact}
        if p.fraction is not None:
            out["probability_fraction"] = f"{p.fraction.numerator}/{p.fraction.denominator}"
        else:
            out["probability_ci95"] = [p.low, p.high]
        out["natural_share"] = float(self.natural_share)
        if isinstance(self.natural_share, Fraction):
            out["natural_share_fraction"] = f"{self.natural_share.numerator}/{self.natural_share.denominator}"
        out["boards"] = self.boards
        if self.empty is not None:
            out["unsatisfiable"] = self.empty.english()
        return out

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ClassShare:
        if "natural_share_fraction" in doc:
            share: Fraction | float = Fraction(doc["natural_share_fraction"])
        else:
            share = doc["natural_share"]
        empty = Reason.read(doc["unsatisfiable"]) if "unsatisfiable" in doc else None
        return cls(doc["class"], _probability_of(doc), share, doc["boards"], empty)


@dataclass(frozen=True)
class Levels:
    """What a levelled set says about itself: the measure and each class."""

    by: str
    classes: tuple[ClassShare, ...]

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "classes": [c.to_json() for c in self.classes]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Levels:
        return cls(doc["by"], tuple(ClassShare.from_json(c) for c in doc["classes"]))


@dataclass(frozen=True)
class ScenarioDeals:
    """Scenario `index` (from 1, like the DSL's scenario numbers): its deals, as PBN deal
    strings with the opener North, and its probability; or no deals and the reason why,
    `unsatisfiable` (proved), `too_rare` (not proved, and none found) or `failed` (this
    program's fault: `error` names the exception's class), as data (`deals.rules.reasons`: the
    JSON says its English, the site says it in its language)."""

    index: int
    label: str
    deals: tuple[str, ...]
    probability: Probability
    unsatisfiable: Reason | None = None
    too_rare: Reason | None = None
    failed: Reason | None = None
    error: str | None = None
    #: a levelled set (`deals.levels`): its classes, and each deal's class
    levels: Levels | None = None
    deal_classes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # A reason given as its English text (the JSON's) is read back into its data.
        for name in ("unsatisfiable", "too_rare", "failed"):
            if isinstance(getattr(self, name), str):
                object.__setattr__(self, name, Reason.read(getattr(self, name)))
        reasons = [r for r in (self.unsatisfiable, self.too_rare, self.failed) if r is not None]
        if reasons and self.deals:
            raise ValueError("an unsatisfiable, too rare or failed scenario has no deals")
        if len(reasons) > 1:
            raise ValueError("a scenario is unsatisfiable, too rare or failed: one of them")
        if (self.failed is None) != (self.error is None):
            raise ValueError("a failed scenario names its error, and only a failed one")
        if self.deal_classes and len(self.deal_classes) != len(self.deals):
            raise ValueError("a levelled set names the class of every deal")

    @property
    def no_deals_reason(self) -> Reason | None:
        return self.unsatisfiable or self.too_rare or self.failed

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "label": self.label,
            "deals": [{"pbn": pbn, "class": c} for pbn, c in zip(self.deals, self.deal_classes)]
            if self.deal_classes
            else [{"pbn": pbn} for pbn in self.deals],
            **self.summary_json(),
        }

    def summary_json(self) -> dict[str, Any]:
        """The fields after the deals: the probability, and why there are no deals. (The
        `deals` command writes its deals as they are drawn, then these.)"""
        p = self.probability
        out: dict[str, Any] = {"probability": p.value, "probability_exact": p.exact}
        if self.unsatisfiable is not None:
            out["unsatisfiable"] = self.unsatisfiable.english()
            return out
        if self.failed is not None:
            out["probability_ci95"] = [p.low, p.high]
            out["failed"] = self.failed.english()
            out["error"] = self.error
            return out
        if p.fraction is not None:
            out["probability_fraction"] = f"{p.fraction.numerator}/{p.fraction.denominator}"
        else:
            out["probability_ci95"] = [p.low, p.high]
        if self.too_rare is not None:
            out["too_rare"] = self.too_rare.english()
        if self.levels is not None:
            out["levels"] = self.levels.to_json()
        return out

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> ScenarioDeals:
        """The outcome `to_json` gave `doc` (as read back from the state file)."""
        deals = tuple(d["pbn"] for d in doc["deals"])
        if "unsatisfiable" in doc:
            return cls(doc["index"], doc["label"], deals, PROVED_EMPTY, unsatisfiable=doc["unsatisfiable"])
        if "failed" in doc:
            return failed_outcome(doc["index"], doc["label"], doc["error"])
        levels = Levels.from_json(doc["levels"]) if "levels" in doc else None
        classes = tuple(d["class"] for d in doc["deals"]) if levels is not None else ()
        return cls(doc["index"], doc["label"], deals, _probability_of(doc), too_rare=doc.get("too_rare"), levels=levels, deal_classes=classes)


def _probability_of(doc: dict[str, Any]) -> Probability:
    """The probability a document (a scenario's or a class's) says: its fraction, or its estimate."""
    if "probability_fraction" in doc:
        return Probability.of(Fraction(doc["probability_fraction"]))
    low, high = doc["probability_ci95"]
    return Probability(doc["probability"], None, low, high)


#: What a scenario that could not be dealt says of its probability: nothing (0, and 0 to 1).
UNKNOWN = Probability(0, None, 0, 1)


def failed_outcome(index: int, label: str, error: str) -> ScenarioDeals:
    """Scenario `index` when counting or dealing it raised `error` (an exception's class name):
    no deals, nothing known of its probability. Never kept in the state file, so the next
    run tries it again."""
    return ScenarioDeals(index, label, (), UNKNOWN, failed=Reason(INTERNAL_ERROR), error=error)


def outcome_boards(outcomes: Iterable[ScenarioDeals]) -> tuple[BoardDeal, ...]:
    """The boards of a page (or of one `deals` run) whose scenarios had these outcomes."""
    return page_boards((o.index, o.label, o.deals) for o in outcomes)


def deals_with_boards(outcomes: Sequence[ScenarioDeals]) -> list[dict[str, Any]]:
    """The outcomes' JSON (`ScenarioDeals.to_json`), each deal with its board's fields."""
    boards = {(b.scenario, b.deal_index): b for b in outcome_boards(outcomes)}
    out = []
    for outcome in outcomes:
        doc = outcome.to_json()
        doc["deals"] = [{"pbn": pbn, **boards[outcome.index, i].json_fields()} for i, pbn in enumerate(outcome.deals)]
        for deal, name in zip(doc["deals"], outcome.deal_classes):  # a levelled set's, as the deals command writes them
            deal["class"] = name
        out.append(doc)
    return out


def deal_outcome(scenario: Scenario, index: int, count: int, rng: Rng) -> ScenarioDeals:
    """`count` deals of `scenario` (its number `index`) drawn with `rng`, and its probability;
    an unsatisfiable or too rare scenario gets its reason instead."""
    from .boards.pbn import format_many

    deals: list[str] = []
    batches = dealing(scenario, index, count, rng)
    while True:
        try:
            deals.extend(format_many(next(batches)))
        except StopIteration as done:
            return replace(done.value, deals=tuple(deals))


def dealing(scenario: Scenario, index: int, count: int, rng: Rng) -> Generator[np.ndarray, None, ScenarioDeals]:
    """`deal_outcome` a batch at a time: yields the deals as drawn, `(rows, 52)` seat-of-card
    arrays, and returns the outcome, which holds none of them (so the `deals` command writes
    100 M deals with one batch of each scenario in memory). The sampler raises only before
    its first batch: a scenario that yields a batch gives all `count` deals."""
    from .errors import TooRare, Unsatisfiable
    from .drawing.sampler import ScenarioSampler

    try:
        sampler = ScenarioSampler(scenario)
        yield from sampler.batches(count, rng)
        # After the deals: an estimate may use the draws made for them.
        probability = sampler.estimate_probability(rng)
    except Unsatisfiable as exc:
        return ScenarioDeals(index, scenario.label, (), PROVED_EMPTY, unsatisfiable=exc.reason)
    except TooRare as exc:
        return ScenarioDeals(index, scenario.label, (), Probability(0, None, 0, exc.upper_bound), too_rare=exc.reason)
    # The number of draws behind an estimate is not published; without it, the outcome read
    # back from its JSON equals this one.
    return ScenarioDeals(index, scenario.label, (), replace(probability, draws=0))
