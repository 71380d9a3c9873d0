"""Cards, hands and deals as plain values, and the numbering the vectorised code relies on.

Numbering (used everywhere in `deals`):

- suits 0..3 = S, H, D, C (bridge rank order, as in `dsl.model.SUITS`);
- ranks 0..12 = A, K, Q, J, T, 9, ..., 2 (so ranks 0..3 are the honours);
- card id = 13 * suit + rank (0 = SA, 51 = C2);
- seats 0..3 = N, E, S, W (clockwise from the dealer). Opener is North and deals, opp1 East,
  responder South, opp2 West (SEMANTICS 3).

A deal in bulk is a `(n, 52)` array holding, for each card id, the seat that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsl.model import Role

SUIT_LETTERS = "SHDC"
RANK_LETTERS = "AKQJT98765432"
SEAT_LETTERS = "NESW"
#: HCP of ranks 0..12 (A4 K3 Q2 J1).
RANK_HCP = (4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)

ROLE_SEAT = {Role.OPENER: 0, Role.OPP1: 1, Role.RESPONDER: 2, Role.OPP2: 3}
SEAT_ROLE = {seat: role for role, seat in ROLE_SEAT.items()}
#: The two seats of each partnership, declarer first.
PAIR_SEATS = ((0, 2), (1, 3))


@dataclass(frozen=True, order=True, slots=True)
class Card:
    suit: int
    rank: int

    @property
    def id(self) -> int:
        return 13 * self.suit + self.rank

    @property
    def hcp(self) -> int:
        return RANK_HCP[self.rank]

    @classmethod
    def from_id(cls, card_id: int) -> Card:
        if not 0 <= card_id < 52:
            raise ValueError(f"no card with id {card_id}")
        return cls(card_id // 13, card_id % 13)

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
        return all(len(h) == 13 for h in self.hands) and len(set(cards)) == 52

    def seat_of_card(self) -> list[int]:
        """The bulk form: for each card id 0..51, the seat holding it (-1 if nobody)."""
        owner = [-1] * 52
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
        from .pbn import format_deal

        return format_deal(self, first)

    @classmethod
    def from_pbn(cls, text: str) -> Deal:
        from .pbn import parse_deal

        return parse_deal(text)
