"""The human pages of the mirror (jinja2, autoescaped, strict): everything from the wiki is
escaped, everything is plain HTML and CSS that works from file:// and any static server."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jinja2



@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("site_builder", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["one_in"] = one_in
    env.filters["utc"] = utc
    return env


def render(template: str, **context: Any) -> bytes:
    return environment().get_template(template).render(**context).encode("utf-8")


def one_in(probability: float) -> str:
    """0.0021 -> "1 deal in 476"; what a teacher can picture."""
    if probability <= 0:
        return "never"
    n = 1 / probability
    if n < 1.05:
        return "almost every deal"
    if n < 100:
        text = f"{n:.1f}"
        return f"1 deal in {text[:-2] if text.endswith('.0') else text}"
    return f"1 deal in {round(n):,}"


def utc(timestamp: str) -> str:
    """2026-12-01T11:20:05Z -> "2026-12-01 11:20 UTC": a person needs no seconds."""
    if len(timestamp) == 20 and timestamp[10] == "T" and timestamp.endswith("Z"):
        return f"{timestamp[:10]} {timestamp[11:16]} UTC"
    return timestamp


@dataclass(frozen=True)
class Piece:
    """A run of the raw DSL text: plain, or covered by the errors numbered `errors` (from 1)."""

    text: str
    errors: tuple[int, ...] = ()


def highlight(raw: str, errors: list[dict[str, Any]]) -> list[Piece]:
    """Cut `raw` at every error's start and end, so each piece is wholly inside or outside each
    error. One sweep over the cuts, keeping the errors open at each (comparing every piece
    with every error made a page of many errors take hours)."""
    opening: dict[int, list[int]] = {}
    closing: dict[int, list[int]] = {}
    for n, e in enumerate(errors, start=1):
        start = min(e["offset"], len(raw))
        end = min(len(raw), start + max(e["length"], 1))
        if start < end:
            opening.setdefault(start, []).append(n)
            closing.setdefault(end, []).append(n)
    points = sorted({0, len(raw), *opening, *closing})
    open_now: set[int] = set()
    pieces = []
    for start, end in zip(points, points[1:]):
        open_now.difference_update(closing.get(start, ()))
        open_now.update(opening.get(start, ()))
        pieces.append(Piece(raw[start:end], tuple(sorted(open_now))))
    # An error at the very end of the text (offset == len) still needs a visible mark.
    for n, e in enumerate(errors, start=1):
        if e["offset"] >= len(raw):
            pieces.append(Piece("\u2038", (n,)))
    return pieces
