"""PBN deal strings in and out, in bulk, and the PBN 2.1 export file writer.

A PBN deal string is `N:AKQ.T98.765.432 <E> <S> <W>`: the first seat, a colon, then four
hands clockwise from it, each `spades.hearts.diamonds.clubs` with ranks high to low. With
full hands it is always 69 characters, which lets `format_rows` build many at once with
numpy (one byte row per deal) instead of joining strings card by card.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TextIO

import numpy as np

from dsl.deck import CARDS_PER_SUIT, HAND_CARDS, RANK_LETTERS, SEAT_LETTERS

from .cards import Card, Deal, Hand

if TYPE_CHECKING:
    from .boards import Board

PBN_DEAL_LENGTH = 69
_HAND_RE = re.compile(r"^[AKQJT2-9]*\.[AKQJT2-9]*\.[AKQJT2-9]*\.[AKQJT2-9]*$")


class PbnError(ValueError):
    """A PBN deal string that is not a full, legal deal."""


def parse_deal(text: str) -> Deal:
    """Parse `N:... ... ... ...` (any first seat, `T` for ten, case-insensitive ranks).

    Only full deals are accepted: four hands of 13 cards, 52 distinct cards.
    """
    text = text.strip()
    if len(text) < 2 or text[1] != ":" or text[0].upper() not in SEAT_LETTERS:
        raise PbnError(f"a PBN deal starts with N:, E:, S: or W:, not {text[:2]!r}")
    first = SEAT_LETTERS.index(text[0].upper())
    parts = text[2:].split()
    if len(parts) != 4:
        raise PbnError(f"a PBN deal has four hands, found {len(parts)}")
    hands: list[Hand | None] = [None] * 4
    for i, part in enumerate(parts):
        part = part.upper()
        if not _HAND_RE.match(part):
            raise PbnError(f"not a PBN hand: {part!r}")
        cards = set()
        for suit, holding in enumerate(part.split(".")):
            for letter in holding:
                card = Card(suit, RANK_LETTERS.index(letter))
                if card in cards:
                    raise PbnError(f"card {card} twice in hand {part!r}")
                cards.add(card)
        hands[(first + i) % 4] = Hand(frozenset(cards))
    deal = Deal(tuple(hands))  # type: ignore[arg-type]
    if not deal.is_legal:
        raise PbnError("not a legal deal: each hand needs 13 cards and the 52 cards must be distinct")
    return deal


# --- bulk formatting -------------------------------------------------------------------

_RANK_BYTES = np.frombuffer(RANK_LETTERS.encode(), dtype=np.uint8)
_CARD_RANK_BYTE = np.tile(_RANK_BYTES, 4)  # by card id
_CARD_SUIT = np.repeat(np.arange(4), CARDS_PER_SUIT)


def format_rows(owner: np.ndarray) -> np.ndarray:
    """`(n, 52)` seat-of-card arrays (full deals) -> `(n, 69)` uint8 rows, each an `N:` PBN string."""
    owner = np.asarray(owner)
    n = owner.shape[0]
    out = np.full((n, PBN_DEAL_LENGTH), ord("."), dtype=np.uint8)
    out[:, 0] = ord("N")
    out[:, 1] = ord(":")
    for seat in range(3):
        out[:, 2 + 17 * seat + 16] = ord(" ")
    if n == 0:
        return out
    # Each card's place: its seat's block, the cards of that seat before it (card ids are in
    # suit, then rank order), and one dot per earlier suit.
    owner64 = owner.astype(np.int64)
    held = owner64[:, :, None] == np.arange(4)[None, None, :]
    running = np.cumsum(held, axis=1, dtype=np.int8)  # cards of each seat so far
    if not (running[:, -1, :] == HAND_CARDS).all():
        raise PbnError("not a full deal: every seat needs 13 cards")
    within = np.take_along_axis(running, owner64[:, :, None], axis=2)[:, :, 0].astype(np.int64) - 1
    pos = 2 + 17 * owner64 + within + _CARD_SUIT[None, :]
    np.put_along_axis(out, pos, np.broadcast_to(_CARD_RANK_BYTE, (n, 52)), axis=1)
    return out


def format_many(owner: np.ndarray) -> list[str]:
    rows = format_rows(owner)
    raw = rows.tobytes().decode("ascii")
    return [raw[i : i + PBN_DEAL_LENGTH] for i in range(0, len(raw), PBN_DEAL_LENGTH)]


# --- PBN 2.1 export file -----------------------------------------------------------------

#: The Mandatory Tag Set, in the order the export format prescribes.
MANDATORY_TAGS = (
    "Event",
    "Site",
    "Date",
    "Board",
    "West",
    "North",
    "East",
    "South",
    "Dealer",
    "Vulnerable",
    "Deal",
    "Scoring",
    "Declarer",
    "Contract",
    "Result",
)
CRLF = "\r\n"


#: Line ends and other control characters: a tag is one line, so a title with a newline
#: would end the `[Event]` tag early and start a line of its own.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _tag_value(value: str) -> str:
    return _CONTROL.sub(" ", value).replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    # A brace comment ends at the first `}`; keep the text on one line and brace-free.
    return "{" + " ".join(_CONTROL.sub(" ", text).replace("{", "(").replace("}", ")").split()) + "}"


class PbnExportWriter:
    """Writes a PBN 2.1 file in export format: `% PBN 2.1` / `% EXPORT` header, the 15
    mandatory tags of each game in order (`?` where unknown), CRLF line ends, one empty line
    between games. Boards are numbered from `first_board` on; the dealer is North (the
    opener's seat) on every board.

    `extra_tags(board, deal)`, if given, gives more lines for each game after the mandatory
    tags (double-dummy results: `deals.double_dummy.pbn_tags`); `board` is the game as
    written here (dealer North, vulnerability `?`), `deal` its opener-North deal string.
    """

    def __init__(
        self,
        out: TextIO,
        *,
        event: str = "?",
        site: str = "?",
        first_board: int = 1,
        extra_tags: Callable[[Board, str], Iterable[str]] | None = None,
    ):
        self._out = out
        self._extra_tags = extra_tags
        self._event = event
        self._site = site
        self._board = first_board
        self._first_board = first_board
        self._started = False

    def _start(self) -> None:
        if not self._started:
            self._out.write("% PBN 2.1" + CRLF + "% EXPORT" + CRLF)
            self._started = True

    def write_games(self, deals: Iterable[str], *, comment: str | None = None) -> None:
        """One game per PBN deal string (`N:` first); `comment` is written in each game."""
        self._start()
        comment_line = _comment(comment) + CRLF if comment else ""
        parts = []
        for deal in deals:
            tags = {
                "Event": self._event,
                "Site": self._site,
                "Date": "?",
                "Board": str(self._board),
                "West": "?",
                "North": "?",
                "East": "?",
                "South": "?",
                "Dealer": "N",
                "Vulnerable": "?",
                "Deal": deal,
                "Scoring": "?",
                "Declarer": "?",
                "Contract": "?",
                "Result": "?",
            }
            if self._board != self._first_board:
                parts.append(CRLF)  # the empty line between games
            parts.extend(f'[{name} "{_tag_value(tags[name])}"]' + CRLF for name in MANDATORY_TAGS)
            if self._extra_tags is not None:
                from .boards import Board

                parts.extend(line + CRLF for line in self._extra_tags(Board(self._board, 0, "?"), deal))
            parts.append(comment_line)
            self._board += 1
        self._out.write("".join(parts))

    def finish(self) -> None:
        self._start()


def iter_deal_strings(text: str) -> Iterator[str]:
    """The `[Deal "..."]` values of a PBN file, in order (enough to read our own exports back)."""
    for match in re.finditer(r'\[Deal\s+"([^"]*)"\]', text):
        yield match.group(1)
