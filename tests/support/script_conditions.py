"""A script condition (`deals.scripts.condition`) read as the script languages read it, on a
deal: what the exported scripts are held to."""

from __future__ import annotations

from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.scripts.condition import All, Bound, Condition, Exactly, Kind, Measure, Shape
from bridgeshape_mirror.dsl.deck import SUIT_INDEX


def evaluate(c: Condition, deal: Deal) -> bool:
    if isinstance(c, Bound):
        total = sum(_measure(m, deal) for m in c.terms)
        return total >= c.value if c.at_least else total <= c.value
    if isinstance(c, Exactly):
        return _measure(c.measure, deal) == c.value
    if isinstance(c, Shape):  # the patterns and the bounds say the same
        by_bounds = evaluate(c.bounds, deal)
        assert by_bounds == (tuple(sorted(deal.hands[c.seat].lengths, reverse=True)) in c.patterns)
        return by_bounds
    if isinstance(c, All):
        return all(evaluate(p, deal) for p in c.parts)
    return any(evaluate(p, deal) for p in c.parts)


def _measure(m: Measure, deal: Deal) -> int:
    hand = deal.hands[m.seat]
    if m.kind is Kind.LENGTH:
        return hand.length(SUIT_INDEX[m.suit])
    return hand.hcp if m.suit is None else hand.suit_hcp(SUIT_INDEX[m.suit])
