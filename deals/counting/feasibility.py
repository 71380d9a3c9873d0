"""Proofs that a scenario is empty: the words for an empty count, and contradictions between
the four seats that per-partnership counts cannot see (necessary conditions only: a scenario
these pass may still be empty; see `deals.drawing.sampler` for what happens then).

- totals over the four seats: HCP (40 in the deck), cards of each suit (13), HCP of each
  suit (10), a named fit against the other partnership's minimum lengths;
- what each seat can still get: the cards and HCP the other seats' minimums leave it;
- each suit alone: some split of its lengths among the four seats, and of A K Q J, meeting
  every length and HCP range in that suit and the fits on it (a fit of a class of suits needs
  one suit of the class to pass).
"""

from __future__ import annotations

import functools

import numpy as np

from bridgeshape_mirror.dsl.deck import (
    CARDS_PER_SUIT,
    DECK_HCP,
    HAND_CARDS,
    MAX_HAND_HCP,
    MAX_SUIT_HCP,
    SEAT_ROLE,
)
from bridgeshape_mirror.dsl.model import SUITS

from ..rules import reasons
from ..rules.reasons import Reason
from ..rules.compiled import CompiledScenario, PartRules


def why_empty(part: PartRules) -> Reason:
    who = tuple(SEAT_ROLE[s] for s, r in zip(part.seats, part.rules) if not r.is_free)
    if part.fits and who:
        return Reason(reasons.WHO_WITH_FIT, who=who)
    if part.fits:
        return Reason(reasons.FIT_ALONE)
    return Reason(reasons.ONE_HAND if len(who) == 1 else reasons.TOGETHER, who=who)


@functools.lru_cache(maxsize=1024)
def joint_contradiction(compiled: CompiledScenario) -> Reason | None:
    """Contradictions between the partnerships that their separate counts cannot see, by
    totals over the four seats (necessary conditions only; see the module docstring).
    Remembered per compiled scenario (a wiki repeats its scenarios' rules)."""
    rules = compiled.seat_rules
    if sum(r.hcp_lo for r in rules) > DECK_HCP:
        return Reason(reasons.DECK_HCP_SHORT, number=DECK_HCP)
    if sum(min(r.hcp_hi, MAX_HAND_HCP) for r in rules) < DECK_HCP:
        return Reason(reasons.DECK_HCP_LEFT, number=DECK_HCP)
    for k in range(4):
        if sum(r.len_lo[k] for r in rules) > CARDS_PER_SUIT:
            return Reason(reasons.SUIT_CARDS, suits=(SUITS[k],), number=CARDS_PER_SUIT)
        if sum(r.shcp_lo[k] for r in rules) > MAX_SUIT_HCP:
            return Reason(reasons.SUIT_HCP, suits=(SUITS[k],), number=MAX_SUIT_HCP)
    for part, other in (compiled.parts, compiled.parts[::-1]):
        for fit in part.fits:
            others = [sum(r.len_lo[k] for r in other.rules) for k in fit.suits]
            if all(fit.min + o > CARDS_PER_SUIT for o in others):
                return Reason(reasons.FIT_TAKEN)
    for seat, r in enumerate(rules):
        others = [t for t in range(4) if t != seat]
        room = sum(min(r.len_hi[k], CARDS_PER_SUIT - sum(rules[t].len_lo[k] for t in others)) for k in range(4))
        points = sum(min(r.shcp_hi[k], MAX_SUIT_HCP - sum(rules[t].shcp_lo[k] for t in others)) for k in range(4))
        if room < HAND_CARDS:
            return Reason(reasons.SEAT_CARDS, who=(SEAT_ROLE[seat],), number=HAND_CARDS)
        if points < max(r.hcp_lo, sum(r.shcp_lo)):
            return Reason(reasons.SEAT_HCP, who=(SEAT_ROLE[seat],))
    for k in range(4):
        if not suit_feasible(compiled, k):
            return Reason(reasons.SUIT_SHARE, suits=(SUITS[k],))
    for part in compiled.parts:
        for fit in part.fits:
            if len(fit.suits) > 1 and not any(suit_feasible(compiled, k, (part.seats, fit.min)) for k in fit.suits):
                return Reason(reasons.FIT_NO_SUIT)
    return None


def suit_feasible(compiled: CompiledScenario, k: int, extra: tuple | None = None) -> bool:
    """Is there a split of suit k (lengths of the four seats, and who holds A K Q J) meeting
    every seat's length and HCP range in that suit, every fit named on that suit alone, and
    `extra` ((seat, seat), minimum), a fit imposed on suit k, if given?"""
    from .tables import length_vectors

    rules = compiled.seat_rules
    split = length_vectors()  # (560, 4): here the lengths of seats N E S W in suit k
    ok = np.ones(len(split), dtype=bool)
    for seat, r in enumerate(rules):
        ok &= (split[:, seat] >= r.len_lo[k]) & (split[:, seat] <= r.len_hi[k])
    for part in compiled.parts:
        for fit in part.fits:
            if fit.suits == (k,):
                ok &= split[:, part.seats[0]] + split[:, part.seats[1]] >= fit.min
    if extra is not None:
        (s1, s2), minimum = extra
        ok &= split[:, s1] + split[:, s2] >= minimum
    hcp, fits_in = _honour_splits()
    hok = np.ones(256, dtype=bool)
    for seat, r in enumerate(rules):
        hok &= (hcp[:, seat] >= r.shcp_lo[k]) & (hcp[:, seat] <= r.shcp_hi[k])
    return bool((fits_in & ok[:, None] & hok[None, :]).any())


@functools.cache
def _honour_splits() -> tuple[np.ndarray, np.ndarray]:
    """The 256 ways to give A K Q J to the four seats (`tables.honour_owners`): each seat's
    HCP `(256, seat)`, and which fit in each split of a suit's lengths `(560, 256)` (the same
    for every scenario: built once, not at each of the four suits of every scenario)."""
    from .tables import honour_owners, length_vectors

    hcp, count_index, vectors = honour_owners()
    count = vectors[count_index]  # (256, seat): honours held
    lv = length_vectors()
    # Seat by seat: no (560, 256, 4) array (3.1 ms -> 0.3 ms, at every process's first scenario).
    fits_in = count[None, :, 0] <= lv[:, None, 0]  # (560, 256)
    for seat in range(1, 4):
        fits_in &= count[None, :, seat] <= lv[:, None, seat]
    return hcp, fits_in
