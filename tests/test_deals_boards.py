"""Board numbering, dealer, vulnerability and the turn of a deal (SEMANTICS 5)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridgeshape_mirror.deals.boards.board import (
    board,
    board_numbers,
    dealers_and_vulnerabilities,
    page_boards,
)
from bridgeshape_mirror.dsl.model import Role

# The 16-board cycle as hand records print it, written out independently of the module.
STANDARD = {
    1: ("N", "None"), 2: ("E", "NS"), 3: ("S", "EW"), 4: ("W", "All"),
    5: ("N", "NS"), 6: ("E", "EW"), 7: ("S", "All"), 8: ("W", "None"),
    9: ("N", "EW"), 10: ("E", "All"), 11: ("S", "None"), 12: ("W", "NS"),
    13: ("N", "All"), 14: ("E", "None"), 15: ("S", "NS"), 16: ("W", "EW"),
}  # fmt: skip

DEAL = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"


@pytest.mark.parametrize("number", range(1, 34))
def test_dealer_and_vulnerability_follow_the_cycle(number):
    b = board(number)
    assert (b.dealer_letter, b.vulnerable) == STANDARD[(number - 1) % 16 + 1]


def test_the_opener_sits_at_the_dealer_seat_and_keeps_its_hand():
    for number, letters in ((1, "NESW"), (2, "ESWN"), (3, "SWNE"), (4, "WNES")):
        b = board(number)
        turned = b.turn(DEAL)
        assert turned[0] == letters[0] and turned[1:] == DEAL[1:]
        # opener, opp1, responder, opp2 clockwise from the dealer
        assert [b.seat_of(role) for role in (Role.OPENER, Role.OPP1, Role.RESPONDER, Role.OPP2)] == [
            "NESW".index(letter) for letter in letters
        ]


def test_vulnerability_by_role():
    b = board(2)  # dealer East, NS vulnerable: the opener (East) is not, its opponents are
    assert not b.is_vulnerable(Role.OPENER) and not b.is_vulnerable(Role.RESPONDER)
    assert b.is_vulnerable(Role.OPP1) and b.is_vulnerable(Role.OPP2)
    assert all(board(4).is_vulnerable(role) for role in Role)
    assert not any(board(1).is_vulnerable(role) for role in Role)


def test_only_opener_north_deals_turn_and_boards_start_at_one():
    with pytest.raises(ValueError):
        board(2).turn("E" + DEAL[1:])
    with pytest.raises(ValueError):
        board(0)


def test_scenarios_take_turns_and_drop_out_when_used_up():
    boards = page_boards([(1, "a", ["a0", "a1", "a2"]), (2, "b", ["b0"]), (3, "c", []), (4, "d", ["d0", "d1"])])
    assert [(d.board.number, d.scenario, d.deal_index, d.pbn) for d in boards] == [
        (1, 1, 0, "a0"), (2, 2, 0, "b0"), (3, 4, 0, "d0"),
        (4, 1, 1, "a1"), (5, 4, 1, "d1"),
        (6, 1, 2, "a2"),
    ]  # fmt: skip
    assert boards[1].label == "b"
    assert page_boards([]) == () and page_boards([(1, "x", [])]) == ()


def scenarios_in_turn(counts):
    """SEMANTICS 5's numbering told as a loop: scenarios in turn, one deal each, until all are out."""
    out, number, left = [[] for _ in counts], 1, list(counts)
    while any(left):
        for numbers, i in zip(out, range(len(counts))):
            if left[i]:
                numbers.append(number)
                number, left[i] = number + 1, left[i] - 1
    return out


@given(st.lists(st.integers(min_value=0, max_value=40), max_size=8))
def test_board_numbers_are_the_scenarios_in_turn(counts):
    assert board_numbers(counts) == scenarios_in_turn(counts)


@given(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=8), st.data())
def test_the_board_numbers_of_a_streamed_batch_are_the_scenarios_in_turn(counts, data):
    """The `deals` command numbers each batch of a scenario as it is dealt, from the counts
    alone (`deals.formats.stream.deal_boards`)."""
    from bridgeshape_mirror.deals.formats.stream import deal_boards

    place = data.draw(st.integers(0, len(counts) - 1))
    start = data.draw(st.integers(0, counts[place]))
    stop = data.draw(st.integers(start, counts[place]))
    assert deal_boards(counts, place, start, stop).tolist() == scenarios_in_turn(counts)[place][start:stop]


def test_dealers_and_vulnerabilities_of_many_boards_follow_the_cycle():
    numbers = list(range(1, 50)) + [100_000, 7, 16]
    assert dealers_and_vulnerabilities(numbers) == [STANDARD[(n - 1) % 16 + 1] for n in numbers]
