"""Uniformity: our deals against plain shuffle-and-reject deals, by chi-square tests of
homogeneity on several statistics, with fixed seeds (stable results).

The rejection sampler, its filters and its statistics are written here with numpy's
Generator, sharing no code with `deals` beyond the scenario text. A sampler known to be
biased ("pick the wildcard suit at random, then deal") must fail the same test, which shows
the test can fail.
"""

from __future__ import annotations


import numpy as np
import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler
from support.statistics import critical_value, features, homogeneity, random_deals, rejection_sample, statistics


def ours(text: str, n: int, seed: int) -> np.ndarray:
    sampler = ScenarioSampler(dsl.parse_scenarios(text)[0])
    return np.concatenate(list(sampler.batches(n, make_rng(seed))))


CASES = [
    # one partnership, named fit, wildcard with an HCP condition (exact counts, rejection on xhcp)
    (
        "fit:H8+ opener H:5+ hcp:11-21; responder x:0-2 xhcp:0-2 hcp:6+",
        lambda ln, hc: (ln[:, 0, 1] >= 5)
        & (hc[:, 0].sum(1) >= 11)
        & (hc[:, 0].sum(1) <= 21)
        & (ln[:, 0, 1] + ln[:, 2, 1] >= 8)
        & (hc[:, 2].sum(1) >= 6)
        & (((ln[:, 2, [0, 2, 3]] <= 2) & (hc[:, 2, [0, 2, 3]] <= 2)).any(axis=1)),
        (2, (0, 2, 3), lambda l: l <= 2, lambda h: h <= 2),
    ),
    # both partnerships (core = rarer seat, the rest by rejection)
    (
        "opener hcp:12-21 x:5+; opp1 hcp:8+ x:5+",
        lambda ln, hc: (hc[:, 0].sum(1) >= 12)
        & (hc[:, 0].sum(1) <= 21)
        & (ln[:, 0] >= 5).any(axis=1)
        & (hc[:, 1].sum(1) >= 8)
        & (ln[:, 1] >= 5).any(axis=1),
        (0, (0, 1, 2, 3), lambda l: l >= 5, lambda h: h >= 0),
    ),
    # one seat and a fit of its partnership (the partner free): "fit mode"
    (
        "opp1 hcp:6-12 x:5+; opp2 fit:8+",
        lambda ln, hc: (hc[:, 1].sum(1) >= 6)
        & (hc[:, 1].sum(1) <= 12)
        & (ln[:, 1] >= 5).any(axis=1)
        & ((ln[:, 1] + ln[:, 3]) >= 8).any(axis=1),
        (1, (0, 1, 2, 3), lambda l: l >= 5, lambda h: h >= 0),
    ),
    # one seat: shape class and suit HCP
    (
        "responder shape:balanced hcp:10-15 Shcp:3+",
        lambda ln, hc: (np.sort(ln[:, 2], axis=1)[:, 0] >= 2)
        & (np.sort(ln[:, 2], axis=1)[:, 3] <= 5)
        & (np.sort(ln[:, 2], axis=1)[:, 2:].sum(1) <= 8)
        & (hc[:, 2].sum(1) >= 10)
        & (hc[:, 2].sum(1) <= 15)
        & (hc[:, 2, 0] >= 3),
        (2, (), lambda l: l >= 0, lambda h: h >= 0),
    ),
]


@pytest.mark.parametrize("text, accept, wildcard", CASES, ids=["pair-fit-xhcp", "both-pairs", "seat-and-fit", "balanced"])
def test_uniform_against_rejection(text, accept, wildcard):
    n = 4000
    mine = ours(text, n, seed=20261129)
    theirs = rejection_sample(accept, n, seed=7)
    ln, hc = features(mine)
    assert accept(ln, hc).all()  # our deals pass the independent filter too
    sa = statistics(mine, *wildcard)
    sb = statistics(theirs, *wildcard)
    failures = []
    for name in sa:
        stat, df = homogeneity(sa[name], sb[name])
        if stat > critical_value(df):
            failures.append(f"{name}: chi2 {stat:.1f} > {critical_value(df):.1f} (df {df})")
    assert not failures, failures


def test_biased_wildcard_sampler_is_caught():
    """'Pick the wildcard suit at random, then deal' over-weights hands with two long suits."""
    text = "opener x:5+"
    n = 4000
    gen = np.random.default_rng(3)
    biased = []
    while sum(len(b) for b in biased) < n:
        owner = random_deals(gen, 50_000)
        ln, _ = features(owner)
        suit = gen.integers(0, 4, len(owner))
        biased.append(owner[ln[:, 0][np.arange(len(owner)), suit] >= 5])
    biased = np.concatenate(biased)[:n]
    theirs = rejection_sample(lambda ln, hc: (ln[:, 0] >= 5).any(axis=1), n, seed=8)
    mine = ours(text, n, seed=9)
    args = (0, (0, 1, 2, 3), lambda l: l >= 5, lambda h: h >= 0)
    stat_ok, df_ok = homogeneity(statistics(mine, *args)["wildcard suits"], statistics(theirs, *args)["wildcard suits"])
    stat_bad, df_bad = homogeneity(statistics(biased, *args)["wildcard suits"], statistics(theirs, *args)["wildcard suits"])
    assert stat_ok <= critical_value(df_ok)
    assert stat_bad > critical_value(df_bad)


def test_keeping_a_hand_and_redealing_is_caught():
    """Drawing the opener's hand, then re-dealing the others until responder fits, is
    biased; our sampler is not. Statistic: opener's HCP."""
    text = "opener hcp:10+; responder hcp:14+"
    accept = lambda ln, hc: (hc[:, 0].sum(1) >= 10) & (hc[:, 2].sum(1) >= 14)  # noqa: E731
    n = 3000
    theirs = rejection_sample(accept, n, seed=10)
    mine = ours(text, n, seed=11)
    gen = np.random.default_rng(12)
    biased = []
    while len(biased) < n:
        owner = random_deals(gen, 1)[0]
        ln, hc = features(owner[None])
        if hc[0, 0].sum() < 10:
            continue
        north = owner == 0
        while True:  # keep North, re-deal the other 39 cards
            rest = gen.permutation(np.repeat(np.array([1, 2, 3], dtype=np.int8), 13))
            owner = owner.copy()
            owner[~north] = rest
            _, hc = features(owner[None])
            if hc[0, 2].sum() >= 14:
                biased.append(owner)
                break
    biased = np.array(biased)
    hcp_n = lambda o: features(o)[1][:, 0].sum(1)  # noqa: E731
    stat_ok, df_ok = homogeneity(hcp_n(mine), hcp_n(theirs))
    stat_bad, df_bad = homogeneity(hcp_n(biased), hcp_n(theirs))
    assert stat_ok <= critical_value(df_ok)
    assert stat_bad > critical_value(df_bad)


@pytest.mark.parametrize(
    "template, seat, lo, hi",
    [
        ("responder shape:balanced hcp:{h} Shcp:3+", 2, 10, 15),  # one seat
        ("fit:H8+ opener H:5+ hcp:{h}; responder H:3+ hcp:6-12 x:0-2 xhcp:0-3", 0, 12, 16),  # a partnership
    ],
)
def test_hcp_of_a_seat_follows_the_exact_counts(template, seat, lo, hi):
    """Goodness of fit of one seat's HCP against the exact conditional distribution (counts of
    the scenario with that HCP pinned; the counts are checked independently elsewhere)."""
    exact = {
        h: ScenarioSampler(dsl.parse_scenarios(template.format(h=h))[0]).probability.fraction for h in range(lo, hi + 1)
    }
    total = sum(exact.values())
    n = 20_000
    mine = ours(template.format(h=f"{lo}-{hi}"), n, seed=31)
    hcp = features(mine)[1][:, seat].sum(axis=1)
    stat = sum(((hcp == h).sum() - n * float(p / total)) ** 2 / (n * float(p / total)) for h, p in exact.items())
    assert stat <= critical_value(hi - lo)
