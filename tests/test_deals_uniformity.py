"""Uniformity: our deals against plain shuffle-and-reject deals, by chi-square tests of
homogeneity on several statistics, with fixed seeds (stable results).

The rejection sampler, its filters and its statistics are written here with numpy's
Generator, sharing no code with `deals` beyond the scenario text. A sampler known to be
biased ("pick the wildcard suit at random, then deal") must fail the same test, which shows
the test can fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dsl
from deals.rng import make_rng
from deals.sampler import ScenarioSampler

HCP_OF_RANK = np.array([4, 3, 2, 1] + [0] * 9)


def random_deals(gen: np.random.Generator, n: int) -> np.ndarray:
    return gen.permuted(np.tile(np.repeat(np.arange(4, dtype=np.int8), 13), (n, 1)), axis=1)


def features(owner: np.ndarray):
    """lengths[n, seat, suit] and hcp[n, seat, suit]."""
    held = owner.reshape(-1, 1, 4, 13) == np.arange(4).reshape(1, 4, 1, 1)
    return held.sum(axis=3), (held * HCP_OF_RANK).sum(axis=3)


def rejection_sample(accept, n_target: int, seed: int) -> np.ndarray:
    gen = np.random.default_rng(seed)
    kept = []
    total = 0
    while total < n_target:
        owner = random_deals(gen, 100_000)
        ln, hc = features(owner)
        good = owner[accept(ln, hc)]
        kept.append(good)
        total += len(good)
    return np.concatenate(kept)[:n_target]


def ours(text: str, n: int, seed: int) -> np.ndarray:
    sampler = ScenarioSampler(dsl.parse_scenarios(text)[0])
    return np.concatenate(list(sampler.batches(n, make_rng(seed))))


def critical_value(df: int, z: float = 3.719) -> float:
    """Upper 1e-4 point of chi-square with df degrees of freedom (Wilson-Hilferty)."""
    c = 2 / (9 * df)
    return df * (1 - c + z * math.sqrt(c)) ** 3


def homogeneity(a: np.ndarray, b: np.ndarray) -> tuple[float, int]:
    """Chi-square statistic and degrees of freedom for two samples of category labels, with
    categories too rare for the test (expected < 5) pooled."""
    cats, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca = np.bincount(inv[: len(a)], minlength=len(cats)).astype(float)
    cb = np.bincount(inv[len(a) :], minlength=len(cats)).astype(float)
    order = np.argsort(ca + cb)
    na, nb = len(a), len(b)
    rows, acc_a, acc_b = [], 0.0, 0.0
    for i in order:  # pool the rarest categories until each pooled cell expects 5 or more
        acc_a += ca[i]
        acc_b += cb[i]
        tot = acc_a + acc_b
        if min(tot * na, tot * nb) / (na + nb) >= 5:
            rows.append((acc_a, acc_b))
            acc_a = acc_b = 0.0
    if acc_a + acc_b and rows:
        last = rows.pop()
        rows.append((last[0] + acc_a, last[1] + acc_b))
    obs = np.array(rows)
    if len(obs) < 2:
        return 0.0, 1
    tot = obs.sum(axis=1, keepdims=True)
    exp = tot * np.array([[na, nb]]) / (na + nb)
    return float(((obs - exp) ** 2 / exp).sum()), len(obs) - 1


def statistics(owner: np.ndarray, wildcard_seat: int, candidates, x_ok, xh_ok) -> dict[str, np.ndarray]:
    ln, hc = features(owner)
    hcp = hc.sum(axis=2)
    qualifying = np.zeros(len(owner), dtype=np.int64)
    for k in candidates:
        hit = x_ok(ln[:, wildcard_seat, k]) & xh_ok(hc[:, wildcard_seat, k])
        qualifying |= hit.astype(np.int64) << k
    out = {
        "hcp N": hcp[:, 0],
        "hcp E": hcp[:, 1],
        "hcp S": hcp[:, 2],
        "N hearts": ln[:, 0, 1],
        "S spades": ln[:, 2, 0],
        "E clubs": ln[:, 1, 3],
        "W diamonds": ln[:, 3, 2],
        "hcp W": hcp[:, 3],
        "longest E+W": (ln[:, 1] + ln[:, 3]).max(axis=1),
        "N pattern": np.sort(ln[:, 0], axis=1) @ np.array([1, 14, 196, 2744]),
        "SA holder": owner[:, 0],
        "HK holder": owner[:, 14],
        "DQ holder": owner[:, 28],
        "CJ holder": owner[:, 42],
        "S honours of N": (owner[:, 0:4] == 0) @ np.array([1, 2, 4, 8]),
    }
    if candidates:
        out["wildcard suits"] = qualifying
    return out


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
