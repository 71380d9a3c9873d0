"""An independent reference for the length matrices' counts (per matrix, a dynamic programme
over suits, modulo a prime), a check against plain dealing, and the scenarios the counting
tests share."""

from __future__ import annotations

from itertools import product
from math import factorial

import numpy as np

from bridgeshape_mirror.deals.rules.predicate import shape_class
from bridgeshape_mirror.dsl.model import SUITS, Role, Scenario


TAKE_OUT = "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8"


TAKE_OUT_OVERCALLED = "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; opp2 hcp:8+ x:5+"


SEATS = (Role.OPENER, Role.OPP1, Role.RESPONDER, Role.OPP2)  # N E S W


PRIME = 2**31 - 1


def _candidates(sc: Scenario, role: Role) -> list[int]:
    position = sc.position(role)
    fit_suits = {f.suit for f in sc.fits_of(role.pair) if f.suit is not None}
    return [i for i, s in enumerate(SUITS) if s not in position.named_suits and s not in fit_suits]


def _vector_ok(sc: Scenario, role: Role, v: tuple[int, ...]) -> bool:
    position = sc.position(role)
    if position is None:
        return True
    for suit, r in position.suits.items():
        if not r.contains(v[SUITS.index(suit)]):
            return False
    if position.shape is not None and position.shape.value != "any" and shape_class(v) is not position.shape:
        return False
    if position.has_wildcard and position.x is not None:
        return any(position.x.contains(v[k]) for k in _candidates(sc, role))
    return True


def reference_matrices(sc: Scenario) -> list[tuple[tuple[int, ...], ...]]:
    """Every length matrix (rows N E S W) the scenario's length rules and fits allow."""
    vectors = [(s, h, d, 13 - s - h - d) for s in range(14) for h in range(14 - s) for d in range(14 - s - h)]
    allowed = [[v for v in vectors if _vector_ok(sc, role, v)] for role in SEATS]
    last = set(allowed[3])
    out = []
    for n, e, s in product(*allowed[:3]):
        w = tuple(13 - n[k] - e[k] - s[k] for k in range(4))
        if min(w) < 0 or w not in last:
            continue
        rows = (n, e, s, w)
        if all(
            max(rows[SEATS.index(a)][k] + rows[SEATS.index(b)][k] for k in (SUITS.index(x) for x in fit.candidate_suits())) >= fit.min
            for fit in sc.fits
            for a, b in [fit.pair.roles]
        ):
            out.append(rows)
    return out


def reference_count_mod(sc: Scenario, matrices) -> int:
    """The number of deals with these length matrices satisfying the scenario's HCP rules,
    modulo PRIME: per matrix, suit by suit, every owner of A K Q J and the ways to deal the
    nine spots, into a dense table of exact HCP totals (0..37 per seat with a total rule)
    and "wildcard found" flags."""
    positions = [sc.position(role) for role in SEATS]
    totals = [s for s, p in enumerate(positions) if p is not None and p.hcp is not None]
    wild = [s for s, p in enumerate(positions) if p is not None and p.has_wildcard and p.x_hcp is not None]
    top = [min(positions[s].hcp.max if positions[s].hcp.max is not None else 37, 37) for s in totals]
    shape = tuple(t + 1 for t in top) + (2,) * len(wild)
    result = 0
    for rows in matrices:
        state = np.zeros(shape, dtype=np.int64)
        state[(0,) * len(shape)] = 1
        for k in range(4):
            new = np.zeros(shape, dtype=np.int64)
            for owners in product(range(4), repeat=4):  # who holds A, K, Q, J
                held = [owners.count(s) for s in range(4)]
                if any(held[s] > rows[s][k] for s in range(4)):
                    continue
                points = [sum(4 - r for r, o in enumerate(owners) if o == s) for s in range(4)]
                if any(
                    p is not None and SUITS[k] in p.suit_hcp and not p.suit_hcp[SUITS[k]].contains(points[s])
                    for s, p in enumerate(positions)
                ):
                    continue
                ways = factorial(9)
                for s in range(4):
                    ways //= factorial(rows[s][k] - held[s])
                src = tuple(slice(0, top[i] + 1 - points[s]) for i, s in enumerate(totals))
                dst = tuple(slice(points[s], top[i] + 1) for i, s in enumerate(totals))
                if any(sl.stop <= 0 for sl in src):  # some total past its top
                    continue
                for flags in product((0, 1), repeat=len(wild)):
                    after = []
                    for i, s in enumerate(wild):
                        p = positions[s]
                        hit = k in _candidates(sc, SEATS[s]) and (p.x is None or p.x.contains(rows[s][k])) and p.x_hcp.contains(points[s])
                        after.append(1 if flags[i] or hit else 0)
                    part = state[src + tuple(flags)]
                    new[dst + tuple(after)] = (new[dst + tuple(after)] + part * ways) % PRIME
            state = new
        lows = [positions[s].hcp.min for s in totals]
        cut = tuple(slice(lo, None) for lo in lows) + (1,) * len(wild)
        result = (result + int(state[cut].sum() % PRIME)) % PRIME
    return result


REFERENCE_CASES = [
    # three seats with HCP totals; D and C treated alike (one orbit class)
    "opener S:4 H:3 D:3 C:3 hcp:5-9; opp1 S:3-4 H:3-4 D:3 C:3 hcp:6+; responder S:3 H:3 D:3-4 C:3-4 hcp:0-4",
    # per-suit HCP rules (one on the seat without a total), a wildcard with HCP, a shape
    "opener S:4-5 H:3-4 D:2-3 C:2-3 hcp:10-14 Shcp:2+; opp1 S:2-3 H:3-4 x:4 xhcp:3+ hcp:8-12; "
    "responder S:2 H:3 D:4 C:4 hcp:0-5; opp2 Hhcp:1+ shape:balanced",
    # fits of both partnerships, a wildcard length, the last seat free
    "fit:S8+ opener S:5 H:2 D:3 C:3 hcp:8-11; responder S:3-4 H:2-3 D:2-4 C:2-4 hcp:3-6; "
    "opp1 H:4-5 D:3-4 C:3-4 x:1-2 hcp:5+; opp2 fit:H9+",
]


def agrees_with_plain_dealing(exact: float, accept) -> None:
    """Independent numpy dealing (400,000 deals): the rate of `accept(length, points)` (bool
    per deal; lengths `[deal, seat, suit]`, HCP `[deal, seat]`, seats N E S W) is the exact
    probability within 4.5 sd."""
    gen = np.random.default_rng(20261201)
    hits = n = 0
    hcp_of_rank = np.array([4, 3, 2, 1] + [0] * 9)
    for _ in range(4):
        owner = gen.permuted(np.tile(np.repeat(np.arange(4, dtype=np.int8), 13), (100_000, 1)), axis=1)
        held = owner.reshape(-1, 1, 4, 13) == np.arange(4).reshape(1, 4, 1, 1)
        hits += int(accept(held.sum(axis=3), (held * hcp_of_rank).sum(axis=(2, 3))).sum())
        n += len(owner)
    sd = (exact * (1 - exact) / n) ** 0.5
    assert abs(hits / n - exact) < 4.5 * sd, (hits / n, exact)
