"""Typed values of the shape_constraints DSL: what `dsl` hands to `deals` and `site_builder`.

Field names follow the BridgeShape API's JSON (`suits`, `suit_hcp`, `x`, `x_hcp`, ...), so a
reader of the reference page recognises them. The values are plain and immutable; nothing
here parses or renders.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Iterator, Mapping


class Suit(StrEnum):
    """The four suits, in bridge rank order (spades highest)."""

    S = "S"
    H = "H"
    D = "D"
    C = "C"


SUITS: tuple[Suit, ...] = (Suit.S, Suit.H, Suit.D, Suit.C)
MAJORS: tuple[Suit, ...] = (Suit.S, Suit.H)
MINORS: tuple[Suit, ...] = (Suit.D, Suit.C)


class Role(StrEnum):
    """The four roles a position can name; the order is the order the API documents them."""

    OPENER = "opener"
    RESPONDER = "responder"
    OPP1 = "opp1"
    OPP2 = "opp2"

    @property
    def pair(self) -> Pair:
        return Pair.DECLARER if self in (Role.OPENER, Role.RESPONDER) else Pair.DEFENSE

    @property
    def partner(self) -> Role:
        return _PARTNER[self]


class Pair(StrEnum):
    DECLARER = "declarer"
    DEFENSE = "defense"

    @property
    def roles(self) -> tuple[Role, Role]:
        if self is Pair.DECLARER:
            return (Role.OPENER, Role.RESPONDER)
        return (Role.OPP1, Role.OPP2)


_PARTNER = {
    Role.OPENER: Role.RESPONDER,
    Role.RESPONDER: Role.OPENER,
    Role.OPP1: Role.OPP2,
    Role.OPP2: Role.OPP1,
}


class ShapeClass(StrEnum):
    """`shape:` values. The four real classes partition the 39 hand patterns (SEMANTICS 3)."""

    BALANCED = "balanced"
    ONE_SUITER = "one_suiter"
    TWO_SUITER = "two_suiter"
    THREE_SUITER = "three_suiter"
    ANY = "any"


class SuitClass(StrEnum):
    MAJOR = "major"
    MINOR = "minor"

    @property
    def suits(self) -> tuple[Suit, ...]:
        return MAJORS if self is SuitClass.MAJOR else MINORS


@dataclass(frozen=True, slots=True)
class Range:
    """An inclusive range; `max is None` means no upper bound beyond the physical one."""

    min: int
    max: int | None = None

    def contains(self, value: int) -> bool:
        return value >= self.min and (self.max is None or value <= self.max)

    def upper(self, physical_max: int) -> int:
        """The effective upper bound, given the physical maximum of what is measured."""
        return physical_max if self.max is None else min(self.max, physical_max)


@dataclass(frozen=True, slots=True)
class Fit:
    """A pair's combined length in a suit: the named `suit`, some suit of `suit_class`, or any suit.

    `declared_in` is where the token was written: a role, or None at scenario level. It
    decides `pair` and lets the formatter write the token back where it stood.
    """

    min: int
    suit: Suit | None = None
    suit_class: SuitClass | None = None
    pair: Pair = Pair.DECLARER
    declared_in: Role | None = None

    def candidate_suits(self) -> tuple[Suit, ...]:
        if self.suit is not None:
            return (self.suit,)
        if self.suit_class is not None:
            return self.suit_class.suits
        return SUITS


class SuitMap(Mapping[Suit, Range]):
    """An immutable suit -> range mapping. Unlike MappingProxyType it pickles (worker
    processes take scenarios as they are) and hashes; equal whatever the insertion order."""

    __slots__ = ("_data",)

    def __init__(self, mapping: Mapping[Suit, Range] | None = None):
        self._data = dict(mapping or {})

    def __getitem__(self, suit: Suit) -> Range:
        return self._data[suit]

    def __iter__(self) -> Iterator[Suit]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return f"SuitMap({self._data!r})"

    def __getstate__(self) -> dict[Suit, Range]:
        return self._data

    def __setstate__(self, data: dict[Suit, Range]) -> None:
        self._data = data


@dataclass(frozen=True)
class Position:
    """One role's constraints. A field is None/empty when the DSL did not write it.

    `key_order` records the DSL keys in the order written (`"H"`, `"Chcp"`, `"hcp"`, `"fit"`,
    ...). JSON objects follow it, as the extension's API does; it takes no part in equality,
    so two positions with the same constraints are equal however they were spelled.
    """

    role: Role
    suits: Mapping[Suit, Range] = field(default_factory=dict)
    hcp: Range | None = None
    suit_hcp: Mapping[Suit, Range] = field(default_factory=dict)
    x: Range | None = None
    x_hcp: Range | None = None
    shape: ShapeClass | None = None
    key_order: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "suits", SuitMap(self.suits))
        object.__setattr__(self, "suit_hcp", SuitMap(self.suit_hcp))

    @property
    def named_suits(self) -> frozenset[Suit]:
        """Suits this position names by length or by HCP: never a wildcard candidate."""
        return frozenset(self.suits) | frozenset(self.suit_hcp)

    @property
    def has_wildcard(self) -> bool:
        return self.x is not None or self.x_hcp is not None

    @property
    def is_empty(self) -> bool:
        return not (self.suits or self.suit_hcp) and self.hcp is None and not self.has_wildcard and self.shape is None


@dataclass(frozen=True)
class Scenario:
    """One `//`-separated alternative: a label, positions in the order written, fits in the order written."""

    label: str = ""
    positions: tuple[Position, ...] = ()
    fits: tuple[Fit, ...] = ()

    def position(self, role: Role) -> Position | None:
        for position in self.positions:
            if position.role is role:
                return position
        return None

    def fits_of(self, pair: Pair) -> tuple[Fit, ...]:
        return tuple(f for f in self.fits if f.pair is pair)


#: The fields of `Position` and `Scenario` that say who a position is or how it was written,
#: not what a deal must satisfy.
_NOT_CONSTRAINTS = frozenset({"role", "key_order", "label", "positions"})


def written_fields(scenario: Scenario) -> frozenset[str]:
    """The names of the constraint fields that `scenario` sets, its positions' and its own
    (`"suits"`, `"hcp"`, ..., `"fits"`), read off the dataclasses: a field added to `Position`
    or `Scenario` is in it at once, so that every consumer that does not declare it refuses
    or declines (`deals.rules.handled`) rather than ignore it."""
    return frozenset().union(*(set_fields(holder) for holder in (scenario, *scenario.positions)))


def set_fields(holder: Scenario | Position) -> frozenset[str]:
    """The constraint fields one position sets, or a scenario's own (its fits)."""
    return frozenset(
        f.name for f in fields(holder) if f.name not in _NOT_CONSTRAINTS and getattr(holder, f.name) not in (None, {}, ())
    )
