"""Duplicate boards (SEMANTICS 5): a page's deals numbered 1..n, each board with the standard
dealer and vulnerability, the deal turned so that the opener sits at the dealer's seat.

Board n is dealt by N, E, S, W for n mod 4 = 1, 2, 3, 0, and its vulnerability is the n-th
of the 16-board cycle every duplicate club uses (boards 17.. repeat it). A page's boards
take its scenarios in turn (1, 2, 3, 1, 2, 3, ...), so a practice set does not come in
clusters; a scenario with fewer deals drops out of the turn when it has none left.

The deals are PBN deal strings with the opener North (`N:` + opener, opp1, responder,
opp2), as the JSON publishes them. Turned to a board, the same four hands clockwise start
at the dealer's seat: only the first letter changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bridgeshape_mirror.dsl.deck import ROLE_SEAT, SEAT_LETTERS
from bridgeshape_mirror.dsl.model import Role

#: Vulnerability, as PBN's `[Vulnerable]` spells it, of boards 1..16.
VULNERABILITY_CYCLE = (
    "None", "NS", "EW", "All",
    "NS", "EW", "All", "None",
    "EW", "All", "None", "NS",
    "All", "None", "NS", "EW",
)  # fmt: skip


@dataclass(frozen=True)
class Board:
    """Board `number` (from 1): its dealer's seat (0..3 = N E S W) and vulnerability."""

    number: int
    dealer: int
    vulnerable: str

    @property
    def dealer_letter(self) -> str:
        return SEAT_LETTERS[self.dealer]

    def seat_of(self, role: Role) -> int:
        """The seat `role` sits at on this board (the opener is the dealer)."""
        return (ROLE_SEAT[role] + self.dealer) % 4

    def is_vulnerable(self, role: Role) -> bool:
        seat = self.seat_of(role)
        return self.vulnerable == "All" or self.vulnerable == ("NS" if seat % 2 == 0 else "EW")

    def turn(self, pbn: str) -> str:
        """The opener-North PBN deal string `pbn`, with the opener at this board's dealer seat."""
        if not pbn.startswith("N:"):
            raise ValueError(f"a deal to turn starts with N: (the opener North), not {pbn[:2]!r}")
        return self.dealer_letter + pbn[1:]


def board(number: int) -> Board:
    if number < 1:
        raise ValueError(f"boards are numbered from 1, not {number}")
    return Board(number, (number - 1) % 4, VULNERABILITY_CYCLE[(number - 1) % 16])


@dataclass(frozen=True)
class BoardDeal:
    """One deal of a page as a board: its board, its scenario (number from 1, and label),
    its place among that scenario's deals (from 0), and the deal with the opener North."""

    board: Board
    scenario: int
    label: str
    deal_index: int
    pbn: str

    @property
    def board_pbn(self) -> str:
        return self.board.turn(self.pbn)

    def json_fields(self) -> dict[str, int | str]:
        """What a deal of the deals JSON says of its board, after its `pbn`."""
        b = self.board
        return {"board": b.number, "dealer": b.dealer_letter, "vulnerable": b.vulnerable, "board_pbn": self.board_pbn}


@dataclass(frozen=True)
class BoardRun:
    """Deals `depth` up to `limit` (from 0) of `scenarios` scenarios taking turns: the deal at
    depth d of the one at `rank` (from 0) among them is on board
    `first + (d - depth) * scenarios + rank`, and the run's boards are consecutive."""

    depth: int
    limit: int
    scenarios: int
    first: int


def board_runs(counts: Sequence[int]) -> list[BoardRun]:
    """The runs of boards of scenarios with `counts` deals: scenarios in turn, each giving its
    next deal, until every one is used up; between two depths where a scenario runs out the
    same scenarios take turns (those with more deals than the run's depth, in their order)."""
    runs, number, depth = [], 1, 0
    for limit in sorted(set(counts) - {0}):
        turns = sum(count > depth for count in counts)
        runs.append(BoardRun(depth, limit, turns, number))
        number += turns * (limit - depth)
        depth = limit
    return runs


def board_numbers(counts: Sequence[int]) -> list[list[int]]:
    """The board number of each deal of scenarios with `counts` deals, in the scenarios'
    order (`board_runs`)."""
    out: list[list[int]] = [[] for _ in counts]
    # Each one's numbers in a run are a range with a step of the run's scenarios (100,000
    # deals without a Python loop each).
    for run in board_runs(counts):
        turns = [numbers for numbers, count in zip(out, counts) if count > run.depth]
        for rank, numbers in enumerate(turns):
            numbers.extend(range(run.first + rank, run.first + run.scenarios * (run.limit - run.depth), run.scenarios))
    return out


#: Boards 1..16: board n has the dealer and vulnerability of board (n - 1) % 16 + 1.
_CYCLE = tuple(board(n) for n in range(1, len(VULNERABILITY_CYCLE) + 1))


def dealer_and_vulnerable(number: int) -> tuple[str, str]:
    """Board `number`'s dealer letter and vulnerability, without making a Board (for many)."""
    b = _CYCLE[(number - 1) % len(_CYCLE)]
    return b.dealer_letter, b.vulnerable


def dealers_and_vulnerabilities(numbers: Iterable[int]) -> list[tuple[str, str]]:
    """`dealer_and_vulnerable` of each of `numbers`, at list speed (the deals JSON of 100,000)."""
    cycle = [(b.dealer_letter, b.vulnerable) for b in _CYCLE]
    return [cycle[(number - 1) % len(cycle)] for number in numbers]


def page_boards(scenarios: Iterable[tuple[int, str, Sequence[str]]]) -> tuple[BoardDeal, ...]:
    """The boards of a page whose scenarios are `(number, label, deals)`, in the scenarios'
    order (`board_numbers`)."""
    scenarios = list(scenarios)
    out: list[BoardDeal] = []
    for (index, label, deals), numbers in zip(scenarios, board_numbers([len(d) for _, _, d in scenarios])):
        out += (BoardDeal(board(n), index, label, depth, pbn) for depth, (n, pbn) in enumerate(zip(numbers, deals)))
    return tuple(sorted(out, key=lambda b: b.board.number))
