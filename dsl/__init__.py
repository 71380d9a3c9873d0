"""The shape_constraints DSL: parse and validate (`parse`), render as the API's JSON
(`render`), and write back as text (`format_dsl`).

The grammar is in `grammar.lark` (its parser, made from it by `scripts/generate_parser.py`,
in `generated_parser.py`), the validator in `parser.py`, the editor-facing wording in
`messages.py`, the typed values in `model.py`. `keys.py` is the one table of the keys (the
grammar's key terminals, the parser, renderer, formatter and messages read it); `deck.py`
holds the deck's facts (HCP per rank, bounds, seats) that `keys` and the `deals` package share.
"""

from .errors import DslError, ErrorCode, InvalidDsl
from .model import Fit, Pair, Position, Range, Role, Scenario, ShapeClass, Suit, SuitClass
from .format import format_dsl
from .parser import ParseResult, parse, parse_scenarios
from .render import get_document, scenario_json, validate_document

__all__ = [
    "DslError",
    "ErrorCode",
    "Fit",
    "InvalidDsl",
    "Pair",
    "ParseResult",
    "Position",
    "Range",
    "Role",
    "Scenario",
    "ShapeClass",
    "Suit",
    "SuitClass",
    "format_dsl",
    "get_document",
    "parse",
    "parse_scenarios",
    "scenario_json",
    "validate_document",
]
