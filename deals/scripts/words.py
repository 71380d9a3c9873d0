"""What every script language's writer shares: the seats' and suits' words, the shape list,
and the header comment: `#` lines (BBO's dealer takes `#` only at a line's start), one line
each whatever the wiki's text, in ASCII (BBO's dealer reads bytes): a title or label is
transliterated as in PBN (`deals.boards.pbn.pbn_text`); its exact text stays in the JSON."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bridgeshape_mirror.dsl.deck import SEAT_LETTERS

from ..boards.pbn import pbn_text

SEAT_WORDS = {letter: word for letter, word in zip(SEAT_LETTERS, ("north", "east", "south", "west"))}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def seat_word(seat: int) -> str:
    return SEAT_WORDS[SEAT_LETTERS[seat]]


def shape_list(patterns: tuple[tuple[int, ...], ...]) -> str | None:
    """Patterns (lengths sorted longest first) as dealer's and Bridge Champ's shape list,
    `any 4333 + any 4432 + any 5332`; None if a length has two digits (neither can say it)."""
    if any(n > 9 for p in patterns for n in p):
        return None
    return " + ".join("any " + "".join(map(str, p)) for p in patterns)


@dataclass(frozen=True)
class Header:
    """What a script says of itself in its first comment lines."""

    lines: tuple[str, ...]


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def comment(header: Header) -> str:
    # A comment is one line whatever the wiki's text; in Tcl a backslash at a line's end
    # would continue the comment onto the next line, so one never ends a line.
    lines = []
    for line in header.lines:
        line = pbn_text(_CONTROL.sub(" ", line)).rstrip()
        if line.endswith("\\"):
            line += " ."
        lines.append(("# " + line).rstrip())
    return "\n".join(lines) + "\n"
