"""A condition (`condition.py`) and its header as a `dealer` script or a Deal 3.1 script.

dealer (Debian's, Hans van Staveren's language, as BBO's dealer and Practice-Bidding-Scenarios'
scripts write it): `dealer north` (the opener deals), `vulnerable none` (dealer's default: a
scenario has none), `condition <expr>` and `action printoneline`; no `generate` or
`produce`, which would override the command line's -g and -p. Deal 3.1: `main { reject
unless {<expr>}; accept }`; the count is the command line's. Both write each bound as
`a + b >= n`, a range of one value as `== n`, a shape class in the language's own form where
that is shorter (dealer's `shape()`, Deal's `patterncond`), and group with `&&`, `||` and
parentheses; an empty "all" is 1 and an empty "any" (no wildcard candidate left) is 0, so an
unsatisfiable scenario is a script that accepts nothing, its exact probability.
"""

from __future__ import annotations

from collections.abc import Callable

from bridgeshape_mirror.dsl.deck import ROLE_SEAT
from bridgeshape_mirror.dsl.model import Role

from .bridgechamp import bridgechamp_script
from .condition import All, Bound, Condition, Exactly, Kind, Measure, Shape
from .words import SEAT_WORDS, SUIT_WORDS, Header, comment, seat_word, shape_list

#: The opener deals (SEMANTICS 3): dealer's `dealer` statement.
DEALER_SEAT = ROLE_SEAT[Role.OPENER]

__all__ = ["SEAT_WORDS", "SUIT_WORDS", "Header", "TARGETS", "comment", "dealer_script", "seat_word", "tcl_script"]

def _seat(m: Measure) -> str:
    return seat_word(m.seat)


def dealer_measure(m: Measure) -> str:
    if m.kind is Kind.LENGTH:
        assert m.suit is not None
        return f"{SUIT_WORDS[m.suit.value]}({_seat(m)})"
    return f"hcp({_seat(m)}, {SUIT_WORDS[m.suit.value]})" if m.suit is not None else f"hcp({_seat(m)})"


def tcl_measure(m: Measure) -> str:
    if m.kind is Kind.LENGTH:
        assert m.suit is not None
        return f"[{SUIT_WORDS[m.suit.value]} {_seat(m)}]"
    return f"[hcp {_seat(m)} {SUIT_WORDS[m.suit.value]}]" if m.suit is not None else f"[hcp {_seat(m)}]"


class Writer:
    """How one script writes its condition in a C-like syntax (both languages'): each measure,
    and a shape class in the language's own form where that is shorter than its bounds."""

    def __init__(self, measure: Callable[[Measure], str]):
        self.measure = measure

    def shape(self, c: Shape, bounds: str) -> str | None:
        """The class in the language's form, or None (say its bounds)."""
        return None

    def expression(self, c: Condition, indent: str = "") -> str:
        """`c`, one part of an and/or a line."""
        if isinstance(c, Bound):
            return " + ".join(self.measure(t) for t in c.terms) + (" >= " if c.at_least else " <= ") + str(c.value)
        if isinstance(c, Exactly):
            return f"{self.measure(c.measure)} == {c.value}"
        if isinstance(c, Shape):
            bounds = self.expression(c.bounds, indent)
            short = self.shape(c, bounds)
            return bounds if short is None else short
        if not c.parts:
            return "1" if isinstance(c, All) else "0"
        if len(c.parts) == 1:
            return self.expression(c.parts[0], indent)
        joiner = " &&" if isinstance(c, All) else " ||"
        inner = indent + "  "
        body = (joiner + "\n").join(inner + self.expression(p, inner) for p in c.parts)
        return "(\n" + body + "\n" + indent + ")"


class DealerWriter(Writer):
    """dealer's `shape(north, any 4333 + any 4432 + any 5332)`: at most `MAX_SHAPES` in a file
    (dealer's limit), the rest said by their bounds."""

    MAX_SHAPES = 32

    def __init__(self) -> None:
        super().__init__(dealer_measure)
        self.shapes = 0

    def shape(self, c: Shape, bounds: str) -> str | None:
        listed = shape_list(c.patterns)
        if listed is None or self.shapes >= self.MAX_SHAPES:
            return None
        text = f"shape({seat_word(c.seat)}, {listed})"
        if len(text) >= len(bounds):
            return None
        self.shapes += 1
        return text


class TclWriter(Writer):
    """Deal 3.1's pattern classes (`patterncond`, on the lengths sorted longest first), one
    per shape class used, defined before `main`."""

    def __init__(self) -> None:
        super().__init__(tcl_measure)
        self.classes: dict[str, tuple[tuple[int, int, int, int], ...]] = {}

    def shape(self, c: Shape, bounds: str) -> str | None:
        name = f"bsm_{c.shape.value}"
        text = f"[{name} {seat_word(c.seat)}]"
        if len(text) >= len(bounds):
            return None
        self.classes[name] = c.patterns
        return text

    def definitions(self) -> str:
        # "$l1$l2$l3$l4" is one string per pattern: the lengths are sorted and sum to 13, so
        # only the first can have two digits.
        return "".join(
            f"patterncond {name} {{\"$l1$l2$l3$l4\" in {{{' '.join(''.join(map(str, p)) for p in patterns)}}}}}\n"
            for name, patterns in self.classes.items()
        )


def expression(c: Condition, measure: Callable[[Measure], str], indent: str = "") -> str:
    """`c` said by its bounds alone (no language's shape form)."""
    return Writer(measure).expression(c, indent)


def dealer_script(condition: Condition, header: Header) -> str:
    writer = DealerWriter()
    return (
        comment(header)
        + f"\ndealer {seat_word(DEALER_SEAT)}\nvulnerable none\n"
        + "\ncondition " + writer.expression(condition) + "\n\naction printoneline\n"
    )  # fmt: skip


def tcl_script(condition: Condition, header: Header) -> str:
    writer = TclWriter()
    expr = writer.expression(condition, "  ")
    classes = writer.definitions()
    return comment(header) + ("\n" + classes if classes else "") + "\nmain {\n  reject unless {" + expr + "}\n  accept\n}\n"


#: Target name -> (its script, its file suffix), as `export --to` names them.
TARGETS: dict[str, tuple[Callable[[Condition, Header], str], str]] = {
    "dealer": (dealer_script, ".dlr"),
    "deal": (tcl_script, ".tcl"),
    "bridgechamp": (bridgechamp_script, ".bridgechamp.txt"),
}
