"""Exact draws from the union of a scenario's cover terms: its disjunctions over several
suits each pinned to one of their suits.

A disjunction over several suits (`column_products.over_several_suits`: a wildcard `x:5+`,
`x:5+ xhcp:4+`, a fit `fit:9+`) holds when one of its suits passes: the scenario S is the
union of the terms T that pin each such disjunction to one of its suits (opener S:5+ | H:5+
| D:5+ | C:5+ and so on: a product of the disjunctions' suits, 64 terms for benchmark E's
three). A term has no disjunction over several suits left (a pinned wildcard is a length
range on its suit, and with an HCP part an HCP range there too; a pinned fit is a fit in
one suit), so it is its own positive column-products term, drawn exactly by
`deals.drawing.column_draw` and counted by it.

Draw a term with probability |T| / sum |T| (`deals.drawing.exact_choice`: the counts pass int64),
a deal uniformly in it, and keep it with probability 1 / m(deal), m the number of terms
holding the deal (the product over the disjunctions of how many of their suits the deal
passes). A deal d of S comes out with probability sum over the m(d) terms holding it of
(|T| / sum |T|) (1 / |T|) (1 / m(d)) = 1 / sum |T|: uniform over S, with acceptance
|S| / sum |T|, which is high when the disjunctions' suits rarely hold together (two
six-card suits in one hand, two fits of nine).

Terms equal up to an order of the suits share their tables: each term is brought to the
canonical order of its class (its suits sorted by what the rules say of each), the class's
tables are built once, and a deal drawn there gets the term's order of suits back. Terms
the seats contradict are left out (`deals.counting.feasibility`): benchmark E's 64 are 48, in 3
classes; a scenario naming a suit (`opener S:3+ x:5+`) has fewer shared.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from math import prod

import numpy as np

from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT

from .column_draw import MAX_DRAW_BYTES, ColumnDraw, column_draw
from ..counting.column_products import counts, over_several_suits
from .exact_choice import BigChoice
from ..counting.feasibility import joint_contradiction
from .rng import Rng
from ..rules.compiled import CompiledScenario, FitRule, PartRules, SeatRule
from .sampler import seat_features
from ..counting.symmetry import canonical_order, renamed, suit_signature

#: The most terms (the product of the disjunctions' suits) the union is tried with.
MAX_TERMS = 256
#: Rows of a batch for the class drawn most (the sampler's batch for one column draw).
ROWS_PER_CLASS = 16384
_SUITS = 4


class UnionDraw:
    """The drawing tables of a scenario's cover terms (see the module docstring)."""

    def __init__(self, compiled: CompiledScenario, terms: list[CompiledScenario], draws: dict[tuple, ColumnDraw]):
        self.compiled = compiled
        self.terms = terms
        orders, keys = [], []
        for term in terms:
            key, order, _ = _canonical(term)
            keys.append(key)
            orders.append(order)
        names = sorted(draws)
        self._draws = [draws[k] for k in names]
        self._class = np.array([names.index(k) for k in keys], dtype=np.int64)
        self._order = np.array(orders, dtype=np.int64)  # term t's suit k is its class's suit order[t][k]
        counts = [self._draws[c].count for c in self._class.tolist()]
        #: sum |T| over the terms: the deals, with repeats, that the proposals come from
        self.count = sum(counts)
        self._choice = BigChoice(counts) if self.count else None
        # the class drawn most gets about `ROWS_PER_CLASS` rows of a batch: the column draw
        # lays out each distinct segment once a call, so its calls should not shrink
        shares = [0] * len(self._draws)
        for c, n in zip(self._class.tolist(), counts):
            shares[c] += n
        #: Rows the sampler asks of it at a time.
        self.batch: int | None = int(ROWS_PER_CLASS * self.count / max(shares)) if self.count else ROWS_PER_CLASS

    @property
    def classes(self) -> int:
        return len(self._draws)

    def draw(self, n: int, rng: Rng) -> np.ndarray:
        """Up to `n` rows `(rows, 52)` int8, each uniform over the scenario, independent: the
        `n` proposals less those the 1 / m test drops."""
        if self._choice is None:
            raise ValueError("no deal passes the scenario")
        term = self._choice.draw(n, rng)
        owner = np.empty((n, _SUITS, CARDS_PER_SUIT), dtype=np.int8)
        which = self._class[term]
        for c in np.unique(which).tolist():
            rows = np.flatnonzero(which == c)
            drawn = self._draws[c].draw(len(rows), rng).reshape(-1, _SUITS, CARDS_PER_SUIT)
            owner[rows] = drawn[np.arange(len(rows))[:, None], self._order[term[rows]]]
        owner = owner.reshape(n, _SUITS * CARDS_PER_SUIT)
        held = terms_holding(self.compiled, owner)
        return owner[rng.below(held) == 0]


def class_count(compiled: CompiledScenario, max_classes: int) -> int:
    """How many classes of tables the union needs (in milliseconds, no table built): 0 when
    the scenario has no disjunction over several suits, is not counted by the column
    products, has more than `MAX_TERMS` terms or more than `max_classes` classes."""
    classes = _classes(compiled)
    return 0 if classes is None or len(classes[1]) > max_classes else len(classes[1])


def _classes(compiled: CompiledScenario):
    """(the cover terms, their classes: key -> the class's term), or None (see `class_count`)."""
    pins = _pins(compiled)
    if not counts(compiled) or not pins or prod(map(len, pins)) > MAX_TERMS:
        return None
    terms = cover_terms(compiled)
    classes: dict[tuple, CompiledScenario] = {}
    for term in terms:
        key, _, canonical = _canonical(term)
        classes.setdefault(key, canonical)
    return terms, classes


def union_draw(compiled: CompiledScenario, max_classes: int) -> UnionDraw | None:
    """The union's tables, or None when `class_count` says 0 or a class's tables are not
    drawn by `deals.drawing.column_draw` (past its budgets), or all of them together would weigh
    more than one column draw may (`column_draw.MAX_DRAW_BYTES`)."""
    found = _classes(compiled)
    if found is None or not found[1] or len(found[1]) > max_classes:
        return None
    terms, classes = found
    draws, weight = {}, 0
    for key, canonical in classes.items():
        draw = column_draw(canonical)
        if draw is None:
            return None
        weight += draw.nbytes
        if weight > MAX_DRAW_BYTES:
            return None
        draws[key] = draw
    return UnionDraw(compiled, terms, draws)


def _pins(compiled: CompiledScenario) -> list[list[tuple[str, int, int, int]]]:
    """Per disjunction over several suits, the ways to pin it: (seat, seat index, 0, suit)
    for a wildcard, (fit, partnership, fit index, suit) for a fit; their product is the
    terms before the empty ones are left out."""
    choices: list[list[tuple[str, int, int, int]]] = []
    for seat, rule in enumerate(compiled.seat_rules):
        if over_several_suits(rule):
            assert rule.wildcard is not None
            choices.append([("seat", seat, 0, k) for k in rule.wildcard.candidates])
    for p, part in enumerate(compiled.parts):
        for f, fit in enumerate(part.fits):
            if over_several_suits(fit):
                choices.append([("fit", p, f, k) for k in fit.suits])
    return choices


def cover_terms(compiled: CompiledScenario) -> list[CompiledScenario]:
    """The terms: every way to pin each disjunction over several suits to one of its suits,
    those that no deal can pass (an empty range, or a contradiction between the seats:
    `deals.counting.feasibility.joint_contradiction`) left out."""
    rules = compiled.seat_rules
    terms = []
    for pins in product(*_pins(compiled)):
        seat_rules = list(rules)
        fits = [list(part.fits) for part in compiled.parts]
        for kind, i, f, k in pins:
            if kind == "seat":
                seat_rules[i] = _pinned(seat_rules[i], k)
            else:
                fits[i][f] = FitRule((k,), fits[i][f].min)
        if any(any(lo > hi for lo, hi in zip(r.len_lo, r.len_hi)) or any(lo > hi for lo, hi in zip(r.shcp_lo, r.shcp_hi)) for r in seat_rules):
            continue
        parts = tuple(
            PartRules(part.seats, (seat_rules[part.seats[0]], seat_rules[part.seats[1]]), tuple(fit))
            for part, fit in zip(compiled.parts, fits)
        )
        term = CompiledScenario(tuple(seat_rules), parts, compiled.written)  # type: ignore[arg-type]
        if joint_contradiction(term) is None:  # E's opener S:5+ and defence fit:S9+: no tables for it
            terms.append(term)
    return terms


def terms_holding(compiled: CompiledScenario, owner: np.ndarray) -> np.ndarray:
    """`(n,)` int64: how many cover terms hold each deal of the scenario (every one holds at
    least one): per disjunction over several suits, how many of its suits the deal passes."""
    held = np.ones(owner.shape[0], dtype=np.int64)
    features = {}

    def of(seat: int) -> tuple[np.ndarray, np.ndarray]:
        if seat not in features:
            features[seat] = seat_features(owner, seat)
        return features[seat]

    for seat, rule in enumerate(compiled.seat_rules):
        if over_several_suits(rule):
            w = rule.wildcard
            assert w is not None
            lengths, hcp = of(seat)
            hit = rule.wildcard_lengths(lengths)
            if rule.hcp_wildcard:
                hit &= (hcp >= w.xh_lo) & (hcp <= w.xh_hi)
            held *= hit.sum(axis=1)
    for part in compiled.parts:
        for fit in part.fits:
            if over_several_suits(fit):
                combined = of(part.seats[0])[0] + of(part.seats[1])[0]
                held *= (combined[:, list(fit.suits)] >= fit.min).sum(axis=1)
    return held


def _pinned(rule: SeatRule, suit: int) -> SeatRule:
    """The rule with its wildcard pinned to `suit`: the wildcard's ranges met there."""
    w = rule.wildcard
    assert w is not None
    len_lo, len_hi, shcp_lo, shcp_hi = (list(t) for t in (rule.len_lo, rule.len_hi, rule.shcp_lo, rule.shcp_hi))
    len_lo[suit], len_hi[suit] = max(len_lo[suit], w.x_lo), min(len_hi[suit], w.x_hi)
    if rule.hcp_wildcard:
        shcp_lo[suit], shcp_hi[suit] = max(shcp_lo[suit], w.xh_lo), min(shcp_hi[suit], w.xh_hi)
    return replace(
        rule, len_lo=tuple(len_lo), len_hi=tuple(len_hi), shcp_lo=tuple(shcp_lo), shcp_hi=tuple(shcp_hi), wildcard=None
    )


def _canonical(term: CompiledScenario) -> tuple[tuple, tuple[int, ...], CompiledScenario]:
    """The term's class: (its key, the order that takes the term to it, the class's term).
    The terms of one scenario differ only suit by suit, so a class is the list of the
    suits' signatures in `deals.counting.symmetry`'s canonical order, and the class's term is the
    term renamed to that order; `order[k]` is where the term's suit k goes."""
    ranked = canonical_order(term)
    order = tuple(ranked.index(k) for k in range(_SUITS))
    return tuple(suit_signature(term, k) for k in ranked), order, renamed(term, ranked)
