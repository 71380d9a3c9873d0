"""Does a deal satisfy a scenario? Written straight from SEMANTICS section 3, card by card,
sharing no code with the compiled rules the sampler uses, so tests can hold one against the
other.
"""

from __future__ import annotations

from bridgeshape_mirror.dsl.deck import SUIT_INDEX
from bridgeshape_mirror.dsl.model import SUITS, Range, Scenario, ShapeClass

from ..boards.cards import Deal, Hand
from .handled import Handles

#: The fields `violations` checks, each below.
PREDICATE = Handles("the predicate")


def shape_class(lengths: tuple[int, ...]) -> ShapeClass:
    """The class of a hand pattern, from SEMANTICS 3."""
    a, b, c, d = sorted(lengths, reverse=True)
    if (a, b, c, d) in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2)):
        return ShapeClass.BALANCED
    if c >= 4:
        return ShapeClass.THREE_SUITER
    if a >= 5 and b >= 4 and c <= 3:
        return ShapeClass.TWO_SUITER
    if a >= 6 and b <= 3:
        return ShapeClass.ONE_SUITER
    raise AssertionError(f"pattern {a}{b}{c}{d} has no class")


def _within(r: Range | None, value: int) -> bool:
    return r is None or r.contains(value)


def violations(deal: Deal, scenario: Scenario) -> list[str]:
    """What the deal gets wrong, in words (empty when it satisfies the scenario)."""
    problems = []
    if not deal.is_legal:
        return ["not a legal deal"]
    PREDICATE.refuse(scenario)
    for position in scenario.positions:
        hand: Hand = deal.role_hand(position.role)
        who = position.role.value
        length = {s: hand.length(SUIT_INDEX[s]) for s in SUITS}
        points = {s: hand.suit_hcp(SUIT_INDEX[s]) for s in SUITS}
        for suit, r in position.suits.items():
            if not r.contains(length[suit]):
                problems.append(f"{who} has {length[suit]} {suit.value}")
        for suit, r in position.suit_hcp.items():
            if not r.contains(points[suit]):
                problems.append(f"{who} has {points[suit]} HCP in {suit.value}")
        if not _within(position.hcp, hand.hcp):
            problems.append(f"{who} has {hand.hcp} HCP")
        if position.shape not in (None, ShapeClass.ANY):
            actual = shape_class(tuple(length[s] for s in SUITS))
            if actual is not position.shape:
                problems.append(f"{who} is {actual.value}, not {position.shape.value}")
        if position.has_wildcard:
            fit_suits = {f.suit for f in scenario.fits_of(position.role.pair) if f.suit is not None}
            candidates = [s for s in SUITS if s not in position.named_suits and s not in fit_suits]
            if not any(_within(position.x, length[s]) and _within(position.x_hcp, points[s]) for s in candidates):
                problems.append(f"{who} has no wildcard suit among {''.join(s.value for s in candidates) or 'none'}")
    for fit in scenario.fits:
        first, second = (deal.role_hand(role) for role in fit.pair.roles)
        best = max(first.length(SUIT_INDEX[s]) + second.length(SUIT_INDEX[s]) for s in fit.candidate_suits())
        if best < fit.min:
            problems.append(f"{fit.pair.value} fit of {fit.min} missing (best {best})")
    return problems


def satisfies(deal: Deal, scenario: Scenario) -> bool:
    return not violations(deal, scenario)
