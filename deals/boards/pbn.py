"""PBN deal strings in and out, in bulk, and the PBN 2.1 export file writer.

A PBN deal string is `N:AKQ.T98.765.432 <E> <S> <W>`: the first seat, a colon, then four
hands clockwise from it, each `spades.hearts.diamonds.clubs` with ranks high to low. With
full hands it is always 69 characters, which lets `format_rows` build many at once with
numpy (one byte row per deal) instead of joining strings card by card.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

import numpy as np

from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT, HAND_CARDS, RANK_LETTERS, SEAT_LETTERS

from .board import Board

if TYPE_CHECKING:
    from .cards import Deal

PBN_DEAL_LENGTH = 69
_HAND_RE = re.compile(r"^[AKQJT2-9]*\.[AKQJT2-9]*\.[AKQJT2-9]*\.[AKQJT2-9]*$")


class PbnError(ValueError):
    """A PBN deal string that is not a full, legal deal."""


def parse_deal(text: str) -> Deal:
    """Parse `N:... ... ... ...` (any first seat, `T` for ten, case-insensitive ranks).

    Only full deals are accepted: four hands of 13 cards, 52 distinct cards.
    """
    from .cards import Card, Deal, Hand  # here: writing deals never needs them (5 ms of a start)

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
_SEATS = np.arange(4, dtype=np.int8)
#: Each seat's first place in a row, less the one `format_rows`' running counts start from.
_SEAT_BASE = (17 * _SEATS)[:, None]


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
    if owner.min() < 0 or owner.max() > 3:
        raise PbnError("not a deal: a card's seat is not one of the four")
    # A card's place is its seat's block of 17 characters, one dot per earlier suit, and its
    # rank among the seat's cards so far: a running count per seat, card by card across
    # whole columns (cards, seats, deals), each seat's count starting at its block (17 * seat;
    # a byte holds it). numpy's cumsum and argsort along a row of 52 pay a step per row.
    cards = np.ascontiguousarray(owner.T, dtype=np.int8)  # (52, n)
    held = (cards[:, None, :] == _SEATS[None, :, None]).view(np.int8)  # (52, 4, n)
    running = np.empty(held.shape, dtype=np.int8)
    np.add(_SEAT_BASE, held[0], out=running[0])
    for k in range(1, 52):
        np.add(running[k - 1], held[k], out=running[k])
    if not (running[-1] == _SEAT_BASE + HAND_CARDS).all():
        raise PbnError("not a full deal: every seat needs 13 cards")
    running *= held  # each card's own seat's count, zero elsewhere
    place = ((2 - 1) + _CARD_SUIT)[:, None] + (np.arange(n) * PBN_DEAL_LENGTH)[None, :]
    place += running.sum(axis=1, dtype=np.int16)
    out.reshape(-1)[place] = _CARD_RANK_BYTE[:, None]
    return out


def no_rows() -> np.ndarray:
    """The `(0, 69)` uint8 rows of no deal (`format_rows` of none)."""
    return np.empty((0, PBN_DEAL_LENGTH), dtype=np.uint8)


def pbn_rows(pbns: Sequence[str]) -> np.ndarray | None:
    """`(k, 69)` uint8 rows of deal strings, as `format_rows` makes them, or `None` unless
    there is one at least and every one is a 69-character ASCII string without zero bytes
    (what `deals.boards.byte_rows` pads with)."""
    text = "".join(pbns)
    if not pbns or set(map(len, pbns)) != {PBN_DEAL_LENGTH} or not text.isascii() or "\0" in text:
        return None
    return np.frombuffer(text.encode("ascii"), dtype=np.uint8).reshape(len(pbns), PBN_DEAL_LENGTH)


def format_many(owner: np.ndarray) -> list[str]:
    return row_strings(format_rows(owner))


def row_strings(rows: np.ndarray) -> list[str]:
    """The deal strings of `(k, 69)` uint8 rows (`format_rows`)."""
    # As UCS-4 code points the rows are numpy strings of 69 characters, which one `tolist`
    # makes Python strings (cheaper than a slice of the decoded bytes per deal).
    return np.ascontiguousarray(rows, dtype=np.uint32).view(f"<U{PBN_DEAL_LENGTH}").ravel().tolist()


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
#: The mandatory values a dealing program has no game for: the standard's "inappropriate"
#: values, an empty string (its `?` is for a value not known), and the date, not known,
#: in its ten-character format (a deal's files say the same on every build).
DEALT_VALUES = {
    "Date": "????.??.??",
    "West": "",
    "North": "",
    "East": "",
    "South": "",
    "Scoring": "",
    "Declarer": "",
    "Contract": "",
    "Result": "",
}
CRLF = "\r\n"
#: The longest line PBN allows (CR LF not counted).
MAX_LINE = 255

#: Line ends and other control characters: a tag is one line, so a title with a newline
#: would end the `[Event]` tag early and start a line of its own.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: Suit symbols as the letters PBN itself writes suits with (a transliteration would spell
#: them out, `:hearts:`), and the arrow as the files wrote it before (anyascii: `>`).
_SUIT_SYMBOLS = str.maketrans({"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C",
                               "\u2664": "S", "\u2661": "H", "\u2662": "D", "\u2667": "C",
                               "\u2013": "-", "\u2014": "-", "\u2192": "->"})  # fmt: skip


def pbn_text(text: str) -> str:
    """`text` in the characters every PBN reader takes: ASCII, which is both the standard's
    ISO 8859-1 and the UTF-8 the file is served as. Suit symbols become S H D C; any other
    character outside ASCII is transliterated (`Perché` -> `Perche`, `«puppet»` ->
    `<<puppet>>`, `–` -> `-`), never a `?`; control characters become spaces."""
    text = text.translate(_SUIT_SYMBOLS)
    if not text.isascii():
        # anyascii: one table for every script, and what it gives is ASCII by construction.
        from anyascii import anyascii

        text = anyascii(text)
    return _CONTROL.sub(" ", text)


def _escaped(value: str) -> str:
    return pbn_text(value).replace("\\", "\\\\").replace('"', '\\"')


def tag_line(name: str, value: str) -> str:
    """`[Name "value"]`, escaped, cut (never inside an escape) to fit a PBN line."""
    room = _tag_room(name)
    value = _escaped(value)
    if len(value) > room:
        value = value[: room - 3]
        value = value[:-1] if re.search(r"(?<!\\)(\\\\)*\\$", value) else value
        value += "..."
    return f'[{name} "{value}"]'


def _tag_room(name: str) -> int:
    """The characters a tag's value may take on its line: all but `[`, the name, ` "`, `"]`."""
    return MAX_LINE - len(name) - 5


def comment_lines(text: str) -> list[str]:
    """A brace comment of `text` on lines of its own, none longer than a PBN line; a
    comment ends at the first `}`, so braces inside become parentheses."""
    plain = pbn_text(text).replace("{", "(").replace("}", ")")
    lines = textwrap.wrap(plain, width=MAX_LINE - 2) or [""]
    lines[0] = "{" + lines[0]
    lines[-1] += "}"
    return lines


@dataclass(frozen=True)
class PbnTag:
    """A supplementary tag of one game: its value, and the lines of its section (a table's
    rows, as `OptimumResultTable` has), written after it."""

    name: str
    value: str
    rows: tuple[str, ...] = ()
    #: Written as it is, unescaped: a table's column format (`Result\2R`), whose backslash
    #: is PBN's column-width mark, not an escape (readers take it so; endplay writes it so).
    verbatim: bool = False


@dataclass(frozen=True)
class PbnGame:
    """One game of an export file: its board, the deal as the board has it (dealer first),
    the event, a comment, and supplementary tags, written after the mandatory ones sorted
    by name, as the export format orders them."""

    board: Board
    deal: str
    event: str = "?"
    comment: str | None = None
    tags: tuple[PbnTag, ...] = ()


#: Bridge Composer's `[DoubleDummyTricks]`: one hexadecimal digit of tricks for each
#: declarer N S E W in turn, each in NT S H D C (20 digits, `a`..`d` for 10..13). The order
#: is that of bridge-craftwork/bridge-solver's `encode_ddt` (it writes the tag for Bridge
#: Composer) and of the club-results reader that indexes it `5 * "NSEW".index(declarer) +
#: "NSHDC".index(strain)`; docs/DECISIONS.md says more.
DD_TRICKS_TAG = "DoubleDummyTricks"
DD_TRICKS_DECLARERS = "NSEW"
DD_TRICKS_STRAINS = ("NT", "S", "H", "D", "C")
#: The table `DD_TRICKS_TAG` spells again: PBN 2.1's `OptimumResultTable`, whose rows are
#: `declarer strain tricks`.
RESULT_TABLE_TAG_NAME = "OptimumResultTable"


def double_dummy_tricks(rows: Sequence[str]) -> str | None:
    """The `[DoubleDummyTricks]` value of an `OptimumResultTable`'s rows (`N NT 10`), or
    `None` unless they hold the 20 results, each 0..13, once each."""
    tricks: dict[tuple[str, str], int] = {}
    for row in rows:
        parts = row.split()
        if len(parts) != 3 or not parts[2].isdigit() or (parts[0], parts[1]) in tricks:
            return None
        tricks[parts[0], parts[1]] = int(parts[2])
    wanted = [(seat, strain) for seat in DD_TRICKS_DECLARERS for strain in DD_TRICKS_STRAINS]
    if set(tricks) != set(wanted) or max(tricks.values()) > 13:
        return None
    return "".join(format(tricks[key], "x") for key in wanted)


def _derived_tags(tags: tuple[PbnTag, ...]) -> tuple[PbnTag, ...]:
    """The tags a game's own imply: `[DoubleDummyTricks]` beside an `OptimumResultTable`
    (club software reads the one, PBN 2.1 readers the other), made from its rows so that
    the two never disagree."""
    names = {tag.name for tag in tags}
    if DD_TRICKS_TAG in names:
        return ()
    for tag in tags:
        if tag.name == RESULT_TABLE_TAG_NAME and (value := double_dummy_tricks(tag.rows)) is not None:
            return (PbnTag(DD_TRICKS_TAG, value),)
    return ()


#: The mandatory tags a board or a deal gives (in their order), written into a game's frame.
_FRAMED = ("Board", "Dealer", "Vulnerable", "Deal")
#: A value `tag_line` writes as it is: printable ASCII but quotes and backslashes, and short.
_PLAIN = re.compile(r'[ !#-\[\]-~]*')
_PLAIN_ROOM = min(map(_tag_room, _FRAMED))
#: Frames a writer keeps (a document's scenarios; games with tags of their own each make one).
_FRAMES = 64


def _frame(lines: list[str | tuple[str]]) -> tuple[str, ...]:
    """A game's text around the values of its `_FRAMED` tags (1-tuples in `lines`): five pieces."""
    pieces = [""]
    for i, line in enumerate(lines):
        sep = CRLF if i else ""
        if isinstance(line, str):
            pieces[-1] += sep + line
        else:
            pieces[-1] += f'{sep}[{line[0]} "'
            pieces.append('"]')
    pieces[-1] += CRLF
    assert len(pieces) == len(_FRAMED) + 1
    return tuple(pieces)


def _plain_rows(rows: np.ndarray) -> bool:
    """Every byte of `rows` one of `_PLAIN`'s, and a row no longer than `_PLAIN_ROOM`."""
    plain = (rows >= ord(" ")) & (rows <= ord("~")) & (rows != ord('"')) & (rows != ord("\\"))
    return rows.shape[1] <= _PLAIN_ROOM and bool(plain.all())


class PbnExportWriter:
    """Writes a PBN 2.1 file in export format: `% PBN 2.1` / `% EXPORT` header, the 15
    mandatory tags of each game in their order (`DEALT_VALUES` for those a dealing program
    has no game for; dealer and vulnerability from the board, never unknown), then its
    supplementary tags sorted by name (each table's rows after its tag), then its comment,
    on lines of at most 255 characters, in ASCII, CRLF line ends, one empty line between games.
    """

    def __init__(self, out: TextIO, *, site: str = ""):
        self._out = out
        self._site = site
        self._started = False
        self._games = 0
        self._frames: dict[tuple, tuple[str, ...]] = {}

    def _start(self) -> None:
        if not self._started:
            self._out.write("% PBN 2.1" + CRLF + "% EXPORT" + CRLF)
            self._started = True

    def write_game(self, game: PbnGame) -> None:
        self._start()
        board = game.board
        values = (str(board.number), board.dealer_letter, board.vulnerable, game.deal)
        if max(map(len, values)) <= _PLAIN_ROOM and _PLAIN.fullmatch("".join(values)):
            # The values as they are (what `tag_line` leaves them), in the text around them
            # that the game's event, comment and tags give: made once for a scenario's boards,
            # not 16 tags escaped per game (100,000 games of the `deals` command: 3 s).
            key = (game.event, game.comment, game.tags)
            frame = self._frames.get(key)
            if frame is None:
                if len(self._frames) >= _FRAMES:  # every game its own tags (double dummy)
                    self._frames.clear()
                frame = self._frames[key] = _frame(self._lines(game, framed=True))
            text = "".join((frame[0], values[0], frame[1], values[1], frame[2], values[2], frame[3], values[3], frame[4]))
        else:
            text = CRLF.join(line for line in self._lines(game, framed=False) if isinstance(line, str)) + CRLF
        self._out.write(CRLF + text if self._games else text)  # an empty line between games
        self._games += 1

    def frame(self, event: str, comment: str | None, tags: tuple[PbnTag, ...]) -> tuple[str, ...]:
        """The text of a game with this event, comment and tags around its board number,
        dealer, vulnerability and deal (five pieces), as `write_game` writes it."""
        return _frame(self._lines(PbnGame(Board(1, 0, "None"), "", event, comment, tags), framed=True))

    @staticmethod
    def takes_rows(frames: list[tuple[str, ...]], rows: np.ndarray) -> bool:
        """Whether `write_rows` may write these games: every value one `write_game` writes as
        it is, and no text holding the byte table's padding."""
        texts = "".join(piece for f in frames for piece in f)
        return "\0" not in texts and texts.isascii() and _plain_rows(rows)

    def write_rows(self, frames: list[tuple[str, ...]], scenario_of: np.ndarray, numbers: np.ndarray, rows: np.ndarray) -> None:
        """Games of boards `numbers` (int64, in this order), game i in the text
        `frames[scenario_of[i]]` (`frame`) with the deal `rows[i]` (`(k, 69)` uint8 PBN rows,
        the opener North) turned to the board's dealer: byte for byte what `write_game` gives
        each, a byte table at once (`deals.boards.byte_rows`) rather than a string per game (100,000
        games: 0.15 s against 0.8 s). The caller has asked `takes_rows` of these games."""
        from .byte_rows import PAD, board_columns, constant, cycle_places, decimal, joined, padded

        k = len(rows)
        if k == 0:
            return
        self._start()
        pieces = [padded([f[j] for f in frames]).take(scenario_of, axis=0) for j in range(len(_FRAMED) + 1)]
        dealers, vulnerable = board_columns()
        cycle = cycle_places(numbers)
        dealer = dealers.take(cycle, axis=0)
        between = np.repeat(constant(CRLF), k, axis=0)  # an empty line between games
        if not self._games:
            between[0] = PAD
        fields = [between, pieces[0], decimal(numbers), pieces[1], dealer, pieces[2], vulnerable.take(cycle, axis=0)]
        fields += [pieces[3], dealer, rows[:, 1:], pieces[4]]
        self._out.write(joined(fields, k).decode("ascii"))
        self._games += k

    def _lines(self, game: PbnGame, framed: bool) -> list[str | tuple[str]]:
        """The game's lines; with `framed`, each of the `_FRAMED` tags as its name alone, a
        1-tuple (its value is the board's or the deal's, written as it is)."""
        tags = {
            **DEALT_VALUES,
            "Event": game.event,
            "Site": self._site,
            "Board": str(game.board.number),
            "Dealer": game.board.dealer_letter,
            "Vulnerable": game.board.vulnerable,
            "Deal": game.deal,
        }
        lines: list[str | tuple[str]] = [(name,) if framed and name in _FRAMED else tag_line(name, tags[name]) for name in MANDATORY_TAGS]
        for tag in sorted(game.tags + _derived_tags(game.tags), key=lambda t: t.name):
            if tag.name in tags or not re.fullmatch(r"[A-Za-z0-9_]+", tag.name):
                raise ValueError(f"not a supplementary PBN tag name: {tag.name!r}")
            lines.append(f'[{tag.name} "{tag.value}"]' if tag.verbatim else tag_line(tag.name, tag.value))
            lines += [pbn_text(row) for row in tag.rows]
        if game.comment:
            lines += comment_lines(game.comment)
        return lines

    def finish(self) -> None:
        self._start()


def iter_deal_strings(text: str) -> Iterator[str]:
    """The `[Deal "..."]` values of a PBN file, in order (enough to read our own exports back)."""
    for match in re.finditer(r'\[Deal\s+"([^"]*)"\]', text):
        yield match.group(1)
