"""A document's scenarios dealt while it is written (the `deals` command): each scenario's
deals come a batch at a time (`deals.outcome.dealing`), so a writer holds a batch of each
scenario, whatever the count, and writes its lines a batch at a time as one byte table
(`deals.boards.byte_rows`).

A board's number depends on how many scenarios have deals (`deals.boards.board.board_runs`). A
scenario fails only before its first batch, and one that yields a batch gives every deal
asked, so `open_streams` deals each scenario to its first batch (or its failure) before a
writer writes anything; then every board's number is known. JSON writes the scenarios one
after the other (`ScenarioStream.rows`); PBN and LIN write boards in order, the scenarios in
turn (`board_chunks`), which draws from every scenario at once: each has its own generator
(`make_rng(seed, index)`), so its deals are those it would give alone.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..boards.board import board_runs
from ..outcome import ScenarioDeals, dealing
from ..boards.pbn import PBN_DEAL_LENGTH, format_rows

if TYPE_CHECKING:
    from bridgeshape_mirror.dsl.model import Scenario

    from ..drawing.rng import Rng


class ShortStream(RuntimeError):
    """A scenario dealt fewer or more deals than its first batch promised (a sampler's bug):
    the board numbers written so far would be wrong."""


class ScenarioStream:
    """Scenario `index` being dealt: `count` deals (all those asked, or none when it failed),
    read once as PBN rows (`rows`), then its `outcome` (the probability, or why no deals).
    `batches` yields the deals as `(k, 52)` seat-of-card arrays and returns the outcome
    (`deals.outcome.dealing`); it is read to its first batch at once."""

    def __init__(self, index: int, label: str, count: int, batches: Generator[np.ndarray, None, ScenarioDeals]):
        self.index = index
        self.label = label
        self._batches = batches
        self._outcome: ScenarioDeals | None = None
        self._first = self._next()
        self.count = 0 if self._first is None else count
        self._given = 0

    def _next(self) -> np.ndarray | None:
        if self._outcome is not None:
            return None
        try:
            return next(self._batches)
        except StopIteration as done:
            self._outcome = done.value
            return None

    @property
    def failed(self) -> ScenarioDeals | None:
        """The outcome of a scenario that has no deals and says why (known at once)."""
        o = self._outcome if self._first is None else None
        return o if o is not None and o.no_deals_reason else None

    def rows(self) -> Iterator[np.ndarray]:
        """The deals, a batch at a time, as `(k, 69)` uint8 PBN rows (`deals.boards.pbn.format_rows`)."""
        batch, self._first = self._first, None
        while batch is not None:
            rows = format_rows(batch)
            self._given += len(rows)
            if self._given > self.count:
                raise ShortStream(f"scenario {self.index} dealt {self._given} deals of {self.count}")
            yield rows
            batch = self._next()
        if self._given != self.count:
            raise ShortStream(f"scenario {self.index} dealt {self._given} deals of {self.count}")

    @property
    def outcome(self) -> ScenarioDeals:
        """The outcome, without its deals: known once `rows` is read to its end."""
        assert self._outcome is not None, "an outcome is known once its deals are read"
        return self._outcome


def open_streams(scenarios: Sequence[tuple[int, Scenario]], count: int, rngs: Sequence[Rng]) -> list[ScenarioStream]:
    """Each of `scenarios` (its number and itself) dealt to its first batch, with its own rng."""
    return [
        ScenarioStream(index, scenario.label, count, dealing(scenario, index, count, rng))
        for (index, scenario), rng in zip(scenarios, rngs)
    ]


def deal_boards(counts: Sequence[int], place: int, start: int, stop: int) -> np.ndarray:
    """The board numbers (int64) of deals `start` up to `stop` of the scenario at `place`
    among scenarios with `counts` deals (`deals.boards.board.board_runs`)."""
    parts = []
    for run in board_runs(counts):
        low, high = max(start, run.depth), min(stop, run.limit)
        if low < high:
            rank = sum(count > run.depth for count in counts[:place])
            parts.append(run.first + rank + run.scenarios * np.arange(low - run.depth, high - run.depth, dtype=np.int64))
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


@dataclass(frozen=True)
class BoardChunk:
    """Consecutive boards from `first`: board `first + i` is deal `rows[i]` of the stream at
    `scenario_of[i]` (its place among the streams)."""

    first: int
    scenario_of: np.ndarray
    rows: np.ndarray

    @property
    def numbers(self) -> np.ndarray:
        return self.first + np.arange(len(self.rows), dtype=np.int64)


def board_chunks(streams: Sequence[ScenarioStream], most: int) -> Iterator[BoardChunk]:
    """Every deal of `streams` as boards in order, at most `most` boards a chunk: within a run
    (`deals.boards.board.BoardRun`) the same scenarios take turns, so a chunk is the next deals of
    each of them, side by side. Each scenario's batches are read as the boards need them."""
    readers = [s.rows() for s in streams]
    held: list[list[np.ndarray]] = [[] for _ in streams]
    ready = [0] * len(streams)
    for run in board_runs([s.count for s in streams]):
        turns = [i for i, s in enumerate(streams) if s.count > run.depth]
        depth = run.depth
        while depth < run.limit:
            for i in turns:
                if not ready[i]:
                    rows = next(readers[i])
                    held[i].append(rows)
                    ready[i] += len(rows)
            take = min(min(ready[i] for i in turns), run.limit - depth, max(1, most // len(turns)))
            side = np.empty((take, len(turns), PBN_DEAL_LENGTH), dtype=np.uint8)
            for place, i in enumerate(turns):
                side[:, place] = _taken(held[i], take)
                ready[i] -= take
            first = run.first + (depth - run.depth) * len(turns)
            yield BoardChunk(first, np.tile(np.array(turns, dtype=np.int64), take), side.reshape(take * len(turns), -1))
            depth += take
    for reader, s in zip(readers, streams):  # each to its end: its outcome, and `rows`' check of its count
        if next(reader, None) is not None:
            raise ShortStream(f"scenario {s.index} dealt more deals than its {s.count}")


def _taken(held: list[np.ndarray], take: int) -> np.ndarray:
    """The first `take` rows of the arrays `held` (taken out of it)."""
    parts, need = [], take
    while need:
        head = held[0]
        if len(head) <= need:
            parts.append(held.pop(0))
            need -= len(head)
        else:
            parts.append(head[:need])
            held[0] = head[need:]
            need = 0
    return parts[0] if len(parts) == 1 else np.concatenate(parts)
