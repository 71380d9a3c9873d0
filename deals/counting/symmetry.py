"""Suits a scenario treats alike, and counting one arrangement per orbit of them.

Two suits are alike when every seat has the same length range, per-suit HCP range and
wildcard candidacy in both, and every fit names both or neither. Permuting alike suits maps
the deals satisfying a scenario onto themselves, so a count over length vectors (or length
matrices) may take one arrangement per orbit, its columns in order within each class of
alike suits, times the number of distinct arrangements it stands for. The take-out double
and overcall examples treat all four suits alike: about 24 times less work.

Across scenarios: renaming the suits maps the deals of a scenario one to one onto those of
the renamed scenario (the four suits hold the same ranks), so both have the same count. A
wiki writes the same auction in several suits (a Cue-bid over 1H and over 1S): `canonical`
gives every renaming of a scenario one representative, under which its count is kept.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from math import factorial

import numpy as np

from ..rules.compiled import CompiledScenario, FitRule, PartRules, SeatRule


def suit_classes(compiled: CompiledScenario) -> list[list[int]]:
    """The classes of alike suits (0..3 = S H D C), each in increasing order."""
    signatures: dict = {}
    for k in range(4):
        signatures.setdefault(suit_signature(compiled, k), []).append(k)
    return list(signatures.values())


def suit_signature(compiled: CompiledScenario, k: int) -> tuple:
    """All the scenario says of suit k: two suits with the same signature are alike."""
    return _rules_signature(compiled.seat_rules, [fit for part in compiled.parts for fit in part.fits], k)


def _rules_signature(rules, fits, k: int) -> tuple:
    return tuple(
        (r.len_lo[k], r.len_hi[k], r.shcp_lo[k], r.shcp_hi[k], r.wildcard is not None and k in r.wildcard.candidates)
        for r in rules
    ) + tuple(k in fit.suits for fit in fits)


def representatives(columns: np.ndarray, classes: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """For `(n, 4)` per-suit codes (a suit's column of lengths, as one integer): which rows
    have their codes in order within each class, and how many arrangements each such row
    stands for (n! / product of run! over the runs of equal codes, per class)."""
    keep = np.ones(len(columns), dtype=bool)
    weight = np.ones(len(columns), dtype=np.int64)
    for suits in classes:
        c = columns[:, suits]
        keep &= (np.diff(c, axis=1) >= 0).all(axis=1)
        weight *= factorial(len(suits))
        run = np.ones(len(c), dtype=np.int64)
        for i in range(1, len(suits)):  # dividing by 2, 3, ... along a run divides by run!
            same = c[:, i] == c[:, i - 1]
            run = np.where(same, run + 1, 1)
            weight //= np.where(same, run, 1)
    return keep, weight


def _renamed_rule(rule: SeatRule, order: tuple[int, ...], where: dict[int, int]) -> SeatRule:
    w = rule.wildcard
    return replace(
        rule,
        len_lo=tuple(rule.len_lo[k] for k in order),
        len_hi=tuple(rule.len_hi[k] for k in order),
        shcp_lo=tuple(rule.shcp_lo[k] for k in order),
        shcp_hi=tuple(rule.shcp_hi[k] for k in order),
        wildcard=None if w is None else replace(w, candidates=tuple(sorted(where[k] for k in w.candidates))),
    )


def _renamed_part(part: PartRules, rules: tuple[SeatRule, SeatRule], where: dict[int, int]) -> PartRules:
    return PartRules(part.seats, rules, tuple(FitRule(tuple(sorted(where[k] for k in f.suits)), f.min) for f in part.fits))


def renamed(compiled: CompiledScenario, order: tuple[int, ...]) -> CompiledScenario:
    """The scenario with suit `order[j]` called suit j: the same deals, their suits renamed."""
    where = {old: new for new, old in enumerate(order)}
    rules = tuple(_renamed_rule(r, order, where) for r in compiled.seat_rules)
    parts = tuple(_renamed_part(p, (rules[p.seats[0]], rules[p.seats[1]]), where) for p in compiled.parts)
    return CompiledScenario(rules, parts, compiled.written)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=1024)  # a build asks for each of its scenarios, most many times
def canonical(compiled: CompiledScenario) -> CompiledScenario:
    """One representative of the scenario's suit renamings (the same count): its suits in
    the order of their signatures (`suit_signature`). A renaming has the same signatures, on
    other suits, so it gets the same order of them, and the signatures in order are the
    whole scenario but what no suit is named in (alike suits: either order, one result)."""
    order = canonical_order(compiled)
    return compiled if order == (0, 1, 2, 3) else renamed(compiled, order)


def canonical_order(compiled: CompiledScenario) -> tuple[int, ...]:
    """The order `canonical` renames by: its suit j is suit `order[j]` of the scenario."""
    return tuple(sorted(range(4), key=lambda k: suit_signature(compiled, k)))


@functools.lru_cache(maxsize=1024)
def canonical_part(part: PartRules) -> tuple[PartRules, tuple[int, ...]]:
    """`canonical` for one partnership's rules: (the representative, `order`: its suit j
    is suit `order[j]` of `part`)."""
    order = tuple(sorted(range(4), key=lambda k: _rules_signature(part.rules, part.fits, k)))
    where = {old: new for new, old in enumerate(order)}
    rules = (_renamed_rule(part.rules[0], order, where), _renamed_rule(part.rules[1], order, where))
    return _renamed_part(part, rules, where), order
