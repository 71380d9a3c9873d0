"""Uniformity checks shared by the sampler's tests: deals by rejection from random deals and
their features, chi-square and homogeneity tests against critical values, and the exact
draws' helpers (a sampler built on one draw, the deals it deals)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.rules.predicate import satisfies
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.rules.compiled import compile_scenario
from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler


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


def chi_square(observed: Counter, expected: dict) -> tuple[float, int]:
    stat = sum((observed.get(k, 0) - e) ** 2 / e for k, e in expected.items())
    return stat, len(expected) - 1


def sampler_of(text: str) -> ScenarioSampler:
    return ScenarioSampler(dsl.parse_scenarios(text)[0])


def dealt(sampler: ScenarioSampler, n: int, seed: int) -> np.ndarray:
    return np.concatenate(list(sampler.batches(n, make_rng(seed))))


def inhomogeneous(mine: np.ndarray, theirs: np.ndarray) -> list[str]:
    """The statistics of the uniformity tests on which two samples of deals differ (a
    chi-square test of homogeneity each, at its 1e-4 point)."""
    sa = statistics(mine, 0, (), lambda l: l >= 0, lambda h: h >= 0)
    sb = statistics(theirs, 0, (), lambda l: l >= 0, lambda h: h >= 0)
    failures = []
    for name in sa:
        stat, df = homogeneity(sa[name], sb[name])
        if stat > critical_value(df):
            failures.append(f"{name}: chi2 {stat:.1f} > {critical_value(df):.1f} (df {df})")
    return failures


def compiled_of(text: str):
    return compile_scenario(dsl.parse_scenarios(text)[0])


#: Small decks: (suits, HCP of the honour ranks, spots per suit, cards per hand).
SMALL_DECKS = [(2, (2, 1), 2, 2), (2, (3, 2, 1), 1, 2), (4, (2, 1), 1, 3)]


def seat_bounds(data, deck) -> list[tuple[int, int]]:
    """Four seats' HCP bounds drawn by hypothesis within a small deck's total."""
    suits, honour_hcp, _, _ = deck
    top = sum(honour_hcp) * suits
    bounds = []
    for _ in range(4):
        lo = data.draw(st.integers(0, top))
        bounds.append((lo, data.draw(st.integers(lo, top))))
    return bounds


def drawn_by(text: str, kind: type, below: float) -> np.ndarray:
    """3,000 deals of a scenario of probability below `below` that the sampler draws by
    `kind` with nothing left to check: each satisfies it, and the same seed deals them again."""
    sampler = sampler_of(text)
    assert sampler.probability.value < below
    rows = dealt(sampler, 3000, 5)
    assert isinstance(sampler.exact_draw, kind) and sampler.proposes_scenario
    scenario = dsl.parse_scenarios(text)[0]
    assert all(satisfies(Deal.from_seat_of_card(row), scenario) for row in rows.tolist())
    assert np.array_equal(rows, dealt(sampler_of(text), 3000, 5))
    return rows
