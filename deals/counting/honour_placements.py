"""Exact counts of scenarios whose only rules are HCP totals, by placements of the honours.

When no seat has a length rule (no suit range, shape, wildcard, per-suit HCP or fit), the
suits do not matter: a deal counts by who holds how many of each honour rank and how many
spot cards. The four cards of a rank go to the seats as a composition (a_N, a_E, a_S, a_W)
of 4 (35 of them), in 4! / prod a_s! ways; seat s's HCP is sum over ranks of HCP(rank) *
(its cards of that rank), and with h_s honours it takes 13 - h_s of the 36 spots, so

    count = sum over the 35**4 placements by rank with every seat's HCP in range of
            prod over ranks (4! / prod_s a_s!)  *  36! / prod_s (13 - h_s)!

Meet in the middle: the placements of A and K (1,225) are paired with those of Q and J
(1,225), 1.5 million pairs in one numpy pass. The rank multinomials multiply below 24**4,
and summed per vector of honour counts (at most 969 of them) below 4**16, so int64 is exact;
the spot multinomials (up to 36!/(9!)**4, past int64) multiply those sums as Python ints.

This is what length matrices cannot do within their budget: three or four seats with HCP
rules and no length rule (`opener hcp:12-21; opp1 hcp:8-16; responder hcp:6-10; opp2 hcp:0-7`
takes a few hundredths of a second here, 37 million matrices there).

`placement_count` takes the deck's shape as parameters (suits, honour HCP, spots per suit,
cards per hand) so that tests can check it against every deal of a small deck.
"""

from __future__ import annotations

from math import factorial, prod

import numpy as np

from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT, HAND_CARDS, HONOUR_HCP, SEAT_LETTERS, SUIT_LETTERS

from ..rules.handled import Handles
from ..rules.compiled import CompiledScenario, SeatRule

#: HCP totals alone are counted (`hcp_only`); the other fields are declined by their rules.
HONOUR_PLACEMENTS = Handles("the honour placements' count and draw")

SEATS = len(SEAT_LETTERS)


def hcp_only(compiled: CompiledScenario) -> bool:
    """Are the scenario's rules HCP totals and nothing else (what `placement_count` covers)?"""
    if any(part.fits for part in compiled.parts) or not HONOUR_PLACEMENTS.takes(compiled):
        return False
    return all(_total_only(rule) for rule in compiled.seat_rules)


def _total_only(rule: SeatRule) -> bool:
    return rule == SeatRule(hcp_lo=rule.hcp_lo, hcp_hi=rule.hcp_hi)  # a free seat too


def scenario_count(compiled: CompiledScenario) -> int | None:
    """The exact number of deals satisfying the scenario, or None when it has other rules."""
    if not hcp_only(compiled):
        return None
    bounds = [(r.hcp_lo, r.hcp_hi) for r in compiled.seat_rules]
    return placement_count(bounds)


def _compositions(total: int, parts: int) -> np.ndarray:
    """All `(m, parts)` vectors of non-negative integers summing to `total`."""
    if parts == 1:
        return np.array([[total]], dtype=np.int64)
    rows = []
    for first in range(total + 1):
        rest = _compositions(total - first, parts - 1)
        rows.append(np.concatenate([np.full((len(rest), 1), first), rest], axis=1))
    return np.concatenate(rows).astype(np.int64)


def _ranks(hcps: tuple[int, ...], compositions: np.ndarray, ways: np.ndarray):
    """Placements of the honours of `hcps` (one rank each): per placement, the HCP and the
    honour count of every seat, and the ways."""
    hcp = np.zeros((1, SEATS), dtype=np.int64)
    count = np.zeros((1, SEATS), dtype=np.int64)
    weight = np.ones(1, dtype=np.int64)
    for value in hcps:
        hcp = (hcp[:, None, :] + value * compositions[None, :, :]).reshape(-1, SEATS)
        count = (count[:, None, :] + compositions[None, :, :]).reshape(-1, SEATS)
        weight = (weight[:, None] * ways[None, :]).ravel()
    return hcp, count, weight


def placement_count(
    bounds: list[tuple[int, int]],
    suits: int = len(SUIT_LETTERS),
    honour_hcp: tuple[int, ...] = HONOUR_HCP,
    spots_per_suit: int = CARDS_PER_SUIT - len(HONOUR_HCP),
    hand: int = HAND_CARDS,
) -> int:
    """Deals of `suits` suits (honours worth `honour_hcp`, `spots_per_suit` spots each) to
    four hands of `hand` cards with seat s's HCP in `bounds[s]` (inclusive), exactly."""
    assert suits * (len(honour_hcp) + spots_per_suit) == SEATS * hand
    compositions = _compositions(suits, SEATS)
    ways = np.array([factorial(suits) // prod(factorial(int(a)) for a in c) for c in compositions], dtype=np.int64)
    half = len(honour_hcp) // 2
    h1, c1, w1 = _ranks(honour_hcp[:half], compositions, ways)
    h2, c2, w2 = _ranks(honour_hcp[half:], compositions, ways)
    lo = np.array([b[0] for b in bounds], dtype=np.int64)
    hi = np.array([b[1] for b in bounds], dtype=np.int64)
    honours = len(honour_hcp) * suits
    binding = [k for k in range(SEATS) if lo[k] > 0 or hi[k] < sum(honour_hcp) * suits]
    base = honours + 1  # a vector of honour counts as one integer, in base `base`
    code2 = c2 @ base ** np.arange(SEATS)
    sums = np.zeros(base**SEATS, dtype=np.float64)
    step = max(1, (1 << 22) // max(len(h2), 1))
    for s in range(0, len(h1), step):  # blocks of pairs, to bound the temporaries
        ok = np.ones((len(h1[s : s + step]), len(h2)), dtype=bool)
        for seat in binding:  # seat by seat, in int16: a few passes over 1.5M cells
            hcp = h1[s : s + step, seat, None].astype(np.int16) + h2[None, :, seat].astype(np.int16)
            ok &= (hcp >= lo[seat]) & (hcp <= hi[seat])
        i, j = np.nonzero(ok)
        code = c1[s + i] @ base ** np.arange(SEATS) + code2[j]
        # float64 is exact: every partial sum is at most the 4**16 placements of the honours
        sums += np.bincount(code, weights=(w1[s + i] * w2[j]).astype(np.float64), minlength=len(sums))
    spots = spots_per_suit * suits
    total = 0
    sums = np.rint(sums).astype(np.int64)
    for code in np.flatnonzero(sums).tolist():
        held = [code // base**k % base for k in range(SEATS)]
        if any(h > hand for h in held):
            continue
        total += int(sums[code]) * factorial(spots) // prod(factorial(hand - h) for h in held)
    return total


# --- Accessors for drawing (`deals.drawing.placement_draw`): the same tables the count reads. ---


def half_placements(
    honour_hcp: tuple[int, ...] = HONOUR_HCP, suits: int = len(SUIT_LETTERS)
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], ...]:
    """The placements of each half of the honour ranks, as `placement_count` pairs them: per
    half, `(hcp, count, weight, ranks)`, where `ranks[p, r]` is placement p's composition (an
    index into `rank_compositions(suits)`) of the half's r-th rank."""
    compositions = rank_compositions(suits)
    ways = np.array([factorial(suits) // prod(factorial(int(a)) for a in c) for c in compositions], dtype=np.int64)
    half = len(honour_hcp) // 2
    out = []
    for hcps in (honour_hcp[:half], honour_hcp[half:]):
        hcp, count, weight = _ranks(hcps, compositions, ways)
        # `_ranks` nests the ranks first-major: placement p is, in mixed radix, its ranks' compositions
        ranks = np.indices((len(compositions),) * len(hcps)).reshape(len(hcps), -1).T if hcps else np.zeros((1, 0), int)
        out.append((hcp, count, weight, np.ascontiguousarray(ranks)))
    return tuple(out)


def rank_compositions(suits: int = len(SUIT_LETTERS)) -> np.ndarray:
    """`(m, 4)`: the ways the `suits` cards of one rank split among the seats (counts per seat)."""
    return _compositions(suits, SEATS)
