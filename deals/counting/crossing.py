"""Exact counts for some scenarios that tie both partnerships together.

When at most two seats have HCP rules (a and b, of any partnerships) and the other two seats
(c and d) have at most per-suit length ranges, the count factors over the pairs of length
vectors of a and b:

    count = sum over (La, Lb) of  N(La, Lb) * Z(La, Lb)

N is the exact number of (hand of a, hand of b) with those lengths satisfying their rules
(`PairModel` in pair mode, fits between a and b included; one pair per orbit of alike suits,
see `deals.counting.symmetry`). Z counts the hands of c taken from the 26 cards left (d gets the
rest) that satisfy c's and d's length rules and every fit involving c or d. Seats c and d
have no HCP rule, so which cards of a suit they hold does not matter, only how many:

- c and d with per-suit ranges only: Z is the coefficient of t**13 in prod over suits of
  sum_j C(r_k, j) t**j, j over the lengths c may take in suit k (r_k = 13 - a_k - b_k left).
  A fit involving c or d is a disjunction over suits; it is counted by inclusion-exclusion
  over the fits: its complement ("every suit short") is again a per-suit range of c. A fit
  of c with d is fixed by r (c_k + d_k = r_k).
- a shape or a wildcard on c or d: Z is the sum, over the length vectors v the seat with
  fewer of them may take, of prod_k C(r_k, v_k) when the other seat's r - v passes too
  (at most `MAX_ENUMERATED` pairs times vectors).

This covers the overcall examples of the reference (opener and opp1 with HCP, opp2's fit),
and a responder's shape or long suit beside two seats with HCP rules. Three or more seats
with HCP rules are not covered: `cross_count` returns None and `deals.counting.length_matrices`
counts the scenario instead.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT

from .cache import Bounded
from .partnership import PairModel, length_pairs
from .exact import exact_dot
from ..rules.handled import Handles
from ..rules.compiled import CompiledScenario, FitRule, PartRules, SeatRule
from .symmetry import canonical, suit_classes
from .tables import comb_table, length_code, length_vectors

MAX_CROSS_PAIRS = 250_000
#: Pairs of length vectors of a and b times length vectors of c (or d) that Z may enumerate.
MAX_ENUMERATED = 20_000_000


def _ranges_only(rule: SeatRule) -> bool:
    return rule.wildcard is None and rule.shape is None and not rule.reads_hcp


CROSSING = Handles("the crossing of two partnerships' counts")


def cross_count(compiled: CompiledScenario) -> int | None:
    """The exact number of deals satisfying the scenario, or None when not covered. Counted
    on its suits' representative renaming (`deals.counting.symmetry.canonical`: the same count), so
    that a wiki's same auction over another suit shares the pair counts (`_pair_counts`)."""
    if not CROSSING.takes(compiled):
        return None
    compiled = canonical(compiled)
    rules = compiled.seat_rules
    hcp_seats = [s for s in range(4) if rules[s].reads_hcp]
    if len(hcp_seats) > 2:
        return None
    others = sorted((s for s in range(4) if s not in hcp_seats), key=lambda s: rules[s].is_free)
    a, b = (hcp_seats + others)[:2]
    c, d = [s for s in range(4) if s not in (a, b)]
    fits = [(part.seats, fit) for part in compiled.parts for fit in part.fits]
    fits_ab = tuple(f for seats, f in fits if set(seats) == {a, b})
    fits_rest = [(seats, f) for seats, f in fits if set(seats) != {a, b}]
    part = PartRules((a, b), (rules[a], rules[b]), fits_ab)
    if length_pairs(part) > MAX_CROSS_PAIRS:
        return None
    seats, la, lb, weights, multiplicity = _pair_counts(part, tuple(map(tuple, suit_classes(compiled))))
    lengths = {seats[0]: la, seats[1]: lb}
    if _ranges_only(rules[c]) and _ranges_only(rules[d]):
        z = _completions(lengths, rules[c], rules[d], c, d, fits_rest)
    else:
        z = _completions_enumerated(lengths, {c: rules[c], d: rules[d]}, fits_rest)
        if z is None:
            return None
    return exact_dot(weights, z * multiplicity)  # z below C(26, 13) < 2**24


#: The pair counts of `cross_count` kept for reuse, at most this many entries and bytes
#: together: the same two seats' rules (an opening, an overcall) recur beside other rules
#: for c and d (build_bench's 1,000 pages: 72 scenarios counted here, 24 distinct pairs of
#: seats' rules).
PAIR_COUNTS_ITEMS = 256
PAIR_COUNTS_BYTES = 32 * 2**20
_PAIR_COUNTS: Bounded[tuple, tuple] = Bounded(lambda kept: sum(a.nbytes for a in kept[1:]))


def _pair_counts(part: PartRules, alike: tuple[tuple[int, ...], ...]) -> tuple:
    """The seats, the pairs of length vectors (one per orbit of `alike` suits), their exact
    counts and multiplicities of `part` in pair mode: read-only arrays, shared."""
    key = (part, alike)
    kept = _PAIR_COUNTS.get(key)
    if kept is not None:
        return kept
    model = PairModel(part, force_pair=True, count_only=True, alike=[list(c) for c in alike])
    arrays = (model.la, model.lb, model.exact_weights, model.multiplicity)
    for array in arrays:
        array.flags.writeable = False
    return _PAIR_COUNTS.put(key, (model.seats, *arrays), PAIR_COUNTS_ITEMS, PAIR_COUNTS_BYTES)


def _completions_enumerated(lengths: dict, rules: dict, fits) -> np.ndarray | None:
    """Z per pair of length vectors of a and b, by the length vectors of c or d (see the
    module docstring); None past `MAX_ENUMERATED`."""
    lv = length_vectors()
    allowed = {seat: rule.length_ok(lv) for seat, rule in rules.items()}
    listed, other = sorted(rules, key=lambda seat: allowed[seat].sum())
    vectors = lv[allowed[listed]]  # (m, 4)
    other_ok = np.zeros(14**3, dtype=bool)
    other_ok[length_code(lv[allowed[other]])] = True
    la, lb = lengths.values()
    left = CARDS_PER_SUIT - la - lb  # (n, 4)
    if len(left) * len(vectors) > MAX_ENUMERATED:
        return None
    c = comb_table()
    z = np.zeros(len(left), dtype=np.int64)
    step = max(1, (1 << 20) // max(len(vectors), 1))
    for s in range(0, len(left), step):
        r = left[s : s + step]
        rest = r[:, None, :] - vectors[None, :, :]  # the other seat's lengths
        ok = (rest >= 0).all(axis=2)
        ok[ok] = other_ok[length_code(rest[ok])]
        held = {listed: np.broadcast_to(vectors[None], rest.shape), other: rest}
        for seats, fit in fits:
            if set(seats) == set(rules):  # c_k + d_k = r_k
                ok &= fit.ok(r)[:, None]
                continue
            known, free = (seats[0], seats[1]) if seats[0] in lengths else (seats[1], seats[0])
            combined = lengths[known][s : s + step, None, :] + held[free]
            ok &= fit.ok(combined.reshape(-1, 4)).reshape(ok.shape)
        ways = np.ones(ok.shape, dtype=np.int64)
        for k in range(4):
            ways *= c[r[:, None, k], vectors[None, :, k]]
        z[s : s + step] = (ways * ok).sum(axis=1)
    return z


def _completions(lengths: dict, rc: SeatRule, rd: SeatRule, c: int, d: int, fits) -> np.ndarray:
    """Z per pair of length vectors of a and b (see the module docstring)."""
    la, lb = lengths.values()
    r = CARDS_PER_SUIT - la - lb  # (n, 4) cards left per suit
    n = len(r)
    lo = np.maximum(np.array(rc.len_lo)[None, :], r - np.array(rd.len_hi)[None, :])
    hi = np.minimum(np.array(rc.len_hi)[None, :], r - np.array(rd.len_lo)[None, :])
    fixed_ok = np.ones(n, dtype=bool)
    free_fits = []
    for seats, fit in fits:
        if set(seats) == {c, d}:  # c_k + d_k = r_k: decided by r
            fixed_ok &= fit.ok(r)
        else:
            free_fits.append((seats, fit))
    total = np.zeros(n, dtype=np.int64)
    for size in range(len(free_fits) + 1):
        for chosen in combinations(free_fits, size):
            clo, chi = lo.copy(), hi.copy()
            for seats, fit in chosen:  # complement: every suit of the fit short
                _shorten(clo, chi, seats, fit, lengths, r, c, d)
            term = _coefficient_13(r, clo, chi)
            total += term if size % 2 == 0 else -term
    return np.where(fixed_ok, total, 0)


def _shorten(lo, hi, seats, fit: FitRule, lengths, r, c, d) -> None:
    """Restrict c's lengths so that the fit's pair is below `fit.min` in each of its suits."""
    ab_seat = seats[0] if seats[0] in lengths else seats[1]
    cd_seat = seats[1] if ab_seat == seats[0] else seats[0]
    known = lengths[ab_seat]
    for k in fit.suits:
        cap = fit.min - 1 - known[:, k]  # the c or d seat may hold at most this many
        if cd_seat == c:
            hi[:, k] = np.minimum(hi[:, k], cap)
        else:  # d holds r_k - c_k <= cap
            lo[:, k] = np.maximum(lo[:, k], r[:, k] - cap)


def _suit_polynomials() -> np.ndarray:
    """`[r, lo, hi, j]` = C(r, j) when lo <= j <= hi (lo in 0..14, hi in 0..13, j <= r)."""
    c = comb_table()[:14, :14]
    j = np.arange(14)
    lo = np.arange(15)[:, None, None]
    hi = np.arange(14)[None, :, None]
    keep = (j[None, None, :] >= lo) & (j[None, None, :] <= hi)  # (15, 14, 14)
    return c[:, None, None, :] * keep[None, :, :, :]


_POLY = None


def _half_products(r, lo, hi, k1: int, k2: int):
    """Distinct products of the polynomials of suits k1 and k2 (degrees 0..13), and each row's index."""
    key = ((r[:, k1] * 15 + lo[:, k1]) * 14 + hi[:, k1]) * 2940 + (r[:, k2] * 15 + lo[:, k2]) * 14 + hi[:, k2]
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    p1 = _POLY[r[first, k1], lo[first, k1], hi[first, k1]]
    p2 = _POLY[r[first, k2], lo[first, k2], hi[first, k2]]
    out = np.zeros_like(p1)
    for i in range(14):
        out[:, i:] += p1[:, i : i + 1] * p2[:, : 14 - i]
    return out, inv.ravel()


def _coefficient_13(r: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Coefficient of t**13 in prod_k sum_{lo_k <= j <= hi_k} C(r_k, j) t**j, per row: the
    products of suits 1-2 and 3-4 are computed once per distinct half, then met in the middle."""
    global _POLY
    if _POLY is None:
        _POLY = _suit_polynomials()
    lo = np.clip(lo, 0, 14)
    hi = np.clip(hi, -1, 13)
    empty = (hi < lo).any(axis=1)
    hi = np.maximum(hi, 0)
    a12, i12 = _half_products(r, lo, hi, 0, 1)
    a34, i34 = _half_products(r, lo, hi, 2, 3)
    a34 = np.ascontiguousarray(a34[:, ::-1])
    coefficient = np.empty(len(r), dtype=np.int64)
    for s in range(0, len(r), 16384):  # in blocks, to bound the temporaries
        coefficient[s : s + 16384] = np.einsum("ij,ij->i", a12[i12[s : s + 16384]], a34[i34[s : s + 16384]])
    return np.where(empty, 0, coefficient)
