"""Double-dummy tables kept with the deals, in their own table of the state file: one row per
deal (its PBN string with the opener North), so a table is computed once, whatever board or
page the deal is published on, and only again when the deal changes. A deal DDS failed on
has no row, so the next run tries it again, and so has a damaged row once `find` has met
it. Written through the store's transactions."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from bridgeshape_mirror.deals.double_dummy import DDTable

from .state import StateStore

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS dd_tables (
    deal   TEXT PRIMARY KEY,
    tricks TEXT NOT NULL
);
"""


class DDTables:
    def __init__(self, store: StateStore):
        self.store = store
        store.add_tables(_SCHEMA)

    def find(self, deals: Iterable[str]) -> dict[str, DDTable]:
        """The stored tables of those of `deals` that have one. A damaged row (a deal or a
        table that cannot be read, a table that cannot be) is dropped with one warning: a
        table is only a cache of DDS's answer, so its deal is solved again, and no build
        waits for a repair by hand."""
        wanted = set(deals)
        with self.store.reading():  # a damaged file is still the state's fault (exit 5)
            # As bytes, decoded here: a text column that is not UTF-8 would fail the whole query.
            rows = self.store.connection.execute(
                "SELECT rowid, CAST(deal AS BLOB), CAST(tricks AS BLOB) FROM dd_tables"
            ).fetchall()
        found: dict[str, DDTable] = {}
        damaged: list[tuple[int]] = []
        for rowid, deal, tricks in rows:
            try:
                table = DDTable.from_text(tricks.decode("ascii"))
                deal = deal.decode("utf-8")
            except (AttributeError, UnicodeDecodeError, ValueError):  # AttributeError: NULL
                damaged.append((rowid,))
                continue
            if deal in wanted:
                found[deal] = table
        if damaged:
            log.warning(
                "double dummy: %d damaged table(s) dropped from the state store %s; their deals are solved again",
                len(damaged), self.store.path,
            )
            with self.store.transaction() as db:
                db.executemany("DELETE FROM dd_tables WHERE rowid = ?", damaged)
        return found

    def add(self, tables: Mapping[str, DDTable]) -> None:
        """Keep these new tables now (one transaction): work done is not lost to a later failure."""
        if not tables:
            return
        with self.store.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO dd_tables VALUES (?, ?)", [(d, t.text) for d, t in tables.items()])

    def keep_only(self, deals: Iterable[str]) -> None:
        """Forget the tables of deals no longer published (after the build has published)."""
        keep = set(deals)
        with self.store.reading():
            stored = [row[0] for row in self.store.connection.execute("SELECT deal FROM dd_tables")]
        gone = [(deal,) for deal in stored if deal not in keep]
        if gone:
            with self.store.transaction() as db:
                db.executemany("DELETE FROM dd_tables WHERE deal = ?", gone)
