"""Exact counts against independent formulas and small dynamic programmes."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from math import comb, prod

import numpy as np
import pytest

from bridgeshape_mirror.deals.counting.partnership import PairModel
from bridgeshape_mirror.deals.rules.compiled import FREE, FitRule, PartRules, SeatRule, compile_scenario
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from bridgeshape_mirror.deals.counting.tables import (
    ALL_DEALS,
    PAIR_HANDS,
    joint_table,
    length_vectors,
    within_thirteen,
)
from bridgeshape_mirror.dsl.model import Fit, Pair, Position, Range, Role, Scenario, ShapeClass, Suit, SuitClass

HANDS = comb(52, 13)


def scen(*positions: Position, fits: tuple[Fit, ...] = ()) -> Scenario:
    return Scenario("", positions, fits)


def prob(scenario: Scenario) -> Fraction:
    p = ScenarioSampler(scenario).probability
    assert p is not None and p.exact
    return p.fraction


def test_joint_table_sums_to_ways_of_holding_lengths():
    j = joint_table()
    for a in range(14):
        for b in range(14 - a):
            assert j[a, b].sum() == comb(13, a) * comb(13 - a, b)
    assert joint_table()[13, 0, 10, 0] == 1
    assert ALL_DEALS == 53644737765488792839237440000


def test_unconstrained_is_certain():
    assert prob(Scenario()) == 1
    assert prob(scen(Position(Role.OPP2))) == 1


def test_suit_length_matches_hypergeometric():
    for k in range(14):
        expected = Fraction(sum(comb(13, i) * comb(39, 13 - i) for i in range(k, 14)), HANDS)
        assert prob(scen(Position(Role.OPENER, suits={Suit.S: Range(k)}))) == expected


def _hcp_hand_counts() -> list[int]:
    """Hands by HCP, by a DP over the 16 honours (the 36 spot cards fill the rest)."""
    ways = {(0, 0): 1}  # (honours taken, hcp) -> ways
    for value in [4, 3, 2, 1] * 4:
        nxt: dict = {}
        for (k, h), w in ways.items():
            nxt[(k, h)] = nxt.get((k, h), 0) + w
            nxt[(k + 1, h + value)] = nxt.get((k + 1, h + value), 0) + w
        ways = nxt
    out = [0] * 41
    for (k, h), w in ways.items():
        if k <= 13:
            out[h] += w * comb(36, 13 - k)
    return out


def test_hcp_distribution_matches_honour_dp():
    counts = _hcp_hand_counts()
    assert sum(counts) == HANDS
    for lo, hi in ((0, 0), (12, 21), (15, 17), (22, 37), (37, 37)):
        expected = Fraction(sum(counts[lo : hi + 1]), HANDS)
        assert prob(scen(Position(Role.RESPONDER, hcp=Range(lo, hi)))) == expected


def _pair_hcp_count(ra: tuple[int, int], rb: tuple[int, int]) -> int:
    """Ordered pairs of hands with HCP in ra and rb: DP over the 16 honours going to a, b or neither."""
    ways = np.zeros((17, 17, 41, 41), dtype=np.int64)  # honours of a, of b, HCP of a, of b
    ways[0, 0, 0, 0] = 1
    for value in [4, 3, 2, 1] * 4:
        nxt = ways.copy()
        nxt[1:, :, value:, :] += ways[:-1, :, :-value, :]
        nxt[:, 1:, :, value:] += ways[:, :-1, :, :-value]
        ways = nxt
    total = 0
    for ka, kb, ha, hb in zip(*np.nonzero(ways)):
        if ka <= 13 and kb <= 13 and ra[0] <= ha <= ra[1] and rb[0] <= hb <= rb[1]:
            total += int(ways[ka, kb, ha, hb]) * comb(36, 13 - int(ka)) * comb(36 - (13 - int(ka)), 13 - int(kb))
    return total


@pytest.mark.parametrize("ra, rb", [((15, 17), (8, 40)), ((12, 21), (10, 15)), ((20, 40), (20, 40))])
def test_pair_hcp_matches_honour_dp(ra, rb):
    sc = scen(
        Position(Role.OPENER, hcp=Range(ra[0], min(ra[1], 37))),
        Position(Role.RESPONDER, hcp=Range(rb[0], min(rb[1], 37))),
    )
    assert prob(sc) == Fraction(_pair_hcp_count(ra, rb), PAIR_HANDS)


def _pair_length_count(min_a: int, min_b: int, fit: int) -> int:
    total = 0
    for a in range(min_a, 14):
        for b in range(min_b, 14 - a):
            if a + b >= fit:
                total += comb(13, a) * comb(39, 13 - a) * comb(13 - a, b) * comb(26 + a, 13 - b)
    return total


def test_pair_lengths_and_named_fit_match_hypergeometric():
    sc = scen(
        Position(Role.OPENER, suits={Suit.H: Range(5)}),
        Position(Role.RESPONDER, suits={Suit.H: Range(2)}),
        fits=(Fit(8, suit=Suit.H),),
    )
    assert prob(sc) == Fraction(_pair_length_count(5, 2, 8), PAIR_HANDS)


def test_defence_fit_alone_is_declarer_complement():
    # opp fit of 9+ hearts <=> declarer pair holds 4 or fewer hearts
    sc = scen(Position(Role.OPP2), fits=(Fit(9, suit=Suit.H, pair=Pair.DEFENSE, declared_in=Role.OPP2),))
    expected = sum(
        comb(13, a) * comb(39, 13 - a) * comb(13 - a, b) * comb(26 + a, 13 - b)
        for a in range(14)
        for b in range(14 - a)
        if a + b <= 4
    )
    assert prob(sc) == Fraction(expected, PAIR_HANDS)


def test_rest_fit_and_pair_modes_agree():
    """One seat counted as single hands (rest mode), with a fit every deal satisfies (fit
    mode), and in pairs (partner with a rule that excludes nothing) must agree; and a real
    fit counted in fit mode must agree with pair mode."""
    rules = compile_scenario(
        scen(Position(Role.OPENER, hcp=Range(11, 15), x=Range(0, 1), x_hcp=Range(0, 0), suits={Suit.S: Range(4)}))
    ).seat_rules[0]
    anything = SeatRule(hcp_hi=39)  # every hand, but not FREE: forces pair mode
    always = (FitRule((0, 1, 2, 3), 4),)
    rest = PairModel(PartRules((0, 2), (rules, FREE)))
    fit = PairModel(PartRules((0, 2), (rules, FREE), always))
    pair = PairModel(PartRules((0, 2), (rules, anything), always))
    assert rest.rest and fit.fit_mode and not pair.rest
    assert rest.count * comb(39, 13) == fit.count == pair.count
    assert rest.probability == fit.probability == pair.probability
    hearts9 = (FitRule((1,), 9),)
    assert PairModel(PartRules((0, 2), (rules, FREE), hearts9)).count == PairModel(
        PartRules((0, 2), (rules, anything), hearts9)
    ).count


def test_fit_tables_weigh_each_partner_length_vector_by_its_card_choices():
    """Fit mode's table, row by row against the definition: partner length vector b after a
    weighs prod_k C(13 - a_k, b_k) when some suit of each fit reaches its minimum, else 0."""
    rules = compile_scenario(scen(Position(Role.OPP1, hcp=Range(6, 10), x=Range(6)))).seat_rules[1]
    fits = (FitRule((0, 1, 2, 3), 9), FitRule((1, 3), 7))
    model = PairModel(PartRules((1, 3), (rules, FREE), fits))
    assert model.fit_mode and len(model.la) > 100
    vectors = [tuple(v) for v in length_vectors().tolist()]
    for i in range(0, len(model.la), 17):
        a = model.la[i].tolist()
        weights = [
            prod(comb(13 - a[k], b[k]) for k in range(4))
            * all(any(a[k] + b[k] >= fit.min for k in fit.suits) for fit in fits)
            for b in vectors
        ]
        assert model.fit_lb_cum[i].tolist() == list(accumulate(weights))
        assert model.fit_z[i] == sum(weights) > 0


def test_any_suit_fit_is_not_a_sum_over_suits():
    """fit:8+ (some suit) must count each pair once, however many suits reach 8."""
    any_fit = prob(scen(Position(Role.OPENER), fits=(Fit(8),)))
    hearts = prob(scen(Position(Role.OPENER), fits=(Fit(8, suit=Suit.H),)))
    assert any_fit < 4 * hearts  # the four suits are alike
    assert hearts == Fraction(_lengths_sum_count(lambda a, b: a[:, 1] + b[:, 1] >= 8), PAIR_HANDS)
    # complement: every suit at most 7 between the two hands
    none = prob(scen(Position(Role.OPENER, suits={}), fits=()))
    assert none == 1
    by_lengths = Fraction(_lengths_sum_count(lambda a, b: (a + b).max(axis=1) >= 8), PAIR_HANDS)
    assert any_fit == by_lengths


@lru_cache
def _all_length_vectors():
    return [(s, h, d, 13 - s - h - d) for s in range(14) for h in range(14 - s) for d in range(14 - s - h)]


def _lengths_sum_count(pred) -> int:
    """Ordered pairs of hands whose length vectors (a, b) pass `pred` (vectorised over pairs;
    each pair's weight prod C(13, a_k) C(13 - a_k, b_k) < 2**63, summed as Python ints)."""
    vecs = np.array(_all_length_vectors())
    a = np.repeat(vecs, len(vecs), axis=0)
    b = np.tile(vecs, (len(vecs), 1))
    ok = (a + b <= 13).all(axis=1)
    a, b = a[ok], b[ok]
    keep = pred(a, b)
    a, b = a[keep], b[keep]
    c = np.array([[comb(n, k) for k in range(14)] for n in range(14)], dtype=np.int64)
    w = np.ones(len(a), dtype=np.int64)
    for i in range(4):
        w *= c[13, a[:, i]] * c[13 - a[:, i], b[:, i]]
    return sum(w.tolist())


def _single_hand_count(check, max_hcp: int = 40, min_len: tuple = (0, 0, 0, 0)) -> int:
    """Hands whose (lengths, suit HCP) pass `check`, by enumerating per-suit holdings
    (pruned by a total HCP cap and minimum lengths, which `check` must imply)."""
    per_suit: dict = {}
    for mask in range(16):
        honours = bin(mask).count("1")
        hcp = sum(v for r, v in enumerate((4, 3, 2, 1)) if mask >> r & 1)
        for spots in range(10):
            key = (honours + spots, hcp)
            per_suit[key] = per_suit.get(key, 0) + comb(9, spots)
    states = {((), ()): 1}
    for suit in range(4):
        nxt: dict = {}
        for (ls, hs), w in states.items():
            used, points = sum(ls), sum(hs)
            for (l, h), c in per_suit.items():
                if used + l <= 13 and points + h <= max_hcp and l >= min_len[suit]:
                    key = (ls + (l,), hs + (h,))
                    nxt[key] = nxt.get(key, 0) + w * c
        states = nxt
    return sum(w for (ls, hs), w in states.items() if sum(ls) == 13 and check(ls, hs))


def test_single_hand_with_wildcard_and_suit_hcp_matches_enumeration():
    def check(ls, hs):
        if not 5 <= sum(hs) <= 10 or ls[1] < 6:
            return False
        # x:0-1 xhcp:0 among S, D, C (H is named)
        return any(ls[k] <= 1 and hs[k] == 0 for k in (0, 2, 3))

    sc = scen(Position(Role.OPENER, suits={Suit.H: Range(6)}, hcp=Range(5, 10), x=Range(0, 1), x_hcp=Range(0, 0)))
    assert prob(sc) == Fraction(_single_hand_count(check, 10, (0, 6, 0, 0)), HANDS)


@pytest.mark.slow
def test_single_hand_with_shape_and_suit_hcp_matches_enumeration():
    def check_shape(ls, hs):
        from bridgeshape_mirror.deals.rules.predicate import shape_class

        return shape_class(ls) is ShapeClass.TWO_SUITER and hs[0] >= 4 and 11 <= sum(hs) <= 15

    sc = scen(Position(Role.OPP1, shape=ShapeClass.TWO_SUITER, suit_hcp={Suit.S: Range(4)}, hcp=Range(11, 15)))
    assert prob(sc) == Fraction(_single_hand_count(check_shape, 15), HANDS)


def test_major_fit_and_fit_suit_leaves_wildcard_candidates():
    sc = scen(Position(Role.OPENER, x=Range(5)), fits=(Fit(8, suit_class=SuitClass.MAJOR),))
    rules = compile_scenario(sc).seat_rules[0]
    assert rules.wildcard is not None and rules.wildcard.candidates == (0, 1, 2, 3)
    sc = scen(Position(Role.RESPONDER, x=Range(0, 1)), fits=(Fit(8, suit=Suit.H),))
    assert compile_scenario(sc).seat_rules[2].wildcard.candidates == (0, 2, 3)


def test_counts_are_consistent_with_monte_carlo():
    """Exact probability vs plain uniform dealing, coded independently with numpy."""
    sc = scen(
        Position(Role.OPENER, suits={Suit.H: Range(5)}, hcp=Range(11, 21)),
        Position(Role.RESPONDER, suits={Suit.H: Range(3)}, x=Range(0, 2), hcp=Range(6)),
    )
    exact = float(prob(sc))
    gen = np.random.default_rng(20261129)
    n = 200_000
    seats = gen.permuted(np.tile(np.repeat(np.arange(4, dtype=np.int8), 13), (n, 1)), axis=1)
    held = seats.reshape(n, 4, 13)
    hcp_of_rank = np.array([4, 3, 2, 1] + [0] * 9)

    def features(seat):
        h = held == seat
        return h.sum(axis=2), (h * hcp_of_rank).sum(axis=(1, 2))

    ln, hn = features(0)
    ls, hs = features(2)
    ok = (ln[:, 1] >= 5) & (hn >= 11) & (hn <= 21) & (ls[:, 1] >= 3) & (hs >= 6)
    ok &= (ls[:, [0, 2, 3]] <= 2).any(axis=1)
    hits = int(ok.sum())
    sd = (exact * (1 - exact) / n) ** 0.5
    assert abs(hits / n - exact) < 4.5 * sd, (hits / n, exact)


def test_exact_matmul_is_exact_on_large_entries():
    """Entries up to 2**34 - 1 (both limbs full), products near 2**61: float64 alone would
    round them; the limb split must not."""
    from bridgeshape_mirror.deals.counting.partnership import exact_matmul

    gen = np.random.default_rng(1)
    x = gen.integers(0, 2**34, size=(40, 441), dtype=np.int64)
    x[0] = 2**34 - 1
    y = np.zeros((30, 441), dtype=np.int64)
    for row in y:  # four non-zero columns each: dot products stay below 2**61
        row[gen.choice(441, 4, replace=False)] = gen.integers(2**24, 2**25, size=4)
    y[0, :4] = 2**25 - 1
    want = x.astype(object) @ y.astype(object).T
    assert (exact_matmul(x, y).astype(object) == want).all()
    assert (np.rint(x.astype(float) @ y.astype(float).T).astype(np.int64).astype(object) != want).any()


def test_exact_matmul_fixes_the_rounded_product_by_residues():
    """Results just under 2**60 (the counts' products), where the float64 product alone is
    off in its last bits: the residues modulo 2**20 must put them right; and results past
    2**60 go through the limbs, exactly too."""
    from bridgeshape_mirror.deals.counting.partnership import exact_matmul, right_operand

    gen = np.random.default_rng(2)
    x = gen.integers(2**33, 2**34, size=(50, 441), dtype=np.int64)
    y = gen.integers(0, 2**17, size=(60, 441), dtype=np.int64)
    want = x.astype(object) @ y.astype(object).T
    assert max(want.ravel()) < 2**60
    assert (np.rint(x.astype(float) @ y.astype(float).T).astype(np.int64).astype(object) != want).any()
    assert (exact_matmul(x, right_operand(y)).astype(object) == want).all()
    y[0] = 2**20  # one row of results past 2**60
    want = x.astype(object) @ y.astype(object).T
    assert max(want[:, 0]) > 2**60
    assert (exact_matmul(x, y).astype(object) == want).all()


def test_exact_dot_and_sum_are_exact_past_int64():
    """Weighted totals of int64 counts pass 2**63: the limb split must give Python's exact
    result, signs included, where plain int64 arithmetic wraps around."""
    from bridgeshape_mirror.deals.counting.exact import exact_dot, exact_sum

    gen = np.random.default_rng(3)
    x = gen.integers(-(2**62), 2**62, size=3_000_000, dtype=np.int64)
    y = gen.integers(-(2**40), 2**40, size=3_000_000, dtype=np.int64)
    x[:3] = [2**63 - 1, -(2**63), 0]
    y[:3] = [2**40 - 1, -(2**40), 5]
    want_dot = sum(a * b for a, b in zip(x.tolist(), y.tolist()))
    assert exact_dot(x, y) == want_dot
    assert exact_sum(x) == sum(x.tolist())
    assert int(np.dot(x, y)) != want_dot  # int64 alone wraps


def test_half_tables_are_the_convolutions_whatever_the_cache_holds(monkeypatch):
    """Each row is conv(first[kx], second[ky]) (a plain 2-D convolution, below), whether the
    cache of convolutions has it, has dropped it for lack of room, or holds none: tables with
    equal contents under other indices, and the two tables swapped, share a cached row."""
    from bridgeshape_mirror.deals.counting import partnership as counting

    gen = np.random.default_rng(5)
    first = gen.integers(0, 2**17, size=(6, 11, 11), dtype=np.int64)
    first[3] = first[1]  # equal contents, another index
    first[4, 5:, :] = first[4, :, 7:] = 0  # a table with zeros, as short suits have
    second = np.concatenate([first[::-1], gen.integers(0, 2**17, size=(2, 11, 11), dtype=np.int64)])

    def conv(x, y):
        out = np.zeros((21, 21), dtype=object)
        for i, j in np.ndindex(11, 11):
            out[i : i + 11, j : j + 11] += int(x[i, j]) * y.astype(object)
        return out.reshape(441)

    for capacity in (0, 3, 10, 4096):
        monkeypatch.setattr(counting, "_CONV", counting._ConvCache(capacity))
        for _ in range(4):
            kx = gen.integers(0, 6, size=25)
            ky = gen.integers(0, 8, size=25)
            got = counting.half_tables(first, second, kx, ky)
            want = np.array([conv(first[x], second[y]) for x, y in zip(kx, ky)])
            assert (got.astype(object) == want).all(), capacity
        assert len(counting._CONV.keys) <= capacity
        assert len(set(counting._CONV.slots.tolist())) == len(counting._CONV.slots)  # one row, one slot


def test_half_tables_of_a_suit_s_tables_are_the_convolutions():
    """A suit's tables hold only the HCP some split of its honours gives (the same zeros in
    every table), so the convolution leaves the other entries out: each row is still the
    plain convolution, entry for entry, an HCP mask's zeros included."""
    from bridgeshape_mirror.deals.counting import partnership as counting
    from bridgeshape_mirror.deals.counting.tables import joint_table

    h = np.arange(11)
    masked = joint_table() * ((h >= 3) & (h <= 6))[None, None, :, None]
    tables = np.concatenate([joint_table(), masked]).reshape(392, 11, 11)
    gen = np.random.default_rng(7)
    kx, ky = gen.integers(0, 392, size=200), gen.integers(0, 392, size=200)
    got = counting._convolve(tables, tables, kx, ky)
    for row, x, y in zip(got, kx, ky):
        want = np.zeros((21, 21), dtype=object)
        for i, j in zip(*np.nonzero(tables[x])):
            want[i : i + 11, j : j + 11] += int(tables[x, i, j]) * tables[y].astype(object)
        assert (row.astype(object) == want.reshape(441)).all()


def test_grouped_dots_are_the_dot_products_of_each_pair():
    """Dense groups (one product), a group with more distinct halves than a block, and sparse
    groups (pair by pair), against Python's integers."""
    from bridgeshape_mirror.deals.counting.partnership import _BLOCK, grouped_dots

    gen = np.random.default_rng(8)
    f12 = gen.integers(0, 2**34, size=(700, 441), dtype=np.int64)
    f34 = gen.integers(0, 2**20, size=(300, 441), dtype=np.int64)
    # group 0: every half meets every half (dense, past one block); 1: a few pairs among many
    # halves (sparse); 2: a small dense group; each half belongs to one group, as in a model.
    a0, b0 = np.meshgrid(np.arange(_BLOCK + 40), np.arange(3), indexing="ij")
    pairs = [(a0.ravel(), b0.ravel(), 0)]
    pairs.append((gen.choice(np.arange(_BLOCK + 40, 650), 30, replace=False), gen.integers(3, 250, 30), 1))
    a2, b2 = np.meshgrid(np.arange(650, 700), np.arange(250, 300), indexing="ij")
    pairs.append((a2.ravel(), b2.ravel(), 2))
    i12 = np.concatenate([p[0] for p in pairs])
    i34 = np.concatenate([p[1] for p in pairs])
    group = np.concatenate([np.full(len(p[0]), p[2]) for p in pairs]) * 7 + 3
    shuffle = gen.permutation(len(i12))
    i12, i34, group = i12[shuffle], i34[shuffle], group[shuffle]
    got = grouped_dots(f12, f34, i12, i34, group)
    want = [sum(x * y for x, y in zip(f12[a].tolist(), f34[b].tolist())) for a, b in zip(i12, i34)]
    assert got.tolist() == want


# -- the same rules over other suits: a model renamed, not counted again --------------------

RENAMED_PARTS = [
    "opener hcp:11-21 H:5+; responder hcp:10-15 x:0-1 fit:H8+",  # both seats, a fit, a wildcard
    "opener hcp:15-17 shape:balanced; responder hcp:8+ S:4 Dhcp:2+",  # a shape, a suit's HCP
    "opener H:5+ hcp:12-21; responder fit:8+ x:4+ xhcp:3+",  # a wildcard with HCP: exact != superset
    "opener hcp:12+ C:4+ x:6+ xhcp:4+",  # one seat (rest mode)
    "opener x:5+ xhcp:4+ hcp:10+; responder fit:8+",  # fit mode
]


@pytest.mark.parametrize("text", RENAMED_PARTS)
def test_a_renamed_model_is_the_model_counting_makes(text):
    """Every array (the draws read them, in their order) and both counts, for renamings of
    the suits, built from the model of the rules as written."""
    from bridgeshape_mirror import dsl
    from bridgeshape_mirror.deals.counting.symmetry import canonical_part, renamed

    compiled = compile_scenario(dsl.parse_scenarios(text)[0])
    part = compiled.constrained_parts[0]
    source = PairModel(part)
    for order in [(1, 0, 2, 3), (3, 2, 1, 0), (1, 2, 3, 0)]:
        other = renamed(compiled, order).constrained_parts[0]
        (key, mine), (key_other, theirs) = canonical_part(part), canonical_part(other)
        assert key == key_other
        suit_of = [0] * 4
        for j, k in enumerate(theirs):
            suit_of[k] = mine[j]
        direct, via = PairModel(other), PairModel(other, renaming=(source, tuple(suit_of)))
        assert (via.count, via.superset_count) == (direct.count, direct.superset_count)
        arrays = {k for k, v in vars(direct).items() if isinstance(v, np.ndarray)}
        assert arrays == {k for k, v in vars(via).items() if isinstance(v, np.ndarray)}
        for name in arrays:
            assert np.array_equal(getattr(direct, name), getattr(via, name)), (order, name)


def test_pair_model_renames_the_model_of_the_same_rules_over_other_suits(monkeypatch):
    from bridgeshape_mirror import dsl
    import bridgeshape_mirror.deals.counting.scenario as scenario_counts
    from bridgeshape_mirror.deals.counting.cache import Bounded

    monkeypatch.setattr(scenario_counts, "_MODELS", Bounded(lambda model: model.nbytes))
    monkeypatch.setattr(scenario_counts, "_RENAMED", {})
    parts = [compile_scenario(dsl.parse_scenarios(f"opener hcp:12-21 {k}:5+; responder fit:{k}8+")[0]).parts[0] for k in "SHDC"]
    first = scenario_counts.pair_model(parts[0])

    def counted(*args):
        raise AssertionError("counted again")

    monkeypatch.setattr(PairModel, "_term", counted)
    models = [scenario_counts.pair_model(p) for p in parts[1:]]
    assert all(m.count == first.count and m.part == p for m, p in zip(models, parts[1:]))


def test_within_thirteen_is_every_pair_of_length_vectors_that_fits_in_one_deck():
    lv = length_vectors().tolist()
    table = within_thirteen()
    assert table.shape == (560, 560) and table.dtype == bool
    assert table.tolist() == [[all(x + y <= 13 for x, y in zip(a, b)) for b in lv] for a in lv]
