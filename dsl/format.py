"""Write scenarios back as DSL text: `parse(format_dsl(s)).scenarios == s` for every valid `s`.

Tokens come out in the order they were written (a Position's `key_order`), single-spaced,
so formatting a parsed string only normalises its white space; values built in code use
the canonical order.
"""

from __future__ import annotations

from .keys import CANONICAL_KEYS, KEY_BY_NAME, Key
from .model import Fit, Position, Range, Role, Scenario, ShapeClass


def format_range(rng: Range) -> str:
    if rng.max is None:
        return f"{rng.min}+"
    if rng.max == rng.min:
        return str(rng.min)
    return f"{rng.min}-{rng.max}"


def format_fit(fit: Fit) -> str:
    if fit.suit is not None:
        head = fit.suit.value
    elif fit.suit_class is not None:
        head = "M" if fit.suit_class.value == "major" else "m"
    else:
        head = ""
    return f"fit:{head}{fit.min}+"


def _token(position: Position, key: Key) -> str | None:
    value = getattr(position, key.field)
    if key.suit is not None:
        value = value.get(key.suit)
    if value is None:
        return None
    return key.token + (value.value if isinstance(value, ShapeClass) else format_range(value))


def format_position(position: Position, fits: list[Fit]) -> str:
    parts = [position.role.value]
    pending = iter(fits)
    written: set[str] = set()
    # key_order has one "fit" per fit written in this position, where it stood.
    for name in position.key_order:
        key = KEY_BY_NAME[name]
        if key.field is None:  # fit: its value is the next fit of this position
            fit = next(pending, None)
            if fit is not None:
                parts.append(format_fit(fit))
        elif name not in written:
            written.add(name)
            parts.append(_token(position, key) or "")
    # Whatever key_order does not account for (a value built in code) in canonical order.
    for key in CANONICAL_KEYS:
        token = None if key.name in written else _token(position, key)
        if token is not None:
            parts.append(token)
    parts += [format_fit(f) for f in pending]
    return " ".join(p for p in parts if p)


def format_scenario(scenario: Scenario) -> str:
    if ":" in scenario.label or "//" in scenario.label or scenario.label != scenario.label.strip(" \t\r\n"):
        raise ValueError(f"a label cannot hold ':' or '//', nor start or end with white space: {scenario.label!r}")
    head = [f"{scenario.label}:"] if scenario.label else []
    head += [format_fit(f) for f in scenario.fits if f.declared_in is None]
    by_role: dict[Role, list[Fit]] = {}
    for fit in scenario.fits:
        if fit.declared_in is not None:
            by_role.setdefault(fit.declared_in, []).append(fit)
    positions = [format_position(p, by_role.get(p.role, [])) for p in scenario.positions]
    return " ".join(head + ["; ".join(positions)])


def format_dsl(scenarios: tuple[Scenario, ...] | list[Scenario]) -> str:
    return " // ".join(format_scenario(s) for s in scenarios)
