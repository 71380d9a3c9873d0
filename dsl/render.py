"""The BridgeShape API's JSON for scenarios and DSL errors (SEMANTICS 2), as plain dicts.

Key order follows the extension: a position's keys in the order the DSL wrote them, fits in
the order written. Only documented fields are produced here; callers may add their own.
"""

from __future__ import annotations

from typing import Any, Mapping

from .errors import DslError
from .keys import KEYS, POSITION_FIELDS
from .model import Fit, Position, Range, Scenario, ShapeClass, Suit
from .parser import ParseResult

_FIELD_OF_KEY = {key.name: key.field for key in KEYS if key.field is not None}


def range_json(rng: Range) -> dict[str, Any]:
    return {"min": rng.min, "max": rng.max}


def _value_json(value: Range | ShapeClass | Mapping[Suit, Range]) -> Any:
    if isinstance(value, Range):
        return range_json(value)
    if isinstance(value, ShapeClass):
        return value.value
    return {s.value: range_json(r) for s, r in value.items()}


def position_json(position: Position) -> dict[str, Any]:
    order = [_FIELD_OF_KEY[k] for k in position.key_order if k in _FIELD_OF_KEY]
    order += POSITION_FIELDS  # anything not recorded (a value built in code) comes last
    out: dict[str, Any] = {}
    for name in order:
        if name not in out:
            value = getattr(position, name)
            if value:  # not written: None, or no suit named
                out[name] = _value_json(value)
    return out


def fit_json(fit: Fit) -> dict[str, Any]:
    return {
        "suit": fit.suit.value if fit.suit else None,
        "suit_class": fit.suit_class.value if fit.suit_class else None,
        "min": fit.min,
        "pair": fit.pair.value,
    }


def scenario_json(scenario: Scenario) -> dict[str, Any]:
    return {
        "label": scenario.label,
        "positions": {p.role.value: position_json(p) for p in scenario.positions},
        "fit": [fit_json(f) for f in scenario.fits],
    }


def error_json(error: DslError) -> dict[str, Any]:
    return {
        "code": error.code.value,
        "message": error.message,
        "scenario": error.scenario,
        "offset": error.offset,
        "length": error.length,
        "line": error.line,
        "column": error.column,
        "token": error.token,
        "hint": error.hint,
    }


def get_document(page_id: int, raw: str, scenarios: tuple[Scenario, ...], **extra: Any) -> dict[str, Any]:
    """`shapeaction=get`; `extra` adds fields of our own after the documented ones."""
    body: dict[str, Any] = {"pageId": page_id, "raw": raw, "scenarios": [scenario_json(s) for s in scenarios]}
    body.update(extra)
    return {"shapeconstraints": body}


def validate_document(result: ParseResult) -> dict[str, Any]:
    """`shapeaction=validate`."""
    if result.valid:
        return {"validate": {"valid": True, "raw": result.raw, "scenarios": [scenario_json(s) for s in result.scenarios]}}
    return {"validate": {"valid": False, "raw": result.raw, "errors": [error_json(e) for e in result.errors]}}
