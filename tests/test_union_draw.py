"""Exact draws from the union of cover terms (`deals.drawing.union_draw`) and the sampler's use of
them: the terms and their classes, a statistic's goodness of fit against exact counts,
homogeneity against plain shuffle-and-reject, every deal satisfying the scenario
(`deals.rules.predicate`), random scenarios with wildcards and fits, determinism per seed, and a
biased variant (the 1 / m test left out) that the same tests catch."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.statistics import drawn_by
from support.statistics import critical_value, features, homogeneity, rejection_sample
from support.statistics import chi_square, compiled_of, dealt, inhomogeneous, sampler_of

from bridgeshape_mirror import dsl
import bridgeshape_mirror.deals.drawing.union_draw as module
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.drawing.column_draw import ColumnDraw
from bridgeshape_mirror.deals.counting.column_products import column_count
from bridgeshape_mirror.deals.rules.predicate import satisfies
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.drawing.union_draw import (
    UnionDraw,
    class_count,
    cover_terms,
    terms_holding,
    union_draw,
)

#: Overlapping terms are common here (a hand with two 4-card suits, two 4-4 fits): the 1 / m
#: test matters, and shuffle-and-reject finds its deals in a second.
COMMON = "opener hcp:10+ x:4+; opp1 hcp:8+ x:5+; opp2 fit:8+"
E = "opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+"  # benchmark E
RARE = "opener x:9+ hcp:10+; opp1 x:8+ hcp:8+"  # about 2.3e-6, rare by its wildcards


def accept_common(ln, hc):
    hcp = hc.sum(axis=2)
    fit = ((ln[:, 1] + ln[:, 3]) >= 8).any(axis=1)
    return (hcp[:, 0] >= 10) & (ln[:, 0] >= 4).any(axis=1) & (hcp[:, 1] >= 8) & (ln[:, 1] >= 5).any(axis=1) & fit


def test_terms_and_classes_of_benchmark_e():
    compiled = compiled_of(E)
    terms = cover_terms(compiled)
    # 4 x 4 x 4, less those where the defence's fit is in opener's suit (5 + 9 > 13)
    assert len(terms) == 48
    assert class_count(compiled, 8) == 3  # the suits' equalities: aab, abb, abc (aaa, aba are empty)
    assert class_count(compiled, 2) == 0  # past the cap: not tried
    assert class_count(compiled_of("opener hcp:12-21 S:5+; opp1 hcp:8+"), 8) == 0  # no disjunction


def test_each_term_counts_as_its_class_and_the_union_holds_the_scenario():
    """A term's count is its class's (one order of the suits to the other); the terms' counts
    add up to more than the scenario's, by the deals in several terms."""
    text = "opener hcp:10-14 x:6+; opp1 hcp:8+ x:6+"
    compiled = compiled_of(text)
    union = union_draw(compiled, 8)
    assert isinstance(union, UnionDraw) and union.classes == 2  # same suit, or not
    counts = [column_count(term) for term in union.terms]
    assert sum(counts) == union.count
    assert len(set(counts)) == 2
    assert union.count > column_count(compiled) > 0.9 * union.count  # two 6-card suits: rare


def test_every_deal_satisfies_and_is_in_as_many_terms_as_counted():
    compiled = compiled_of(COMMON)
    union = union_draw(compiled, 8)
    rows = union.draw(2000, make_rng(3))
    rate = column_count(compiled) / union.count  # the 1 / m test keeps |S| / sum |T| (0.43)
    assert abs(len(rows) - 2000 * rate) < 5 * (2000 * rate * (1 - rate)) ** 0.5
    assert all((np.bincount(row, minlength=4) == 13).all() for row in rows)
    scenario = dsl.parse_scenarios(COMMON)[0]
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())
    # m by brute force: the terms whose rules the deal passes, each term a scenario of its own
    held = terms_holding(compiled, rows[:100])
    for row, m in zip(rows[:100], held.tolist()):
        ln, hc = features(row[None, :])
        brute = 0
        for term in union.terms:
            ok = True
            for seat, rule in enumerate(term.seat_rules):
                ok &= bool(rule.hand_ok(ln[:, seat], hc[:, seat])[0])
            for part in term.parts:
                for fit in part.fits:
                    ok &= bool(fit.ok(ln[:, part.seats[0]] + ln[:, part.seats[1]])[0])
            brute += ok
        assert brute == m >= 1


def opener_fit(union: UnionDraw, n: int, seed: int) -> tuple[float, int]:
    """Goodness of fit of opener's HCP in `n` deals of a two-wildcard scenario against the
    column products' exact counts with it pinned."""
    owner = union.draw(n, make_rng(seed))
    hcp = (features(owner)[1].sum(axis=2))[:, 0]
    cells = {h: column_count(compiled_of(f"opener hcp:{h} x:5+; opp1 hcp:9-12 x:5+")) for h in range(10, 14)}
    total = sum(cells.values())
    expected = {h: len(owner) * c / total for h, c in cells.items()}
    return chi_square(Counter(hcp.tolist()), expected)


def test_opener_hcp_follows_the_exact_counts():
    union = union_draw(compiled_of("opener hcp:10-13 x:5+; opp1 hcp:9-12 x:5+"), 8)
    stat, df = opener_fit(union, 20_000, 7)
    assert stat <= critical_value(df)


def test_uniform_against_shuffle_and_reject_and_a_biased_draw_fails(monkeypatch):
    n = 4000
    mine = union_draw(compiled_of(COMMON), 8)
    rows = np.concatenate([mine.draw(n, make_rng(11 + i)) for i in range(2)])[:n]
    theirs = rejection_sample(accept_common, n, seed=17)
    failures = inhomogeneous(rows, theirs)
    assert not failures, failures
    # every proposal kept: a deal in m terms comes m times as often (two 4-card suits, ...)
    with monkeypatch.context() as patch:
        patch.setattr(module, "terms_holding", lambda compiled, owner: np.ones(len(owner), dtype=np.int64))
        biased = mine.draw(n, make_rng(11))
    ln = features(biased)[0]
    ln_theirs = features(theirs)[0]
    suits = lambda ln: (ln[:, 0] >= 4).sum(axis=1) * 10 + ((ln[:, 1] + ln[:, 3]) >= 8).sum(axis=1)  # noqa: E731
    stat, df = homogeneity(suits(ln), suits(ln_theirs))
    assert stat > critical_value(df)
    stat, df = homogeneity(suits(features(rows)[0]), suits(ln_theirs))
    assert stat <= critical_value(df)


def test_a_scenario_rare_by_its_wildcards_takes_the_union_and_same_seed_same_deals():
    rows = drawn_by(RARE, UnionDraw, 5e-6)
    assert not np.array_equal(rows, dealt(sampler_of(RARE), 3000, 6))


def test_classes_past_one_column_draw_s_bytes_are_not_built(monkeypatch):
    monkeypatch.setattr(module, "MAX_DRAW_BYTES", 2**20)
    assert union_draw(compiled_of("opener hcp:10-14 x:6+; opp1 hcp:8+ x:6+"), 8) is None


def test_benchmark_c_at_100000_deals_takes_the_union_and_at_5000_its_positive_term():
    """C's one wildcard: 4 terms of one class, which accept about 95% where the positive term
    accepts 60%."""
    text = "opener hcp:12-21 x:5+; opp1 hcp:12+ S:3+ H:3+ D:3+ C:3+; responder hcp:0-8"
    sampler = sampler_of(text)
    sampler.choose_proposer(100_000)
    assert isinstance(sampler.exact_draw, UnionDraw) and sampler.exact_draw.classes == 1
    sampler = sampler_of(text)
    sampler.choose_proposer(5000)
    assert isinstance(sampler.exact_draw, ColumnDraw)


def test_benchmark_e_keeps_its_core_and_ten_deals_build_nothing():
    """E's core accepts about 30%: 100,000 deals are 330,000 proposals, fewer than five
    classes of tables and the union's own proposals cost."""
    sampler = sampler_of(E)
    dealt(sampler, 10, 1)
    assert sampler.exact_draw is None
    sampler = sampler_of(E)
    sampler.choose_proposer(100_000)
    assert not isinstance(sampler.exact_draw, (UnionDraw, ColumnDraw))


def test_benchmark_e_decides_without_counting_classes_and_reads_its_positive_count(monkeypatch, tmp_path):
    """At 100,000 deals E's union is ruled out before its classes are counted, and the
    positive term's count (which keeps the core) is read from the disk cache by a second
    run: the same decision with neither count made again."""
    import bridgeshape_mirror.deals.counting.honour_placements as placements

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("BSM_DEALS_CACHE", "1")
    counted = []
    real = placements.scenario_count
    monkeypatch.setattr(placements, "scenario_count", lambda c: counted.append(placements.hcp_only(c)) or real(c))
    monkeypatch.setattr(module, "class_count", lambda *a: pytest.fail("classes counted"))
    for _ in range(2):
        sampler = sampler_of(E)
        sampler.choose_proposer(100_000)
        assert sampler.supersets_tried and sampler.exact_draw is None
    assert counted.count(True) == 1  # the positive term, HCP totals only: counted once


_WILDCARD = st.sampled_from(["", "x:5+", "x:6+", "x:4-5", "x:5+ xhcp:3+", "x:0-1"])


@settings(max_examples=10, deadline=None)
@given(
    opener=_WILDCARD,
    opp1=_WILDCARD,
    named=st.sampled_from(["", "S:3+", "H:0-4"]),
    fit=st.sampled_from(["", "opp2 fit:8+", "responder fit:8+"]),
    hcp=st.sampled_from(["hcp:10+", "hcp:6-12", ""]),
    seed=st.integers(0, 2**32),
)
def test_random_scenarios_with_disjunctions_are_legal_and_satisfied(opener, opp1, named, fit, hcp, seed):
    text = f"opener {hcp} {named} {opener}; opp1 hcp:6+ {opp1}" + (f"; {fit}" if fit else "")
    try:
        scenario = dsl.parse_scenarios(text)[0]
    except dsl.InvalidDsl:
        return
    compiled = compiled_of(text)
    union = union_draw(compiled, 8)
    if union is None or union.count == 0:
        return
    exact = column_count(compiled)
    assert exact is not None and exact <= union.count
    rows = union.draw(40, make_rng(seed))
    assert all((np.bincount(row, minlength=4) == 13).all() for row in rows)
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())
