"""Lines of text made as the rows of one byte table, 100,000 at once: each field in fixed
columns, padded with zero bytes, and one `replace` cutting the padding out. A Python string
per line cost more than dealing the deals (the `deals` command's JSON and PBN). The text
itself must hold no zero byte (ASCII text of deals, boards and tags does not).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from .board import VULNERABILITY_CYCLE, board, dealer_and_vulnerable

#: Fills a field shorter than its columns; cut out of the text whole.
PAD = 0


def decimal(numbers: np.ndarray) -> np.ndarray:
    """`(k, places)` uint8: each non-negative number's decimal digits, right-aligned, padded in
    front (no leading zeros; 0 is "0"). k >= 1."""
    nums = np.asarray(numbers, dtype=np.int64)
    places = len(str(int(nums.max())))
    power = 10 ** np.arange(places - 1, -1, -1, dtype=np.int64)
    digits = ((nums[:, None] // power[None, :]) % 10 + ord("0")).astype(np.uint8)
    digits[nums[:, None] < power[None, :]] = PAD
    digits[:, -1] = nums % 10 + ord("0")  # the last place always stays
    return digits


def padded(texts: Sequence[str]) -> np.ndarray:
    """`(len(texts), widest)` uint8: ASCII texts, each padded at its end."""
    out = np.full((len(texts), max([1, *map(len, texts)])), PAD, dtype=np.uint8)
    for i, text in enumerate(texts):
        out[i, : len(text)] = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    return out


def constant(text: str) -> np.ndarray:
    """`(1, len(text))`: a field every row shares (`joined` broadcasts it)."""
    return np.frombuffer(text.encode("ascii"), dtype=np.uint8)[None, :]


def cycle_places(numbers: np.ndarray) -> np.ndarray:
    """Each board's row in the tables of boards 1..16 (`board_columns`, `board_dealers`):
    dealer and vulnerability repeat every 16 boards (`deals.boards.board`)."""
    return (np.asarray(numbers, dtype=np.int64) - 1) % len(VULNERABILITY_CYCLE)


@functools.cache
def board_columns() -> tuple[np.ndarray, np.ndarray]:
    """Boards 1..16's dealer letter `(16, 1)` and vulnerability `(16, 4)`, padded (rows by
    `cycle_places`)."""
    cycle = [dealer_and_vulnerable(n) for n in range(1, len(VULNERABILITY_CYCLE) + 1)]
    return padded([d for d, _ in cycle]), padded([v for _, v in cycle])


@functools.cache
def board_dealers() -> np.ndarray:
    """Boards 1..16's dealer seat `(16,)` (rows by `cycle_places`)."""
    return np.array([board(n).dealer for n in range(1, len(VULNERABILITY_CYCLE) + 1)], dtype=np.int64)


def joined(fields: Sequence[np.ndarray], rows: int) -> bytes:
    """The `rows` lines whose fields, side by side, are `fields` (each `(rows, w)`, or `(1, w)`
    for every row), padding cut out."""
    out = np.empty((rows, sum(f.shape[1] for f in fields)), dtype=np.uint8)
    at = 0
    for field in fields:
        out[:, at : at + field.shape[1]] = field
        at += field.shape[1]
    return out.tobytes().replace(bytes([PAD]), b"")
