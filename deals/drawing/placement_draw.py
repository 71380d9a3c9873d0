"""Exact draws of deals whose only rules are HCP totals, from the honour-placement count.

`deals.counting.honour_placements` counts such a scenario as a sum over pairs (p, q) of placements of
the honours, p of the first half of the ranks (A, K) and q of the second (Q, J), of

    w(p) w(q) * spots(h),   h = the seats' honour counts, spots(h) = 36! / prod_s (13 - h_s)!

where w is the number of ways to give each rank's four cards to the seats as the placement
says (4! / prod a_s! per rank), over the pairs whose every seat's HCP is in range. A deal is
one such pair, one of its w(p) w(q) card assignments and one of its spots(h) spot splits, so
drawing backwards through the sum is uniform over the deals that satisfy the scenario:

1. the vector of honour counts h, with weight spots(h) * (sum of w(p) w(q) over the pairs
   in range with counts h): Python ints past int64, drawn exactly by `deals.drawing.exact_choice`;
2. the pair (p, q) among those, with weight w(p) w(q) (int64: at most 4**16 together);
3. per honour rank, which suit's card goes to which seat: a uniform permutation of the suits
   read against the rank's composition (each of the 4! / prod a_s! assignments equally);
4. the spots: a uniform permutation of the 36, cut in runs of 13 - h_s for the seats.

No rejection at all (beyond `deals.drawing.exact_choice`'s, one in 2**40 or so). The tables (every
pair in range, sorted by h) take 12 bytes a pair, at most 1.5 million pairs: under 20 MB.

`PlacementDraw` takes the deck's shape (suits, honour HCP, spots per suit, cards per hand)
as parameters so that tests can check it against every deal of a small deck; a card's id is
`suit * (honours + spots) + rank`, honours first, as in `deals.boards.cards`.
"""

from __future__ import annotations

from math import factorial, prod

import numpy as np

from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT, HAND_CARDS, HONOUR_HCP, SUIT_LETTERS

from .exact_choice import BigChoice, GroupedWeights
from ..counting.honour_placements import SEATS, half_placements, rank_compositions
from .rng import Rng
from ..rules.compiled import CompiledScenario

#: Pairs of placements examined per block, to bound the temporaries (as the count does).
_BLOCK = 1 << 20


class PlacementDraw:
    """The drawing tables of one list of four HCP bounds (inclusive, per seat N, E, S, W)."""

    #: Rows the sampler asks of it at a time: None, the sampler's own batch.
    batch: int | None = None

    def __init__(
        self,
        bounds: list[tuple[int, int]],
        suits: int = len(SUIT_LETTERS),
        honour_hcp: tuple[int, ...] = HONOUR_HCP,
        spots_per_suit: int = CARDS_PER_SUIT - len(HONOUR_HCP),
        hand: int = HAND_CARDS,
    ):
        assert suits * (len(honour_hcp) + spots_per_suit) == SEATS * hand
        self.suits, self.honour_hcp, self.spots_per_suit, self.hand = suits, honour_hcp, spots_per_suit, hand
        (h1, c1, w1, r1), (h2, c2, w2, r2) = half_placements(honour_hcp, suits)
        self._ranks1, self._ranks2 = r1, r2
        self._count1, self._count2 = c1, c2
        lo = np.array([b[0] for b in bounds], dtype=np.int16)
        hi = np.array([b[1] for b in bounds], dtype=np.int16)
        base = len(honour_hcp) * suits + 1  # a vector of honour counts as one integer
        powers = base ** np.arange(SEATS)
        code1, code2 = c1 @ powers, c2 @ powers
        top = sum(honour_hcp) * suits
        binding = [k for k in range(SEATS) if lo[k] > 0 or hi[k] < top]
        # a seat cannot hold more honours than cards: binds on decks of more honours than a hand
        crowded = len(honour_hcp) * suits > hand
        pi, pj, pc = [], [], []
        step = max(1, _BLOCK // max(len(h2), 1))
        for s in range(0, len(h1), step):
            ok = np.ones((len(h1[s : s + step]), len(h2)), dtype=bool)
            for seat in binding:
                hcp = h1[s : s + step, seat, None].astype(np.int16) + h2[None, :, seat].astype(np.int16)
                ok &= (hcp >= lo[seat]) & (hcp <= hi[seat])
            for seat in range(SEATS) if crowded else ():
                ok &= (c1[s : s + step, seat, None] + c2[None, :, seat]) <= hand
            i, j = np.nonzero(ok)
            i += s
            pi.append(i.astype(np.int32))
            pj.append(j.astype(np.int32))
            pc.append((code1[i] + code2[j]).astype(np.int32))
            del ok, i, j
        i, j, code = np.concatenate(pi), np.concatenate(pj), np.concatenate(pc)
        del pi, pj, pc
        order = np.argsort(code)  # any fixed order of the pairs within a vector will do
        self._i, self._j = i[order], j[order]
        self._pairs = GroupedWeights(code[order], w1[self._i] * w2[self._j])  # at most 4**16 in all: int64
        spots = spots_per_suit * suits
        weights = []
        for c, total in zip(self._pairs.codes.tolist(), self._pairs.sums.tolist()):
            h = [c // base**k % base for k in range(SEATS)]
            weights.append(total * (factorial(spots) // prod(factorial(hand - x) for x in h)))
        self.count = sum(weights)
        self._choice = BigChoice(weights) if self.count else None

    @property
    def nbytes(self) -> int:
        return self._i.nbytes + self._j.nbytes + self._pairs.cum.nbytes

    def draw(self, n: int, rng: Rng) -> np.ndarray:
        """`(n, cards)` seat-of-card int8 rows, uniform over the deals in range, independent."""
        if self._choice is None:
            raise ValueError("no deal satisfies these bounds")
        # 1-2. the vector of honour counts, then the pair of placements within it
        g = self._choice.draw(n, rng)
        k = self._pairs.draw(g, rng)
        p, q = self._i[k], self._j[k]
        ranks = np.concatenate([self._ranks1[p], self._ranks2[q]], axis=1)  # (n, honour ranks)
        held = self._count1[p] + self._count2[q]  # (n, 4) honours per seat
        width = len(self.honour_hcp) + self.spots_per_suit
        owner = np.empty((n, self.suits, width), dtype=np.int8)
        # 3. per rank, its composition's seats in order, laid on a uniform order of the suits
        labels = _composition_labels(self.suits)[ranks]  # (n, ranks, suits)
        order = rng.permutations(n * len(self.honour_hcp), self.suits).reshape(n, -1, self.suits)
        rows = np.arange(n)[:, None, None]
        honours = np.empty_like(labels)
        honours[rows, np.arange(len(self.honour_hcp))[None, :, None], order] = labels
        owner[:, :, : len(self.honour_hcp)] = honours.transpose(0, 2, 1)
        # 4. the spots: a uniform order of them, cut in runs of (hand - honours) per seat
        flat = rng.runs(self.hand - held)  # (n, spots)
        owner[:, :, len(self.honour_hcp) :] = flat.reshape(n, self.suits, self.spots_per_suit)
        return owner.reshape(n, -1)


def _composition_labels(suits: int) -> np.ndarray:
    """`(m, suits)`: for each composition of a rank, its seats in order (a_N times N, ...)."""
    return np.array([np.repeat(np.arange(SEATS), c) for c in rank_compositions(suits)], dtype=np.int8)


def scenario_bounds(compiled: CompiledScenario) -> list[tuple[int, int]]:
    return [(r.hcp_lo, r.hcp_hi) for r in compiled.seat_rules]
