"""Random valid scenarios as DSL text, the one generator of `tests/test_deals_fuzz.py` (drawn by
hypothesis) and `benchmarks/fuzz_scenarios.py` (drawn from a seeded `random.Random`).

A scenario is written around a random deal, each range holding that deal's value most of the
time: most scenarios are then satisfiable (and dealt), the rest a mix of empty and rare ones.
It has one to four seats of both partnerships, every key of `dsl.keys` (suit lengths, HCP,
suit HCP, `x:`/`xhcp:` over the suits a position leaves unnamed, shapes) and fits of every
class (`H8+`, `M8+`, `m8+`, `8+`) at a seat and at scenario level.

The generator draws only through a `Drawer`'s few primitives. With the default `Odds`,
`RandomDrawer` makes the very calls the benchmark made before this module existed, in the
same order, so a seed still writes the scenarios docs/BENCHMARKS.md's figures were measured
on: a change to the order or the number of draws here changes them too. `HypothesisDrawer`
draws the same primitives from strategies, each shrinking towards the shorter scenario.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.rules.predicate import shape_class
from bridgeshape_mirror.dsl.deck import CARDS_PER_SUIT, MAX_HAND_HCP, MAX_SUIT_HCP, MAX_SUIT_LENGTH, SUIT_INDEX
from bridgeshape_mirror.dsl.keys import KEY_BY_NAME
from bridgeshape_mirror.dsl.model import MAJORS, MINORS, SUITS, Pair, Role, ShapeClass, Suit

T = TypeVar("T")

FIT_HEADS = ("S", "H", "D", "C", "M", "m", "")  # a named suit, a major, a minor, any suit
RANGE_KINDS = ("plus", "between", "exact", "upto")


@dataclass(frozen=True)
class Odds:
    """How often the keys that make a scenario dense are written: a position's chance of each
    suit's length, of each suit's HCP, of a shape and of a fit; a scenario's of a fit at
    scenario level. (A position's HCP, six times in ten, a wildcard, four in ten, and a
    scenario around its deal, five in six, are the same for every user.) The defaults are the
    benchmark's: its seeds hold them."""

    suit_length: float = 0.25
    suit_hcp: float = 0.08
    shape: float = 0.2
    fit: float = 0.15
    scenario_fit: float = 0.15


class Drawer(Protocol):
    """The random choices the generator makes, whatever draws them."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer of lo..hi, both included."""

    def choice(self, options: Sequence[T]) -> T:
        """One of `options`."""

    def chance(self, p: float) -> bool:
        """True with probability `p` (0 < p < 1)."""

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """`items` in a random order."""

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """`k` of `items`, distinct, in a random order."""


@dataclass(frozen=True)
class RandomDrawer:
    """The primitives as `random.Random` calls (the benchmark's, one call each)."""

    rng: random.Random

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def shuffled(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self.rng.shuffle(out)
        return out

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self.rng.sample(list(items), k)


@dataclass(frozen=True)
class HypothesisDrawer:
    """The primitives drawn by an `st.composite`'s `draw`: integers and choices shrink to the
    first, orders to the given one, and a chance to false (a token fewer)."""

    draw: Callable[[st.SearchStrategy[Any]], Any]

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        # an integer rather than a float: hypothesis's floats are far from uniform (edge and
        # simple values), so `< p` would not hold with probability p. The top `numerator`
        # values of 1..denominator are true, so that the shrunk value, 1, is false.
        fraction = Fraction(p).limit_denominator(100)
        return self.draw(st.integers(1, fraction.denominator)) > fraction.denominator - fraction.numerator

    def shuffled(self, items: Sequence[T]) -> list[T]:
        return list(self.draw(st.permutations(items)))

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return list(self.draw(st.permutations(items)))[:k]


def range_text(drawer: Drawer, value: int, limit: int, width: int, around: bool) -> str:
    """A range's text, `lo+`, `lo-hi`, `n` or `0-n`, within 0..limit and at most `width` wide
    when bounded; holding `value` when `around`."""
    if around:
        lo, hi = max(0, value - drawer.integer(0, width)), min(limit, value + drawer.integer(0, width))
    else:
        lo = drawer.integer(0, min(limit, 2 * value + 2))
        hi = min(limit, lo + drawer.integer(0, width))
    kind = drawer.choice(RANGE_KINDS)
    if kind == "plus":
        return f"{lo}+"
    if kind == "exact":
        return str(value if around else lo)
    if kind == "upto":
        return f"0-{hi}"
    return f"{lo}-{hi}"


def fit_text(drawer: Drawer, deal: Deal, pair: Pair, around: bool) -> str:
    """A fit of the pair, of a random class; at most the deal's best when `around`."""
    head = drawer.choice(FIT_HEADS)
    suits = {"M": MAJORS, "m": MINORS, "": SUITS}.get(head) or (Suit(head),)
    first, second = (deal.role_hand(role) for role in pair.roles)
    best = max(first.length(SUIT_INDEX[s]) + second.length(SUIT_INDEX[s]) for s in suits)
    minimum = drawer.integer(6, 10)
    return f"{KEY_BY_NAME['fit'].token}{head}{min(minimum, best) if around else minimum}+"


def position_text(drawer: Drawer, odds: Odds, role: Role, deal: Deal, around: bool, narrow: bool = False) -> str:
    """One position's text: each key of `dsl.keys` written or not, its values around the
    deal's hand for that role when `around`. `narrow`: three suits named, each within one of
    the hand's length, and one suit's HCP at most (few length matrices, for the suit-by-suit
    reference of the length-matrix tests)."""
    hand = deal.role_hand(role)
    length = {s: hand.length(SUIT_INDEX[s]) for s in SUITS}
    points = {s: hand.suit_hcp(SUIT_INDEX[s]) for s in SUITS}
    tokens, named = [], set()
    if narrow:
        for suit in drawer.sample(SUITS, 3):
            lo = max(0, length[suit] - drawer.integer(0, 1))
            tokens.append(f"{KEY_BY_NAME[suit.value].token}{lo}-{length[suit] + drawer.integer(0, 1)}")
            named.add(suit)
    else:
        for suit in SUITS:
            if drawer.chance(odds.suit_length):
                tokens.append(f"{KEY_BY_NAME[suit.value].token}{range_text(drawer, length[suit], MAX_SUIT_LENGTH, 4, around)}")
                named.add(suit)
    if drawer.chance(0.6):
        tokens.append(f"{KEY_BY_NAME['hcp'].token}{range_text(drawer, hand.hcp, MAX_HAND_HCP, 8, around)}")
    with_suit_hcp = False
    for suit in SUITS:
        # the chance drawn first, for every suit (the benchmark's seeds hold these draws);
        # a narrow position keeps the first suit drawn only
        if drawer.chance(odds.suit_hcp) and not (narrow and with_suit_hcp):
            tokens.append(f"{KEY_BY_NAME[suit.value + 'hcp'].token}{range_text(drawer, points[suit], MAX_SUIT_HCP, 4, around)}")
            named.add(suit)
            with_suit_hcp = True
    if len(named) < len(SUITS) and drawer.chance(0.4):
        # the wildcard around an unnamed suit of the hand (a fit's suit too: a candidate then
        # or not, as SEMANTICS 3 says)
        suit = drawer.choice([s for s in SUITS if s not in named])
        with_length, with_points = drawer.choice(((True, False), (True, True), (False, True)))
        if with_length:
            tokens.append(f"{KEY_BY_NAME['x'].token}{range_text(drawer, length[suit], MAX_SUIT_LENGTH, 3, around)}")
        if with_points:
            tokens.append(f"{KEY_BY_NAME['xhcp'].token}{range_text(drawer, points[suit], MAX_SUIT_HCP, 4, around)}")
    if drawer.chance(odds.shape):
        shape = shape_class(tuple(length[s] for s in SUITS))
        tokens.append(f"{KEY_BY_NAME['shape'].token}{drawer.choice([shape, ShapeClass.ANY] if around else list(ShapeClass)).value}")
    if drawer.chance(odds.fit):
        tokens.append(fit_text(drawer, deal, role.pair, around))
    return " ".join([role.value, *drawer.shuffled(tokens)])


def random_deal(drawer: Drawer) -> Deal:
    """A deal, each of its orders of the 52 cards as likely."""
    return Deal.from_seat_of_card(drawer.shuffled([seat for seat in range(4) for _ in range(CARDS_PER_SUIT)]))


def scenario_text(drawer: Drawer, odds: Odds = Odds(), narrow: bool = False, min_seats: int = 1) -> str:
    """One random valid scenario's DSL text: `min_seats` to four seats in a random order,
    written around a random deal five times in six (most are satisfiable), freely otherwise,
    and a fit at scenario level or not."""
    deal = random_deal(drawer)
    around = drawer.chance(5 / 6)
    roles = drawer.sample(list(Role), drawer.integer(min_seats, len(Role)))
    fits = [fit_text(drawer, deal, Pair.DECLARER, around)] if drawer.chance(odds.scenario_fit) else []
    return " ".join([*fits, "; ".join(position_text(drawer, odds, role, deal, around, narrow) for role in roles)])
