"""Every sentence the validator says to a wiki editor, in one table per kind.

Placeholders are `str.format` fields. Keep the wording plain: the reader edits a wiki page,
not a program. To translate, replace these tables (the codes stay the same).
"""

from __future__ import annotations

from .errors import ErrorCode
from .keys import KEYS

MESSAGES: dict[ErrorCode, str] = {
    ErrorCode.EMPTY_SCENARIO: "Scenario {scenario} is empty: write a position after it, or remove the extra \"//\".",
    ErrorCode.EMPTY_POSITION: "Empty position: there is nothing between two \";\" (or after the last one).",
    ErrorCode.UNKNOWN_ROLE: "\"{token}\" is not a role. A position starts with opener, responder, opp1 or opp2.",
    ErrorCode.DUPLICATE_ROLE: "{role} appears twice in scenario {scenario}: put all of its constraints in one position.",
    ErrorCode.CONSTRAINT_BEFORE_ROLE: "\"{token}\" comes before any role: a position starts with opener, responder, opp1 or opp2.",
    ErrorCode.MISSING_SEPARATOR: "\"{token}\" starts a new position, so it needs a \";\" before it.",
    ErrorCode.NOT_KEY_VALUE: "\"{token}\" is not a constraint: constraints are written key:value, like H:5+ or hcp:12-14.",
    ErrorCode.UNKNOWN_KEY: "\"{key}:\" is not a known key. Keys are " + " ".join(key.token for key in KEYS),
    ErrorCode.MISSING_VALUE: "\"{key}:\" has no value: write it right after the colon, like {key}:{example}.",
    ErrorCode.BAD_RANGE: "\"{token}\" is not a range. Write 5+ (at least 5), 0-1 (from 0 to 1) or 3 (exactly 3).",
    ErrorCode.RANGE_OUT_OF_BOUNDS: "{what} must be between 0 and {limit}, but \"{token}\" goes outside that.",
    ErrorCode.MIN_GREATER_THAN_MAX: "In \"{token}\" the minimum {min} is greater than the maximum {max}.",
    ErrorCode.DUPLICATE_KEY: "\"{key}:\" is written twice in the same position: keep one.",
    ErrorCode.WILDCARD_WITHOUT_CANDIDATE: "\"{key}:\" means \"some other suit\", but this position already names all four suits.",
    ErrorCode.UNKNOWN_SHAPE: "\"{token}\" is not a shape class. Use balanced, one_suiter, two_suiter, three_suiter or any.",
    ErrorCode.BAD_FIT: "\"{token}\" is not a fit. Write a suit (S, H, D, C), M (a major), m (a minor) or nothing, then the minimum and +, like fit:H8+.",
    ErrorCode.SYNTAX_ERROR: "The text cannot be read here: {detail}",
    ErrorCode.LIMIT_EXCEEDED: "{detail}",
    ErrorCode.MORE_ERRORS: "... and {count:,} more errors, not listed (only the first {limit:,} are): fix these first.",
}

#: Which limit of `dsl.limits.Limits` a string is past, by field name (LIMIT_EXCEEDED).
LIMIT_DETAILS: dict[str, str] = {
    "characters": "The text is {count:,} characters long; the mirror reads at most {limit:,}. Nothing else in the text was checked.",
    "scenarios": "The text has {count:,} scenarios (parts between \"//\"); the mirror reads at most {limit:,}. Nothing else in the text was checked.",
    "positions": "Scenario {scenario} has {count:,} positions (parts between \";\"); the mirror reads at most {limit:,}. Nothing else in the text was checked.",
    "keys": "Scenario {scenario} has {count:,} constraints (key:value); the mirror reads at most {limit:,}. Nothing else in the text was checked.",
    "digits": "\"{token}\" has a number of more than {limit} digits; no value of the DSL needs more than 2.",
}

HINTS: dict[str, str] = {
    "did-you-mean": "Did you mean \"{suggestion}\"?",
    "remove-space": "Remove the space after the colon: \"{suggestion}\".",
    "odd-space": "\"{token}\" contains an unusual space character (such as a non-breaking space); type a plain space instead.",
    "label-colon": "A colon followed by a space ends the scenario's label, so \"{label}\" was read as a label. Write constraints without a space after the colon.",
    "swap-range": "Did you mean \"{suggestion}\"?",
    "fit-scenario-level": "A fit written before the first role must be followed by that role, with no \";\" in between.",
}

#: What a range measures, for RANGE_OUT_OF_BOUNDS, by `keys.Measure.id`.
MEASURES: dict[str, str] = {
    "length": "A suit length",
    "hcp": "Hand HCP",
    "suit_hcp": "HCP in one suit",
    "fit": "A fit",
}


def render(code: ErrorCode, **fields: object) -> str:
    return MESSAGES[code].format(**fields)


def limit(name: str, **fields: object) -> str:
    return render(ErrorCode.LIMIT_EXCEEDED, detail=LIMIT_DETAILS[name].format(**fields))


def hint(name: str, **fields: object) -> str:
    return HINTS[name].format(**fields)
