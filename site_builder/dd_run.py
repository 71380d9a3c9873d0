"""Double-dummy tables for the build's deals, within a budget of seconds per run, and what
the mirror's files say of them.

A table is computed once per deal and kept in the state store (`store.dd_tables`); each run
spends at most `budget` seconds of DDS on deals that have none, page by page (pages in id
order, each page's deals in board order), in batches that keep both cores busy. A deal not
reached is published without `dd` and `par` and waits for a later run, so the first build of
a large wiki never holds cron for long. The build publishes the deals with the tables
already stored (`stored`) before it solves any (`fill`), then publishes again. Batches are sized from the time the run's earlier
ones took, each to fill half the time left (the rate varies from deal to deal and with
the machine's load), so the budget is passed only when a batch takes more than twice its
estimate; a batch is never cut short (DDS cannot be stopped midway).

A deal DDS fails on is logged and published without `dd`; it has no row, so the next run
tries it again; a damaged row is dropped when it is read (`DDTables.find`), and its deal
waits here like any other. DDS that cannot be loaded at all is one warning, and the build goes on.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bridgeshape_mirror.deals.boards.board import Board, BoardDeal, page_boards
from bridgeshape_mirror.deals.double_dummy import (
    BATCH_LIMIT,
    DDTable,
    ParResult,
    Summary,
    par,
    pbn_tags,
    summary,
)
from bridgeshape_mirror.deals.outcome import ScenarioDeals
from bridgeshape_mirror.deals.boards.pbn import PbnTag
from bridgeshape_mirror.store.dd_tables import DDTables
from bridgeshape_mirror.store.state import StateStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DDRun:
    """The tables of the build's published deals (those that have one), and how the run went."""

    tables: Mapping[str, DDTable] = field(default_factory=dict)
    #: Tables computed by this run, deals DDS failed on, and published deals without a table.
    computed: int = 0
    failed: int = 0
    waiting: int = 0
    seconds: float = 0.0
    #: The deals without a table, in the order they are solved.
    pending: tuple[str, ...] = ()

    def page(self, outcomes: Iterable[ScenarioDeals]) -> PageDD:
        """What the files of one page say: per deal its table and par on its board."""
        outcomes = list(outcomes)
        deals: dict[tuple[int, int], DealDD] = {}
        for bd in page_boards((o.index, o.label, o.deals) for o in outcomes):
            table = self.tables.get(bd.pbn)
            if table is not None:
                deals[(bd.scenario, bd.deal_index)] = DealDD(table, par(table, bd.board), bd.board)
        summaries = {
            o.index: summary([self.tables.get(pbn) for pbn in o.deals]) for o in outcomes if o.deals
        }
        return PageDD(deals, summaries)


@dataclass(frozen=True)
class DealDD:
    table: DDTable
    par: ParResult
    board: Board

    def to_json(self) -> dict[str, Any]:
        return {"dd": self.table.to_json(), "par": self.par.to_json()}


@dataclass(frozen=True)
class PageDD:
    """One page's tables: by (scenario index, deal index from 0), and each scenario's summary."""

    deals: Mapping[tuple[int, int], DealDD]
    summaries: Mapping[int, Summary]

    def key(self) -> list[Any]:
        """What the page's files show of double dummy, for their render key."""
        return sorted([s, i, d.table.text] for (s, i), d in self.deals.items())

    def of(self, scenario: int, count: int) -> tuple[DealDD | None, ...]:
        return tuple(self.deals.get((scenario, i)) for i in range(count))

    def add_to(self, document: dict[str, Any]) -> dict[str, Any]:
        """`api/deals/<pageId>.json` with `dd` and `par` after each analysed deal's fields."""
        for entry in document["scenarios"]:
            for i, deal in enumerate(entry["deals"]):
                found = self.deals.get((entry["index"], i))
                if found is not None:
                    deal.update(found.to_json())
        return document

    def pbn_tags(self, pbn_of: Mapping[tuple[int, int], str]) -> Callable[[BoardDeal], tuple[PbnTag, ...]]:
        """The extra tags of a PBN game: its table and par on the game's board, looked up by
        the opener-North deal it shows."""
        by_deal = {pbn_of[key]: d.table for key, d in self.deals.items() if key in pbn_of}

        def tags(deal: BoardDeal) -> tuple[PbnTag, ...]:
            table = by_deal.get(deal.pbn)
            return pbn_tags(table, deal.board) if table is not None else ()

        return tags


def stored(store: StateStore, deals: Mapping[int, list[ScenarioDeals]]) -> DDRun:
    """The stored tables of every deal in `deals` (by page id), no DDS: what the first
    publish shows; the deals without one wait, in the order `fill` takes them."""
    order: list[str] = []
    seen: set[str] = set()
    for page_id in sorted(deals):
        for bd in page_boards((o.index, o.label, o.deals) for o in deals[page_id]):
            if bd.pbn not in seen:
                seen.add(bd.pbn)
                order.append(bd.pbn)
    tables = DDTables(store).find(order)
    pending = tuple(pbn for pbn in order if pbn not in tables)
    return DDRun(tables, waiting=len(pending), pending=pending)


def fill(
    store: StateStore,
    run: DDRun,
    budget: float,
    counted: Callable[[int], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> DDRun:
    """`run` with new tables for its waiting deals, for at most `budget` seconds (0: none)."""
    tables = dict(run.tables)
    computed, failed, spent = _compute(DDTables(store), list(run.pending), budget, tables, counted or (lambda n: None), clock)
    pending = tuple(pbn for pbn in run.pending if pbn not in tables)
    return DDRun(tables, computed, failed, len(pending), spent, pending)


def analyse(
    store: StateStore,
    deals: Mapping[int, list[ScenarioDeals]],
    budget: float,
    counted: Callable[[int], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> DDRun:
    """The stored tables of every deal in `deals` (by page id), and new ones for at most
    `budget` seconds (0: none)."""
    return fill(store, stored(store, deals), budget, counted, clock)


def forget_unpublished(store: StateStore, deals: Mapping[int, list[ScenarioDeals]]) -> None:
    """Drop the tables of deals this build did not publish (old revisions' deals)."""
    DDTables(store).keep_only(pbn for outcomes in deals.values() for o in outcomes for pbn in o.deals)


def _compute(
    kept: DDTables,
    pending: list[str],
    budget: float,
    tables: dict[str, DDTable],
    counted: Callable[[int], None],
    clock: Callable[[], float],
) -> tuple[int, int, float]:
    if not budget > 0 or not pending:  # NaN is no budget either
        return 0, 0, 0.0
    try:
        from bridgeshape_mirror.deals.double_dummy import solve
    except (ImportError, OSError) as exc:
        log.warning("double dummy: DDS cannot be loaded (%s); deals are published without dd", exc)
        return 0, 0, 0.0
    # A first batch small enough to be quick anywhere; the next ones as many as the time
    # the run's batches took so far says fit in what is left.
    first = 2 * (os.cpu_count() or 1)
    start = clock()
    done = computed = failed = 0
    traced = False
    while done < len(pending):
        spent = clock() - start
        left = budget - spent
        if done == 0:
            size = first
        else:  # tables per second so far, times half the seconds left (the rate varies)
            size = int(min(left / 2 * done / spent, BATCH_LIMIT)) if spent > 0 else BATCH_LIMIT
        size = min(size, BATCH_LIMIT, len(pending) - done)
        if left <= 0 or size < 1:
            break
        batch = pending[done : done + size]
        try:
            results = solve(batch)
        except OSError as exc:  # the library itself would not load or run
            log.warning("double dummy: DDS failed (%s); the deals left wait for the next run", exc)
            break
        except Exception as exc:  # noqa: BLE001 - a bug on one batch: its deals go without, the rest go on
            # the traceback once a run; its deals are said one by one below
            log.log(logging.WARNING if traced else logging.ERROR, "double dummy: internal error on %d deals (%r); please report it", len(batch), exc, exc_info=not traced)
            traced, results = True, [None] * len(batch)
        new = {}
        for pbn, table in zip(batch, results):
            if table is None:
                failed += 1
                log.warning("double dummy: DDS failed on the deal %s; it is published without dd and tried again next run", pbn)
            else:
                new[pbn] = table
        kept.add(new)
        tables.update(new)
        computed += len(new)
        done += len(batch)
        counted(len(batch))
    return computed, failed, clock() - start
