"""A reader of Bridge Champ expressions written from the language's specification
(`../shared/spec/bridgechamp-expression-dsl.txt`), not from our writer: its grammar
(`script := 'condition'? orExpr?` ...), its hand sets, suit names, cards, rank runs and shape
literals (`any`, `+` union and `-` difference left to right, the lengths summing to 13), and
its rule that `not` stands only before `hascard`. `read(text)` parses an expression into a
predicate on a deal (`deals.boards.cards.Deal`: hands by seat N E S W, suits S H D C)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations, product

from lark import Lark, Token, Transformer
from lark.exceptions import VisitError

GRAMMAR = r"""
start: CONDITION? or_expr?
CONDITION: "condition"

?or_expr: and_expr (OR and_expr)*
?and_expr: primary (AND primary)*
?primary: "(" or_expr ")"
        | atom
OR: "or" | "||"
AND: "and" | "&&"

atom: NOT hascard                         -> negated
    | hascard
    | "includeCards" "(" seat "," suit "," RANKS ")"    -> include
    | "excludeCards" "(" seat "," suit "," RANKS ")"    -> exclude
    | "shape" "(" seat "," shape_expr ")"               -> shape
    | linear CMP linear                                 -> compare
NOT: "not" | "!"
hascard: "hascard" "(" seat "," CARD ")"

linear: term (ADDOP term)*
ADDOP: "+" | "-"
term: INT                                 -> number
    | COUNTFN "(" handset ")"             -> count
COUNTFN: "hcp" | "spades" | "hearts" | "diamonds" | "clubs"
CMP: ">=" | "<=" | "==" | "!=" | ">" | "<"

handset: SEAT
       | PAIR
       | PAIR "(" ")"
seat: SEAT
SEAT: "north" | "east" | "south" | "west" | "n" | "e" | "s" | "w"
PAIR: "ns" | "ew"
suit: SUITNAME
SUITNAME: "spades" | "spade" | "hearts" | "heart" | "diamonds" | "diamond" | "clubs" | "club" | "s" | "h" | "d" | "c"
CARD: /[SHDC][AKQJT98765432]/ | /[AKQJT98765432][SHDC]/
RANKS: /[AKQJT98765432]+/

shape_expr: shape_term (SETOP shape_term)*
SETOP: "+" | "-"
shape_term: ANY? SHAPE
ANY: "any"
SHAPE: /[0-9x]{4}/

INT: /-?[0-9]+/
COMMENT: /#[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""

SEATS = {"north": 0, "n": 0, "east": 1, "e": 1, "south": 2, "s": 2, "west": 3, "w": 3}
PAIRS = {"ns": (0, 2), "ew": (1, 3)}
SUITS = {name: i for i, names in enumerate((("spades", "spade", "s"), ("hearts", "heart", "h"), ("diamonds", "diamond", "d"), ("clubs", "club", "c"))) for name in names}
COUNT_SUIT = {"spades": 0, "hearts": 1, "diamonds": 2, "clubs": 3}
RANK_LETTERS = "AKQJT98765432"
POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}
COMPARE: dict[str, Callable[[int, int], bool]] = {
    ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}  # fmt: skip
#: Every (S, H, D, C) length tuple of a hand.
ALL_LENGTHS = frozenset(t for t in product(range(14), repeat=4) if sum(t) == 13)


class BridgeChampError(ValueError):
    """Text the language does not accept."""


Predicate = Callable[[object], bool]


def _literal(text: str) -> frozenset[tuple[int, ...]]:
    """A shape literal's length tuples (S H D C, each a digit or `x` for any)."""
    fixed = [int(c) for c in text if c != "x"]
    if "x" not in text and sum(fixed) != 13 or sum(fixed) > 13:
        raise BridgeChampError(f"shape {text}: the lengths must sum to 13")
    return frozenset(t for t in ALL_LENGTHS if all(c == "x" or int(c) == n for c, n in zip(text, t)))


class _Facts:
    """What the functions measure of a deal, read once: each seat's lengths, HCP and cards."""

    def __init__(self, deal):
        self.lengths = [[0] * 4 for _ in range(4)]
        self.hcp = [0] * 4
        self.cards: set[tuple[int, int, str]] = set()
        for seat, hand in enumerate(deal.hands):
            for card in hand.cards:
                rank = RANK_LETTERS[card.rank]
                self.lengths[seat][card.suit] += 1
                self.hcp[seat] += POINTS.get(rank, 0)
                self.cards.add((seat, card.suit, rank))


def _held(facts: _Facts, seat: int, suit: int, rank: str) -> bool:
    return (seat, suit, rank) in facts.cards


def _card(text: str) -> tuple[int, str]:
    suit_first = text[0] in "SHDC" and text[1] in RANK_LETTERS
    suit, rank = (text[0], text[1]) if suit_first else (text[1], text[0])
    return "SHDC".index(suit), rank


class _Build(Transformer):
    def start(self, items):
        parts = [i for i in items if not isinstance(i, Token)]
        return parts[0] if parts else (lambda f: True)

    def or_expr(self, items):
        parts = [i for i in items if not isinstance(i, Token)]
        return lambda f: any(p(f) for p in parts)

    def and_expr(self, items):
        parts = [i for i in items if not isinstance(i, Token)]
        return lambda f: all(p(f) for p in parts)

    def seat(self, items):
        return SEATS[str(items[0])]

    def suit(self, items):
        return SUITS[str(items[0])]

    def handset(self, items):
        word = str(items[0])
        return PAIRS[word] if word in PAIRS else (SEATS[word],)

    def hascard(self, items):
        seat, (suit, rank) = items[0], _card(str(items[1]))
        return lambda f: _held(f, seat, suit, rank)

    def negated(self, items):
        inner = items[1]
        return lambda f: not inner(f)

    def atom(self, items):
        return items[0]

    def include(self, items):
        seat, suit, ranks = items[0], items[1], str(items[2])
        return lambda f: all(_held(f, seat, suit, r) for r in ranks)

    def exclude(self, items):
        seat, suit, ranks = items[0], items[1], str(items[2])
        return lambda f: not any(_held(f, seat, suit, r) for r in ranks)

    def shape_term(self, items):
        literal = str(items[-1])
        allowed = _literal(literal)
        if len(items) == 2:  # `any`: every distinct permutation of the literal
            allowed = frozenset().union(*(_literal("".join(p)) for p in set(permutations(literal))))
        return allowed

    def shape_expr(self, items):
        allowed = items[0]
        for op, term in zip(items[1::2], items[2::2]):
            allowed = allowed | term if str(op) == "+" else allowed - term
        return allowed

    def shape(self, items):
        seat, allowed = items
        return lambda f: tuple(f.lengths[seat]) in allowed

    def number(self, items):
        value = int(str(items[0]))
        return lambda f: value

    def count(self, items):
        what, seats = str(items[0]), items[1]
        if what == "hcp":
            return lambda f: sum(f.hcp[s] for s in seats)
        suit = COUNT_SUIT[what]
        return lambda f: sum(f.lengths[s][suit] for s in seats)

    def linear(self, items):
        first, rest = items[0], list(zip(items[1::2], items[2::2]))

        def value(f) -> int:
            total = first(f)
            for op, term in rest:
                total = total + term(f) if str(op) == "+" else total - term(f)
            return total

        return value

    def compare(self, items):
        left, op, right = items
        test = COMPARE[str(op)]
        return lambda f: test(left(f), right(f))


_PARSER = Lark(GRAMMAR, parser="earley", ambiguity="resolve")


def read(text: str) -> Predicate:
    """`text` as a predicate on a deal; `BridgeChampError` when the language refuses it."""
    if "${" in text:
        raise BridgeChampError("a template reference needs the template store")
    try:
        tree = _PARSER.parse(text)
    except Exception as exc:  # lark's errors, one kind for the tests
        raise BridgeChampError(str(exc)) from exc
    try:
        verdict = _Build().transform(tree)
    except VisitError as exc:
        raise exc.orig_exc from exc
    return lambda deal: verdict(_Facts(deal))
