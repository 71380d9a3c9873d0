"""A condition (`condition.py`) and its header as a `dealer` script or a Deal 3.1 script.

dealer (Debian's, Hans van Staveren's language): `condition <expr>` and `action
printoneline`; no `generate` or `produce`, which would override the command line's -g and
-p. Deal 3.1: `main { reject unless {<expr>}; accept }`; the count is the command line's.
Both write each bound as `a + b >= n`, and group with `&&`, `||` and parentheses; an empty
"all" is 1 and an empty "any" (no wildcard candidate left) is 0, so an unsatisfiable
scenario is a script that accepts nothing, its exact probability.
"""

from __future__ import annotations

from collections.abc import Callable

from .bridgechamp import bridgechamp_script
from .condition import All, Bound, Condition, Kind, Measure
from .words import SEAT_WORDS, SUIT_WORDS, Header, comment, seat_word

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


def expression(c: Condition, measure: Callable[[Measure], str], indent: str = "") -> str:
    """`c` in C-like syntax (both languages'), one part of an and/or a line."""
    if isinstance(c, Bound):
        return " + ".join(measure(t) for t in c.terms) + (" >= " if c.at_least else " <= ") + str(c.value)
    if not c.parts:
        return "1" if isinstance(c, All) else "0"
    if len(c.parts) == 1:
        return expression(c.parts[0], measure, indent)
    joiner = " &&" if isinstance(c, All) else " ||"
    inner = indent + "  "
    body = (joiner + "\n").join(inner + expression(p, measure, inner) for p in c.parts)
    return "(\n" + body + "\n" + indent + ")"


def dealer_script(condition: Condition, header: Header) -> str:
    return comment(header) + "\ncondition " + expression(condition, dealer_measure) + "\n\naction printoneline\n"


def tcl_script(condition: Condition, header: Header) -> str:
    expr = expression(condition, tcl_measure, "  ")
    return comment(header) + "\nmain {\n  reject unless {" + expr + "}\n  accept\n}\n"


#: Target name -> (its script, its file suffix), as `export --to` names them.
TARGETS: dict[str, tuple[Callable[[Condition, Header], str], str]] = {
    "dealer": (dealer_script, ".dlr"),
    "deal": (tcl_script, ".tcl"),
    "bridgechamp": (bridgechamp_script, ".bridgechamp.txt"),
}
