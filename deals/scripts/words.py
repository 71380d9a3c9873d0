"""What every script language's writer shares: the seats' and suits' words, and the header
comment (`#` lines, one line each whatever the wiki's text)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bridgeshape_mirror.dsl.deck import SEAT_LETTERS

SEAT_WORDS = {letter: word for letter, word in zip(SEAT_LETTERS, ("north", "east", "south", "west"))}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def seat_word(seat: int) -> str:
    return SEAT_WORDS[SEAT_LETTERS[seat]]


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
        line = _CONTROL.sub(" ", line).rstrip()
        if line.endswith("\\"):
            line += " ."
        lines.append(("# " + line).rstrip())
    return "\n".join(lines) + "\n"
