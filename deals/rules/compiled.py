"""A scenario compiled to plain integer rules per seat and per partnership.

`SeatRule` holds one position's constraints as inclusive integer bounds (suits 0..3 = S H D C)
and answers, vectorised over many hands at once, "do these lengths pass" (`length_ok`) and
"does this hand pass" (`hand_ok`, from lengths and HCP per suit). `FitRule` is a partnership's
combined length in one of its suits. `compile_scenario` applies SEMANTICS section 3, including
the wildcard's candidate suits; a wildcard with no candidate left raises `Unsatisfiable`.

The rules are the sampler's view of the scenario. `deals.rules.predicate` checks deals against the
`Scenario` itself, written independently, so the two can be compared in tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bridgeshape_mirror.dsl.deck import DECK_HCP, MAX_HAND_HCP, MAX_SUIT_HCP, MAX_SUIT_LENGTH, PAIR_SEATS, ROLE_SEAT, SUIT_INDEX
from bridgeshape_mirror.dsl.model import Pair, Position, Role, Scenario, ShapeClass, SUITS, written_fields

from . import reasons
from ..errors import Unsatisfiable
from .handled import Handles
from .reasons import Reason


@dataclass(frozen=True)
class Wildcard:
    """`x`/`xhcp`: some suit of `candidates` has its length in [x_lo, x_hi] and its HCP in [xh_lo, xh_hi]."""

    candidates: tuple[int, ...]
    x_lo: int = 0
    x_hi: int = MAX_SUIT_LENGTH
    xh_lo: int = 0
    xh_hi: int = MAX_SUIT_HCP

    @property
    def constrains_hcp(self) -> bool:
        return self.xh_lo > 0 or self.xh_hi < MAX_SUIT_HCP


@dataclass(frozen=True)
class SeatRule:
    len_lo: tuple[int, int, int, int] = (0, 0, 0, 0)
    len_hi: tuple[int, int, int, int] = (MAX_SUIT_LENGTH,) * 4
    hcp_lo: int = 0
    hcp_hi: int = DECK_HCP  # as `hcp:12+` compiles; no hand reaches it, so it never binds
    shcp_lo: tuple[int, int, int, int] = (0, 0, 0, 0)
    shcp_hi: tuple[int, int, int, int] = (MAX_SUIT_HCP,) * 4
    wildcard: Wildcard | None = None
    shape: ShapeClass | None = None

    @property
    def is_free(self) -> bool:
        return self == FREE

    @property
    def hcp_wildcard(self) -> bool:
        """A wildcard whose HCP part cannot be decided from lengths alone."""
        return self.wildcard is not None and self.wildcard.constrains_hcp

    @property
    def reads_hcp(self) -> bool:
        """Does any bound of the rule (total, a suit's, a wildcard's) depend on the HCP held?"""
        return (
            self.hcp_lo > 0
            or self.hcp_hi < MAX_HAND_HCP
            or any(lo > 0 for lo in self.shcp_lo)
            or any(hi < MAX_SUIT_HCP for hi in self.shcp_hi)
            or self.hcp_wildcard
        )

    def length_ok(self, lengths: np.ndarray) -> np.ndarray:
        """`(n, 4)` lengths -> which pass every length-only condition (ranges, shape, and the
        wildcard's length: some candidate suit with a length in range)."""
        lengths = np.asarray(lengths)
        ok = np.ones(lengths.shape[0], dtype=bool)
        for s in range(4):
            if self.len_lo[s] > 0 or self.len_hi[s] < MAX_SUIT_LENGTH:
                ok &= (lengths[:, s] >= self.len_lo[s]) & (lengths[:, s] <= self.len_hi[s])
        if self.shape is not None and self.shape is not ShapeClass.ANY:
            ok &= shape_mask(lengths, self.shape)
        if self.wildcard is not None:
            ok &= self.wildcard_lengths(lengths).any(axis=1)
        return ok

    def wildcard_lengths(self, lengths: np.ndarray) -> np.ndarray:
        """`(n, 4)` bool: the candidate suits whose length is in the wildcard's range."""
        w = self.wildcard
        assert w is not None
        q = (lengths >= w.x_lo) & (lengths <= w.x_hi)
        cand = np.zeros(4, dtype=bool)
        cand[list(w.candidates)] = True
        return q & cand[None, :]

    def hand_ok(self, lengths: np.ndarray, suit_hcp: np.ndarray) -> np.ndarray:
        """`(n, 4)` lengths and `(n, 4)` HCP per suit -> which hands pass every condition."""
        ok = self.length_ok(lengths)
        total = suit_hcp.sum(axis=1)
        ok &= (total >= self.hcp_lo) & (total <= self.hcp_hi)
        for s in range(4):
            if self.shcp_lo[s] > 0 or self.shcp_hi[s] < MAX_SUIT_HCP:
                ok &= (suit_hcp[:, s] >= self.shcp_lo[s]) & (suit_hcp[:, s] <= self.shcp_hi[s])
        if self.hcp_wildcard:
            w = self.wildcard
            assert w is not None
            hit = self.wildcard_lengths(lengths) & (suit_hcp >= w.xh_lo) & (suit_hcp <= w.xh_hi)
            ok &= hit.any(axis=1)
        return ok


FREE = SeatRule()


@dataclass(frozen=True)
class FitRule:
    """The partnership's combined length in at least one of `suits` is `min` or more."""

    suits: tuple[int, ...]
    min: int

    def ok(self, combined: np.ndarray) -> np.ndarray:
        """`(n, 4)` combined lengths of the partnership -> bool."""
        return (np.asarray(combined)[:, list(self.suits)] >= self.min).any(axis=1)


@dataclass(frozen=True)
class PartRules:
    """One partnership's share of a scenario: the rules of its two seats and its fits."""

    seats: tuple[int, int]
    rules: tuple[SeatRule, SeatRule]
    fits: tuple[FitRule, ...] = ()

    @property
    def is_free(self) -> bool:
        return all(r.is_free for r in self.rules) and not self.fits


@dataclass(frozen=True)
class CompiledScenario:
    seat_rules: tuple[SeatRule, SeatRule, SeatRule, SeatRule]
    parts: tuple[PartRules, PartRules] = field(default=())  # type: ignore[assignment]
    #: The constraint fields its scenario set (`dsl.model.written_fields`), for the counters
    #: and draws to decline what they do not handle (`deals.rules.handled`). Out of equality and
    #: repr: the rules alone key the caches and seed the estimates.
    written: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @property
    def constrained_parts(self) -> tuple[PartRules, ...]:
        return tuple(p for p in self.parts if not p.is_free)


def shape_mask(lengths: np.ndarray, shape: ShapeClass) -> np.ndarray:
    """SEMANTICS 3's shape classes on `(n, 4)` lengths (sorted a >= b >= c >= d)."""
    srt = -np.sort(-np.asarray(lengths), axis=1)
    a, b, c, d = srt[:, 0], srt[:, 1], srt[:, 2], srt[:, 3]
    if shape is ShapeClass.BALANCED:  # 4333, 4432, 5332
        return (d >= 2) & (a <= 5) & (a + b <= 8)
    if shape is ShapeClass.THREE_SUITER:
        return c >= 4
    if shape is ShapeClass.TWO_SUITER:
        return (a >= 5) & (b >= 4) & (c <= 3)
    if shape is ShapeClass.ONE_SUITER:
        return (a >= 6) & (b <= 3)
    return np.ones(len(a), dtype=bool)


def _bounds(r, physical: int) -> tuple[int, int]:
    return (r.min, r.upper(physical))


def compile_position(position: Position | None, fit_suits: frozenset) -> SeatRule:
    if position is None or position.is_empty:
        return FREE
    len_lo, len_hi = [0] * 4, [MAX_SUIT_LENGTH] * 4
    for suit, r in position.suits.items():
        len_lo[SUIT_INDEX[suit]], len_hi[SUIT_INDEX[suit]] = _bounds(r, MAX_SUIT_LENGTH)
    shcp_lo, shcp_hi = [0] * 4, [MAX_SUIT_HCP] * 4
    for suit, r in position.suit_hcp.items():
        shcp_lo[SUIT_INDEX[suit]], shcp_hi[SUIT_INDEX[suit]] = _bounds(r, MAX_SUIT_HCP)
    hcp_lo, hcp_hi = _bounds(position.hcp, DECK_HCP) if position.hcp is not None else (0, DECK_HCP)
    wildcard = None
    if position.has_wildcard:
        candidates = tuple(SUIT_INDEX[s] for s in SUITS if s not in position.named_suits and s not in fit_suits)
        if not candidates:
            named = tuple(s for s in SUITS if s in position.named_suits or s in fit_suits)
            raise Unsatisfiable(Reason(reasons.WILDCARD, who=(position.role,), suits=named))
        x_lo, x_hi = _bounds(position.x, MAX_SUIT_LENGTH) if position.x is not None else (0, MAX_SUIT_LENGTH)
        xh_lo, xh_hi = _bounds(position.x_hcp, MAX_SUIT_HCP) if position.x_hcp is not None else (0, MAX_SUIT_HCP)
        wildcard = Wildcard(candidates, x_lo, x_hi, xh_lo, xh_hi)
    return SeatRule(
        len_lo=tuple(len_lo),  # type: ignore[arg-type]
        len_hi=tuple(len_hi),  # type: ignore[arg-type]
        hcp_lo=hcp_lo,
        hcp_hi=hcp_hi,
        shcp_lo=tuple(shcp_lo),  # type: ignore[arg-type]
        shcp_hi=tuple(shcp_hi),  # type: ignore[arg-type]
        wildcard=wildcard,
        shape=position.shape if position.shape is not ShapeClass.ANY else None,
    )


#: The fields `compile_position` and the fits below turn into rules.
RULES = Handles("the compiled rules")


def compile_scenario(scenario: Scenario) -> CompiledScenario:
    RULES.refuse(scenario)
    rules: list[SeatRule] = [FREE] * 4
    for role in Role:
        fit_suits = frozenset(f.suit for f in scenario.fits_of(role.pair) if f.suit is not None)
        rules[ROLE_SEAT[role]] = compile_position(scenario.position(role), fit_suits)
    parts = []
    for pair, seats in zip((Pair.DECLARER, Pair.DEFENSE), PAIR_SEATS):
        fits = tuple(FitRule(tuple(SUIT_INDEX[s] for s in f.candidate_suits()), f.min) for f in scenario.fits_of(pair))
        parts.append(PartRules(seats, (rules[seats[0]], rules[seats[1]]), fits))
    return CompiledScenario(tuple(rules), tuple(parts), written_fields(scenario))  # type: ignore[arg-type]
