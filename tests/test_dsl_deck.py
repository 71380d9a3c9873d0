"""The deck's facts that the DSL bounds and the deals rely on (SEMANTICS 1 and 3)."""

from __future__ import annotations

from bridgeshape_mirror.dsl.deck import (
    CARDS_PER_SUIT,
    DECK_CARDS,
    DECK_HCP,
    HONOUR_HCP_OF_LETTER,
    MAX_HAND_HCP,
    MAX_SUIT_HCP,
    PAIR_SEATS,
    RANK_HCP,
    ROLE_SEAT,
    SEAT_LETTERS,
    SEAT_ROLE,
)
from bridgeshape_mirror.dsl.model import Role


def test_bounds_are_those_of_semantics():
    assert (CARDS_PER_SUIT, DECK_CARDS, MAX_SUIT_HCP, MAX_HAND_HCP, DECK_HCP) == (13, 52, 10, 37, 40)


def test_milton_work_points():
    assert HONOUR_HCP_OF_LETTER == {"A": 4, "K": 3, "Q": 2, "J": 1}
    assert len(RANK_HCP) == CARDS_PER_SUIT and sum(RANK_HCP) == MAX_SUIT_HCP


def test_opener_north_opp1_east_responder_south_opp2_west():
    seats = {role: SEAT_LETTERS[seat] for role, seat in ROLE_SEAT.items()}
    assert seats == {Role.OPENER: "N", Role.OPP1: "E", Role.RESPONDER: "S", Role.OPP2: "W"}
    assert all(ROLE_SEAT[SEAT_ROLE[seat]] == seat for seat in range(4))
    assert PAIR_SEATS == ((0, 2), (1, 3))
