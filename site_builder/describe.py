"""Scenarios in plain words, for people: "Opener: 5+ hearts, 12-21 HCP"."""

from __future__ import annotations

from dsl.deck import ROLE_SEAT, SEAT_LETTERS, SUIT_NAMES
from dsl.format import format_range
from dsl.model import Fit, Position, Range, Role, Scenario, ShapeClass
ROLE_NAMES = {
    Role.OPENER: "Opener",
    Role.RESPONDER: "Responder",
    Role.OPP1: "Left-hand opponent",
    Role.OPP2: "Right-hand opponent",
}
SHAPE_WORDS = {
    ShapeClass.BALANCED: "balanced",
    ShapeClass.ONE_SUITER: "a one-suiter",
    ShapeClass.TWO_SUITER: "a two-suiter",
    ShapeClass.THREE_SUITER: "a three-suiter",
    ShapeClass.ANY: "any shape",
}


#: "5+", "0-1", "3": the DSL's own way of writing a range reads well in prose too.
amount = format_range


def _suit_hcp(suit_name: str, rng: Range) -> str:
    if rng.min == 0 and rng.max == 0:
        return f"no honour points in {suit_name}"
    return f"{amount(rng)} HCP in {suit_name}"


def describe_position(position: Position) -> str:
    parts = []
    for suit, rng in position.suits.items():
        parts.append(f"{amount(rng)} {SUIT_NAMES[suit]}")
    if position.x is not None or position.x_hcp is not None:
        article = "another suit" if position.named_suits else "a suit"
        text = article if position.x is None else f"{article} of {amount(position.x)} cards"
        if position.x_hcp is not None:
            honours = "no honour points" if position.x_hcp == Range(0, 0) else f"{amount(position.x_hcp)} HCP"
            text += f" with {honours} in it"
        parts.append(text)
    for suit, rng in position.suit_hcp.items():
        parts.append(_suit_hcp(SUIT_NAMES[suit], rng))
    if position.hcp is not None:
        parts.append(f"{amount(position.hcp)} HCP")
    if position.shape is not None:
        parts.append(SHAPE_WORDS[position.shape])
    return ", ".join(parts) if parts else "anything"


def describe_fit(fit: Fit) -> str:
    first, second = fit.pair.roles
    where = (
        SUIT_NAMES[fit.suit]
        if fit.suit is not None
        else f"cards in a {fit.suit_class.value}" if fit.suit_class is not None else "cards in one suit"
    )
    return f"{ROLE_NAMES[first]} and {ROLE_NAMES[second].lower()} together: {fit.min}+ {where}"


def describe(scenario: Scenario) -> list[str]:
    """One sentence per position (in seat order), then one per fit."""
    lines = [
        f"{ROLE_NAMES[p.role]} ({SEAT_LETTERS[ROLE_SEAT[p.role]]}): {describe_position(p)}"
        for p in sorted(scenario.positions, key=lambda p: ROLE_SEAT[p.role])
    ]
    lines += [describe_fit(f) for f in scenario.fits]
    return lines
