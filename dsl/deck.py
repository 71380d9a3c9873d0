"""The deck's facts, written once: suits, ranks and what they are worth, the seats and where
each role sits, and the bounds they imply (SEMANTICS 1 and 3).

Suits are numbered 0..3 = S H D C (the order of `model.SUITS`), ranks 0..12 = A K Q J T 9 .. 2
(so ranks 0..3 are the honours), seats 0..3 = N E S W clockwise from the dealer.
"""

from __future__ import annotations

from .model import SUITS, Pair, Role, Suit

SUIT_LETTERS = "".join(suit.value for suit in SUITS)
SUIT_INDEX: dict[Suit, int] = {suit: index for index, suit in enumerate(SUITS)}
SUIT_NAMES: dict[Suit, str] = {Suit.S: "spades", Suit.H: "hearts", Suit.D: "diamonds", Suit.C: "clubs"}

RANK_LETTERS = "AKQJT98765432"
#: Milton Work points of the honours A K Q J (ranks 0..3); every other rank is worth 0.
HONOUR_HCP = (4, 3, 2, 1)
RANK_HCP = HONOUR_HCP + (0,) * (len(RANK_LETTERS) - len(HONOUR_HCP))
HONOUR_HCP_OF_LETTER: dict[str, int] = dict(zip(RANK_LETTERS, HONOUR_HCP))

CARDS_PER_SUIT = len(RANK_LETTERS)
HAND_CARDS = 13
DECK_CARDS = CARDS_PER_SUIT * len(SUITS)
#: The HCP of one suit (so the most a hand holds in it), and of the whole deck.
MAX_SUIT_HCP = sum(HONOUR_HCP)
DECK_HCP = MAX_SUIT_HCP * len(SUITS)
#: The most a hand can hold: its 13 best cards (four aces, kings and queens, and a jack).
MAX_HAND_HCP = sum(sorted(RANK_HCP * len(SUITS), reverse=True)[:HAND_CARDS])
#: A suit's length in one hand (0..13), and a partnership's in one suit: both at most the suit.
MAX_SUIT_LENGTH = CARDS_PER_SUIT

SEAT_LETTERS = "NESW"
#: Opener is North and deals; opp1 sits on its left (East), responder opposite, opp2 West.
ROLE_SEAT: dict[Role, int] = {Role.OPENER: 0, Role.OPP1: 1, Role.RESPONDER: 2, Role.OPP2: 3}
SEAT_ROLE: dict[int, Role] = {seat: role for role, seat in ROLE_SEAT.items()}
#: The two seats of each partnership, declarer first, each in its roles' order.
PAIR_SEATS: tuple[tuple[int, int], ...] = tuple(
    (ROLE_SEAT[pair.roles[0]], ROLE_SEAT[pair.roles[1]]) for pair in (Pair.DECLARER, Pair.DEFENSE)
)
