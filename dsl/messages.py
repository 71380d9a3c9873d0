"""Every sentence the validator says to a wiki editor, in one table per kind.

Placeholders are `str.format` fields. Keep the wording plain: the reader edits a wiki page,
not a program. The tables are English, the message ids of the catalogues (`language`):
inside `speaking(lang)` every sentence is said in `lang`. Outside it they are English,
which is what the API's JSON keeps (clients read its `message`).
"""

from __future__ import annotations

import contextlib
import string
from collections.abc import Iterator
from contextvars import ContextVar

from . import language
from .errors import ErrorCode
from .keys import KEYS
from .language import N_

#: The language messages are said in now; None: English, as the API's JSON says them.
_voice: ContextVar[str | None] = ContextVar("voice", default=None)


@contextlib.contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Every message and hint made inside is in `lang` (a catalogue of `language`), its
    numbers written as `lang` writes them ("5.099" in Italian)."""
    language.translations(lang)  # an unknown language fails here, not at the first message
    token = _voice.set(lang)
    try:
        yield
    finally:
        _voice.reset(token)


def _(message: str) -> str:
    lang = _voice.get()
    return message if lang is None else language.translations(lang).gettext(message)


class _Numbers(string.Formatter):
    """`str.format` with every number of a message written by Babel for the language (its
    grouping and digits: `{count:,}` is "4,812" in English, "4.812" in Italian)."""

    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value: object, format_spec: str) -> str:
        if isinstance(value, int | float) and not isinstance(value, bool) and format_spec in ("", ","):
            return language.number(value, self.lang)
        return super().format_field(value, format_spec)


def _said(message: str, **fields: object) -> str:
    """`message` in the language spoken now, its fields filled in. English outside
    `speaking` is Python's own formatting: the API's JSON text, byte for byte as it was."""
    lang = _voice.get()
    if lang is None:
        return message.format(**fields)
    return _Numbers(lang).format(_(message), **fields)


MESSAGES: dict[ErrorCode, str] = {
    ErrorCode.EMPTY_SCENARIO: N_("Scenario {scenario} is empty: write a position after it, or remove the extra \"//\"."),
    ErrorCode.EMPTY_POSITION: N_("Empty position: there is nothing between two \";\" (or after the last one)."),
    ErrorCode.UNKNOWN_ROLE: N_("\"{token}\" is not a role. A position starts with opener, responder, opp1 or opp2."),
    ErrorCode.DUPLICATE_ROLE: N_("{role} appears twice in scenario {scenario}: put all of its constraints in one position."),
    ErrorCode.CONSTRAINT_BEFORE_ROLE: N_("\"{token}\" comes before any role: a position starts with opener, responder, opp1 or opp2."),
    ErrorCode.MISSING_SEPARATOR: N_("\"{token}\" starts a new position, so it needs a \";\" before it."),
    ErrorCode.NOT_KEY_VALUE: N_("\"{token}\" is not a constraint: constraints are written key:value, like H:5+ or hcp:12-14."),
    ErrorCode.UNKNOWN_KEY: N_("\"{key}:\" is not a known key. Keys are {keys}"),
    ErrorCode.MISSING_VALUE: N_("\"{key}:\" has no value: write it right after the colon, like {key}:{example}."),
    ErrorCode.BAD_RANGE: N_("\"{token}\" is not a range. Write 5+ (at least 5), 0-1 (from 0 to 1) or 3 (exactly 3)."),
    ErrorCode.RANGE_OUT_OF_BOUNDS: N_("{what} must be between 0 and {limit}, but \"{token}\" goes outside that."),
    ErrorCode.MIN_GREATER_THAN_MAX: N_("In \"{token}\" the minimum {min} is greater than the maximum {max}."),
    ErrorCode.DUPLICATE_KEY: N_("\"{key}:\" is written twice in the same position: keep one."),
    ErrorCode.WILDCARD_WITHOUT_CANDIDATE: N_("\"{key}:\" means \"some other suit\", but this position already names all four suits."),
    ErrorCode.UNKNOWN_SHAPE: N_("\"{token}\" is not a shape class. Use balanced, one_suiter, two_suiter, three_suiter or any."),
    ErrorCode.BAD_FIT: N_("\"{token}\" is not a fit. Write a suit (S, H, D, C), M (a major), m (a minor) or nothing, then the minimum and +, like fit:H8+."),
    ErrorCode.SYNTAX_ERROR: N_("The text cannot be read here: {detail}"),
    ErrorCode.LIMIT_EXCEEDED: N_("{detail}"),
    ErrorCode.MORE_ERRORS: N_("... and {count:,} more errors, not listed (only the first {limit:,} are): fix these first."),
}

#: Which limit of `dsl.limits.Limits` a string is past, by field name (LIMIT_EXCEEDED).
LIMIT_DETAILS: dict[str, str] = {
    "characters": N_("The text is {count:,} characters long; the mirror reads at most {limit:,}. Nothing else in the text was checked."),
    "scenarios": N_("The text has {count:,} scenarios (parts between \"//\"); the mirror reads at most {limit:,}. Nothing else in the text was checked."),
    "positions": N_("Scenario {scenario} has {count:,} positions (parts between \";\"); the mirror reads at most {limit:,}. Nothing else in the text was checked."),
    "keys": N_("Scenario {scenario} has {count:,} constraints (key:value); the mirror reads at most {limit:,}. Nothing else in the text was checked."),
    "digits": N_("\"{token}\" has a number of more than {limit} digits; no value of the DSL needs more than 2."),
}

HINTS: dict[str, str] = {
    "did-you-mean": N_("Did you mean \"{suggestion}\"?"),
    "remove-space": N_("Remove the space after the colon: \"{suggestion}\"."),
    "odd-space": N_("\"{token}\" contains an unusual space character (such as a non-breaking space); type a plain space instead."),
    "label-colon": N_("A colon followed by a space ends the scenario's label, so \"{label}\" was read as a label. Write constraints without a space after the colon."),
    "swap-range": N_("Did you mean \"{suggestion}\"?"),
    "fit-scenario-level": N_("A fit written before the first role must be followed by that role, with no \";\" in between."),
}

#: What a range measures, for RANGE_OUT_OF_BOUNDS, by `keys.Measure.id`.
MEASURES: dict[str, str] = {
    "length": N_("A suit length"),
    "hcp": N_("Hand HCP"),
    "suit_hcp": N_("HCP in one suit"),
    "fit": N_("A fit"),
}


#: What UNKNOWN_KEY lists: the keys, as the DSL writes them.
KEY_TOKENS = " ".join(key.token for key in KEYS)


def render(code: ErrorCode, **fields: object) -> str:
    return _said(MESSAGES[code], **fields, keys=KEY_TOKENS)


def limit_detail(name: str, **fields: object) -> str:
    return _said(LIMIT_DETAILS[name], **fields)


def limit(name: str, **fields: object) -> str:
    return render(ErrorCode.LIMIT_EXCEEDED, detail=limit_detail(name, **fields))


def hint(name: str, **fields: object) -> str:
    return _said(HINTS[name], **fields)


def measure(name: str) -> str:
    """What a range of `keys.Measure` `name` measures, for RANGE_OUT_OF_BOUNDS."""
    return _(MEASURES[name])
