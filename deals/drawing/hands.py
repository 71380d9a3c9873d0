"""What the sampler's proposals are made of and checked by, shared with its exact draws: a
drawn deal's seat features (lengths and HCP per suit), a partnership's check against its
rules, and the rest of a deal dealt out at random to the seats the draw left empty."""

from __future__ import annotations

import numpy as np

from bridgeshape_mirror.dsl.deck import RANK_HCP

from ..rules.compiled import PartRules
from .rng import Rng, order_statistics, top_bits

_HCP = np.array(RANK_HCP, dtype=np.int64)
_HONOURS = int(np.flatnonzero(_HCP).max()) + 1  # the ranks that count HCP come first (A K Q J)


def seat_lengths(owner: np.ndarray, seat: int) -> np.ndarray:
    """`(n, 52)` seat-of-card -> the seat's `(n, 4)` lengths (suit by suit in memory, see
    `seat_features`)."""
    return _by_suit(_lengths(_held(owner, seat)))


def seat_features(owner: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """`(n, 52)` seat-of-card -> the seat's `(n, 4)` lengths and `(n, 4)` HCP per suit, int64,
    each laid suit by suit in memory (Fortran order: `[:, s]` contiguous): the rules' checks
    take a suit's column and reduce across the suits (`any`, `sum` over axis 1), which numpy
    then does a whole column at a time rather than a step per row (`SeatRule.hand_ok` on
    9,300 rows: 52 us against 414; the same values)."""
    held = _held(owner, seat)
    hcp = held[:, :, 0] * np.uint8(_HCP[0])
    for rank in range(1, _HONOURS):
        hcp += held[:, :, rank] * np.uint8(_HCP[rank])
    return _by_suit(_lengths(held)), _by_suit(hcp)


def _by_suit(values: np.ndarray) -> np.ndarray:
    """`(n, 4)` bytes as int64 laid suit by suit (transposed while a byte, then widened)."""
    return np.asfortranarray(values).astype(np.int64, order="K")


def _held(owner: np.ndarray, seat: int) -> np.ndarray:
    return (owner == seat).view(np.uint8).reshape(-1, 4, 13)


def _lengths(held: np.ndarray) -> np.ndarray:
    # Column by column: numpy's sum over a short last axis pays a step per row. In bytes (a
    # suit's 13 cards and 10 HCP fit), widened once at the end: half the time of int64 sums.
    lengths = held[:, :, 0] + held[:, :, 1]
    for rank in range(2, 13):
        lengths += held[:, :, rank]
    return lengths


def part_ok(owner: np.ndarray, part: PartRules) -> np.ndarray:
    """Which deals pass a partnership's rules. A seat's cards are read only for what its rule
    or the fits read: nothing of a free seat without fits, its lengths alone when its rule
    bounds no HCP (`hand_ok` is then `length_ok`: the HCP bounds it would check pass every
    hand)."""
    ok = np.ones(owner.shape[0], dtype=bool)
    combined = 0
    for seat, rule in zip(part.seats, part.rules):
        if rule.is_free and not part.fits:
            continue
        if rule.reads_hcp:
            lengths, shcp = seat_features(owner, seat)
            ok &= rule.hand_ok(lengths, shcp)
        else:
            lengths = seat_lengths(owner, seat)
            if not rule.is_free:
                ok &= rule.length_ok(lengths)
        combined = combined + lengths
    for fit in part.fits:
        ok &= fit.ok(combined)
    return ok


def deal_out_rest(owner: np.ndarray, rng: Rng) -> np.ndarray:
    """Give the cards marked -1 to the seats holding no card yet, uniformly at random.

    Each free card gets a random 64-bit key; the 13 smallest go to the first empty seat, the
    next 13 to the second, and so on. A row where equal keys straddle a boundary is drawn
    again; otherwise, by symmetry, every split is equally likely. The keys at the boundaries
    come from `rng.order_statistics` (values only: no full sort, no index arrays), and a card
    goes to the seat of the first boundary its key does not pass: the same cards as the 13
    smallest keys (see `_rest_seats`).
    """
    n = owner.shape[0]
    if n == 0:
        return owner
    empty = [s for s in range(4) if not (owner[0] == s).any()]
    free = owner == -1
    m = 13 * len(empty)
    if np.count_nonzero(free) != n * m:  # not a sum: that widens every card to int64 first
        raise AssertionError("cards left over do not match the empty seats")
    if len(empty) == 1:
        owner[free] = empty[0]
        return owner
    labels = _rest_seats(rng, n, empty)
    # The free cards' flat indices then one assignment, cheaper than np.place or boolean
    # indexing on a random mask.
    if owner.flags.c_contiguous:
        owner.reshape(-1)[np.flatnonzero(free)] = labels.reshape(-1)
    else:  # reshape would copy, and the cards would not reach `owner`
        np.place(owner, free, labels)
    return owner


def _rest_seats(rng: Rng, n: int, empty: list[int]) -> np.ndarray:
    """`(n, 13 * len(empty))` int8: the seat of each free card of `n` rows (`deal_out_rest`).

    Drawn `REST_ROWS` rows at a time (the values one draw of every row gives, in order). The
    boundaries are found on each key's top 16 bits: where
    the two keys at a boundary differ there, the cards at or below it are exactly those whose
    top bits are at or below its own (the top bits keep the keys' order, and every key past
    the boundary has top bits above it), so only the rows where they agree (about 27 / 2**16
    a boundary) are done again on the whole keys, and those with equal whole keys at a
    boundary are drawn again together afterwards, as a draw of their own (the values the
    redraw of every such row gives)."""
    m = 13 * len(empty)
    bounds = [13 * i for i in range(1, len(empty))]
    ranks = tuple(k for b in bounds for k in (b - 1, b))
    labels = np.empty((n, m), dtype=np.int8)
    tied_rows = []
    for start in range(0, n, REST_ROWS):
        rows = min(REST_ROWS, n - start)
        keys = rng.raw(rows * m).reshape(rows, m)
        top = np.ascontiguousarray(top_bits(keys, np.uint16))
        at = order_statistics(top, ranks)
        near = _equal_at_a_boundary(at, bounds)
        labels[start : start + rows] = _seats_below(top, at, bounds, empty)
        if near.any():
            again = np.flatnonzero(near)
            whole = order_statistics(keys[again], ranks)
            tied = _equal_at_a_boundary(whole, bounds)
            labels[start + again] = _seats_below(keys[again], whole, bounds, empty)
            tied_rows.append(start + again[tied])
    if tied_rows:
        again = np.concatenate(tied_rows)
        labels[again] = _rest_seats(rng, len(again), empty)
    return labels


def _equal_at_a_boundary(at: dict, bounds: list[int]) -> np.ndarray:
    """Which rows have equal values on both sides of a boundary (`at`: rank -> values)."""
    equal = np.zeros(len(at[bounds[0]]), dtype=bool)
    for b in bounds:
        equal |= at[b - 1] == at[b]
    return equal


def _seats_below(keys: np.ndarray, at: dict, bounds: list[int], empty: list[int]) -> np.ndarray:
    """Each card's seat: that of the first boundary its key does not pass. A sum of
    comparison bytes (a key at or below a boundary moves its card from the next seat down to
    this one), not np.where's branch per card."""
    labels = np.full(keys.shape, np.int8(empty[-1]))
    for b, seat, after in zip(bounds, empty, empty[1:]):
        labels += (keys <= at[b - 1][:, None]).view(np.int8) * np.int8(seat - after)
    return labels


#: `deal_out_rest` draws at most this many rows at a time: a proposal batch (`BATCH`) at once.
#: Smaller blocks, whose keys would stay in the cache, cost more in numpy calls than they save
#: (measured, 9,000 rows of 26 keys: 2.4 ms in blocks of 4,096, 2.1 in one).
REST_ROWS = 16384
