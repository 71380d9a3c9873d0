"""Every key of the DSL, written once: what its value measures, which field of a position it
fills, and the order keys are listed and written in (SEMANTICS 1 and 2).

The parser, the JSON renderer, the formatter, the messages and the grammar's key terminals
are all read from `KEYS`. A new key is a row here, its field in `model.Position`, the wording
of a new measure in `messages.MEASURES`, and its rule for the deals (`deals.rules.compiled` and the
counts). The grammar changes only for a new form of value: a key whose value is a range
joins its measure's terminal, which already reads ranges.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .deck import MAX_HAND_HCP, MAX_SUIT_HCP, MAX_SUIT_LENGTH
from .model import SUITS, Position, Suit


@dataclass(frozen=True, slots=True)
class Measure:
    """What the value of a key measures.

    `id` names its wording in `messages.MEASURES`; `limit` is the physical upper bound of a
    range (None for a value that is a word); `terminal` is the grammar terminal its keys
    belong to, which picks the value forms the grammar reads after them.
    """

    id: str
    limit: int | None
    example: str
    terminal: str


LENGTH = Measure("length", MAX_SUIT_LENGTH, "5+", "LENGTH_KEY")
HAND_HCP = Measure("hcp", MAX_HAND_HCP, "12-14", "HCP_KEY")
SUIT_HCP = Measure("suit_hcp", MAX_SUIT_HCP, "0", "HCP_KEY")
SHAPE = Measure("shape", None, "balanced", "SHAPE_KEY")
FIT = Measure("fit", MAX_SUIT_LENGTH, "H8+", "FIT_KEY")


@dataclass(frozen=True, slots=True)
class Key:
    """One DSL key. `field` is both the `Position` attribute and the JSON field it fills (the
    model follows the API's names), None for `fit:` (fits are the scenario's); `suit` is the
    suit a per-suit key names (None for the wildcard and the whole-hand keys)."""

    name: str
    measure: Measure
    field: str | None
    suit: Suit | None = None
    #: Whether a position may write it more than once (SEMANTICS 1: only `fit:`).
    repeatable: bool = False

    @property
    def token(self) -> str:
        return f"{self.name}:"

    @property
    def wildcard(self) -> bool:
        """`x:`/`xhcp:`: a per-suit measure that names no suit ("some other suit")."""
        return self.suit is None and self.measure in (LENGTH, SUIT_HCP)


#: In the order the reference lists them (and the editor is told them).
KEYS: tuple[Key, ...] = (
    *(Key(suit.value, LENGTH, "suits", suit) for suit in SUITS),
    Key("x", LENGTH, "x"),
    Key("hcp", HAND_HCP, "hcp"),
    *(Key(f"{suit.value}hcp", SUIT_HCP, "suit_hcp", suit) for suit in SUITS),
    Key("xhcp", SUIT_HCP, "x_hcp"),
    Key("shape", SHAPE, "shape"),
    Key("fit", FIT, None, repeatable=True),
)

KEY_BY_NAME: dict[str, Key] = {key.name: key for key in KEYS}
KEY_NAMES: tuple[str, ...] = tuple(key.name for key in KEYS)
WILDCARD_KEYS: tuple[Key, ...] = tuple(key for key in KEYS if key.wildcard)

#: The fields keys fill, in the order `Position` declares them (that of the reference's
#: `Position` interface): the order of its JSON object when nothing records how it was written.
POSITION_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(Position) if any(key.field == f.name for key in KEYS)
)
#: The position keys in canonical order: by field as above, then as listed.
CANONICAL_KEYS: tuple[Key, ...] = tuple(
    key for field in POSITION_FIELDS for key in KEYS if key.field == field
)


def terminals() -> dict[str, tuple[str, ...]]:
    """Each key terminal of the grammar and the key tokens it matches, in `KEYS` order."""
    out: dict[str, list[str]] = {}
    for key in KEYS:
        out.setdefault(key.measure.terminal, []).append(key.token)
    return {name: tuple(tokens) for name, tokens in out.items()}
