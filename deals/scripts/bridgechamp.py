"""A condition (`condition.py`) as a Bridge Champ expression (SEMANTICS 9; its language is
`../shared/spec/bridgechamp-expression-dsl.txt`), seats as SEMANTICS 3 has them.

The language counts lengths and HCP by seat or pair but has no HCP of one suit: a suit's HCP
range is said by which of its honours the hand holds (spot cards count 0), as a disjunction of
`includeCards`/`excludeCards` over A K Q J. A fit's combined length is the pair's count
(`spades(ns)`), a shape class the language's `shape()` where that is shorter than its bounds.
Wildcards and fits of a class are already disjunctions in the condition. The
language has no constant: a condition every deal meets is `hcp(north) >= 0`, one none meets
`hcp(north) < 0` (a wildcard with no candidate left), each exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from bridgeshape_mirror.dsl.deck import HONOUR_HCP, MAX_SUIT_HCP, PAIR_SEATS, RANK_LETTERS
from bridgeshape_mirror.dsl.model import Suit

from ..rules.handled import Handles
from .condition import All, Bound, Condition, Exactly, Kind, Measure, Shape
from .words import SUIT_WORDS, Header, comment, seat_word, shape_list

#: The fields this export says (through `condition.py`, and its honours for a suit's HCP).
BRIDGE_CHAMP = Handles("the Bridge Champ export")

HONOURS = RANK_LETTERS[: len(HONOUR_HCP)]
ALWAYS = "hcp(north) >= 0"
NEVER = "hcp(north) < 0"
PAIR_WORDS = {frozenset(seats): word for seats, word in zip(PAIR_SEATS, ("ns", "ew"))}


@dataclass(frozen=True)
class _And:
    parts: tuple[_Node, ...]


@dataclass(frozen=True)
class _Or:
    parts: tuple[_Node, ...]


_Node = str | _And | _Or
_TRUE, _FALSE = _And(()), _Or(())


def _all(parts: list[_Node]) -> _Node:
    flat: list[_Node] = []
    for p in parts:
        if p == _FALSE:
            return _FALSE
        flat += p.parts if isinstance(p, _And) else [p]
    return flat[0] if len(flat) == 1 else _And(tuple(flat))


def _any(parts: list[_Node]) -> _Node:
    flat: list[_Node] = []
    for p in parts:
        if p == _TRUE:
            return _TRUE
        flat += p.parts if isinstance(p, _Or) else [p]
    return flat[0] if len(flat) == 1 else _Or(tuple(flat))


def _points(held: str) -> int:
    return sum(HONOUR_HCP[HONOURS.index(r)] for r in held)


def _honour_sets() -> Iterator[str]:
    for n in range(len(HONOURS) + 1):
        yield from ("".join(c) for c in combinations(HONOURS, n))


def suit_points(seat: int, suit: Suit, low: int, high: int) -> _Node:
    """`low <= HCP of suit <= high` as the honours held: with a floor only, "holds at least
    one of the smallest sets reaching it"; with a ceiling only, "misses at least one of the
    complements of the largest sets within it"; with both, the sets within, each exactly."""
    where = f"{seat_word(seat)}, {SUIT_WORDS[suit.value]}"

    def holds(ranks: str) -> list[_Node]:
        return [f"includeCards({where}, {ranks})"] if ranks else []

    def misses(ranks: str) -> list[_Node]:
        return [f"excludeCards({where}, {ranks})"] if ranks else []

    def rest(held: str) -> str:
        return "".join(r for r in HONOURS if r not in held)

    sets = list(_honour_sets())
    if low <= 0 and high >= MAX_SUIT_HCP:
        return _TRUE
    if high >= MAX_SUIT_HCP:
        least = [h for h in sets if _points(h) >= low and all(_points(h.replace(r, "")) < low for r in h)]
        return _any([_all(holds(h)) for h in least])
    if low <= 0:
        most = [h for h in sets if _points(h) <= high and all(_points(h + r) > high for r in rest(h))]
        return _any([_all(misses(rest(h))) for h in most])
    return _any([_all(holds(h) + misses(rest(h))) for h in sets if low <= _points(h) <= high])


def _count(m: Measure) -> str:
    if m.kind is Kind.LENGTH:
        assert m.suit is not None
        return f"{SUIT_WORDS[m.suit.value]}({seat_word(m.seat)})"
    assert m.suit is None  # a suit's HCP is said by its honours
    return f"hcp({seat_word(m.seat)})"


def _linear(terms: tuple[Measure, ...]) -> str:
    pair = PAIR_WORDS.get(frozenset(t.seat for t in terms))
    if pair is not None and len(terms) == 2 and len({(t.kind, t.suit) for t in terms}) == 1:
        word = _count(terms[0]).split("(")[0]
        return f"{word}({pair})"
    return " + ".join(_count(t) for t in terms)


def _flat(c: All) -> list[Condition]:
    return [q for p in c.parts for q in (_flat(p) if isinstance(p, All) else [p])]


def _one_range(c: Condition) -> tuple[Measure, int, int] | None:
    """A bound or value of one measure, as the measure and its range."""
    if isinstance(c, Exactly):
        return c.measure, c.value, c.value
    if isinstance(c, Bound) and len(c.terms) == 1:
        m = c.terms[0]
        return (m, c.value, m.most) if c.at_least else (m, 0, c.value)
    return None


def _range_node(m: Measure, low: int, high: int) -> _Node:
    if m.kind is Kind.HCP and m.suit is not None:
        return suit_points(m.seat, m.suit, low, high)
    if low > high:
        return _FALSE
    if low == high:
        return f"{_count(m)} == {low}"
    return _all(([f"{_count(m)} >= {low}"] if low > 0 else []) + ([f"{_count(m)} <= {high}"] if high < m.most else []))


def _node(c: Condition) -> _Node:
    one = _one_range(c)
    if one is not None:
        return _range_node(*one)
    if isinstance(c, Bound):
        return f"{_linear(c.terms)} {'>=' if c.at_least else '<='} {c.value}"
    if isinstance(c, Shape):
        bounds = _node(c.bounds)
        listed = shape_list(c.patterns)
        short = None if listed is None else f"shape({seat_word(c.seat)}, {listed})"
        return bounds if short is None or len(short) >= len(text(bounds)) else short
    if not isinstance(c, All):
        return _any([_node(p) for p in c.parts])
    # In one "all", the bounds on one measure are its range: a suit's HCP range is one set of
    # honour holdings, and a range of one value is `==`.
    parts = _flat(c)
    ranges: dict[Measure, tuple[int, int]] = {}
    for p in parts:
        one = _one_range(p)
        if one is not None:
            m, low, high = one
            was = ranges.get(m, (0, m.most))
            ranges[m] = (max(was[0], low), min(was[1], high))
    out: list[_Node] = []
    for p in parts:
        one = _one_range(p)
        if one is None:
            out.append(_node(p))
        elif one[0] in ranges:  # said once, with the first bound on it
            out.append(_range_node(one[0], *ranges.pop(one[0])))
    return _all(out)


def _text(n: _Node, indent: str) -> str:
    """`n`'s parts one a line at `indent`, a part of several in parentheses."""
    if isinstance(n, str):
        return n
    joiner = " and\n" if isinstance(n, _And) else " or\n"
    return joiner.join(indent + _wrapped(p, indent) for p in n.parts)


def _wrapped(n: _Node, indent: str) -> str:
    if isinstance(n, str):
        return n
    return "(\n" + _text(n, indent + "  ") + "\n" + indent + ")"


def expression(condition: Condition) -> str:
    """The condition as one Bridge Champ expression (no comment)."""
    return text(_node(condition))


def text(n: _Node) -> str:
    """A part of an expression (`suit_points`'s) as an expression."""
    if n == _TRUE:
        return ALWAYS
    if n == _FALSE:
        return NEVER
    return _text(n, "")


def bridgechamp_script(condition: Condition, header: Header) -> str:
    note = Header(
        header.lines
        + ("Bridge Champ solves it repeatedly (CP-SAT): its solutions satisfy the scenario but are not a uniform sample of its deals",)
    )
    return comment(note) + "\n" + expression(condition) + "\n"

