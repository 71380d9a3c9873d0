"""Cards, hands and deals as plain values, and the numbering the vectorised code relies on.

Numbering (used everywhere in `deals`):

- suits 0..3 = S, H, D, C (bridge rank order, as in `dsl.model.SUITS`);
- ranks 0..12 = A, K, Q, J, T, 9, ..., 2 (so ranks 0..3 are the honours);
- card id = 13 * suit + rank (0 = SA, 51 = C2);
- seats 0..3 = N, E, S, W (clockwise from the dealer). Opener is North and deals, opp1 East,
  responder South, opp2 West (SEMANTICS 3).

The letters, HCP and seats themselves are the deck's facts, in `dsl.deck`. A deal in bulk is
a `(n, 52)` array holding, for each card id, the seat that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridgeshape_mirror.dsl.deck import (
    CARDS_PER_SUIT,
    DECK_CARDS,
    HAND_CARDS,
    RANK_HCP,
    RANK_LETTERS,
    ROLE_SEAT,
    SEAT_LETTERS,
    SUIT_LETTERS,
)
from bridgeshape_mirror.dsl.model import Role


@dataclass(frozen=True, order=True, slots=True)
class Card:
    suit: int
    rank: int

    @property
    def id(self) -> int:
        return CARDS_PER_SUIT * self.suit + self.rank

    @property
    def hcp(self) -> int:
        return RANK_HCP[self.rank]

    @classmethod
    def from_id(cls, card_id: int) -> Card:
        if not 0 <= card_id < DECK_CARDS:
            raise ValueError(f"no card with id {card_id}")
        return cls(*divmod(card_id, CARDS_PER_SUIT))

    @classmethod
    def parse(cls, text: str) -> Card:
        """`"SA"`, `"H10"` is not accepted: ten is `T`, as in PBN."""
        if len(text) != 2 or text[0].upper() not in SUIT_LETTERS or text[1].upper() not in RANK_LETTERS:
            raise ValueError(f"not a card: {text!r}")
        return cls(SUIT_LETTERS.index(text[0].upper()), RANK_LETTERS.index(text[1].upper()))

    def __str__(self) -> str:
        return SUIT_LETTERS[self.suit] + RANK_LETTERS[self.rank]


@dataclass(frozen=True, slots=True)
class Hand:
    """Thirteen (or, while parsing, any number of) distinct cards."""

    cards: frozenset[Card]

    def suit_cards(self, suit: int) -> list[Card]:
        return sorted(c for c in self.cards if c.suit == suit)

    def length(self, suit: int) -> int:
        return sum(1 for c in self.cards if c.suit == suit)

    @property
    def lengths(self) -> tuple[int, int, int, int]:
        counts = [0, 0, 0, 0]
        for c in self.cards:
            counts[c.suit] += 1
        return (counts[0], counts[1], counts[2], counts[3])

    @property
    def hcp(self) -> int:
        return sum(c.hcp for c in self.cards)

    def suit_hcp(self, suit: int) -> int:
        return sum(c.hcp for c in self.cards if c.suit == suit)

    def pbn(self) -> str:
        """`AKQ.T98.765.432`: suits S.H.D.C, ranks high to low, empty suits empty."""
        return ".".join("".join(RANK_LETTERS[c.rank] for c in self.suit_cards(s)) for s in range(4))

    def __len__(self) -> int:
        return len(self.cards)


@dataclass(frozen=True, slots=True)
class Deal:
    """Four hands indexed by seat (0 = N, 1 = E, 2 = S, 3 = W)."""

    hands: tuple[Hand, Hand, Hand, Hand]

    def __post_init__(self) -> None:
        if len(self.hands) != 4:
            raise ValueError("a deal has four hands")

    def hand(self, seat: int) -> Hand:
        return self.hands[seat]

    def role_hand(self, role: Role) -> Hand:
        return self.hands[ROLE_SEAT[role]]

    @property
    def is_legal(self) -> bool:
        """52 distinct cards, 13 in each hand."""
        cards = [c for h in self.hands for c in h.cards]
        return all(len(h) == HAND_CARDS for h in self.hands) and len(set(cards)) == DECK_CARDS

    def seat_of_card(self) -> list[int]:
        """The bulk form: for each card id 0..51, the seat holding it (-1 if nobody)."""
        owner = [-1] * DECK_CARDS
        for seat, hand in enumerate(self.hands):
            for card in hand.cards:
                owner[card.id] = seat
        return owner

    @classmethod
    def from_seat_of_card(cls, owner) -> Deal:
        hands: list[set[Card]] = [set(), set(), set(), set()]
        for card_id, seat in enumerate(owner):
            hands[int(seat)].add(Card.from_id(card_id))
        return cls(tuple(Hand(frozenset(h)) for h in hands))  # type: ignore[arg-type]

    def pbn(self, first: int = 0) -> str:
        """The PBN deal string, `N:<N> <E> <S> <W>`, or clockwise from seat `first`."""
        seats = [(first + i) % 4 for i in range(4)]
        return SEAT_LETTERS[first] + ":" + " ".join(self.hands[s].pbn() for s in seats)
