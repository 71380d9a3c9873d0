"""What the build remembers between runs, in its own tables of the state file: each page's
last valid revision (served while a newer one is broken), the deals already drawn, and
what each page's own files were rendered from (`site_builder.render_cache`), and when
the mirror's content last changed (`site_builder.status`). Written
through the store's transactions, so a state file it cannot write is a `StateError`."""

from __future__ import annotations

from dataclasses import dataclass

from .state import StateStore

_SCHEMA = """
CREATE TABLE IF NOT EXISTS build_pages (
    page_id        INTEGER PRIMARY KEY,
    good_revid     INTEGER,
    good_timestamp TEXT,
    good_raw       TEXT,
    broken_revid   INTEGER,
    broken_since   TEXT
);
CREATE TABLE IF NOT EXISTS build_deals (
    page_id  INTEGER NOT NULL,
    revid    INTEGER NOT NULL,
    scenario INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    seed     INTEGER NOT NULL,
    document TEXT NOT NULL,
    PRIMARY KEY (page_id, revid, scenario, count, seed)
);
CREATE TABLE IF NOT EXISTS build_renders (
    path   TEXT PRIMARY KEY,
    key    TEXT NOT NULL,
    digest TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS build_status (
    key       TEXT NOT NULL,
    built_at  TEXT NOT NULL,
    last_sync TEXT
);
"""


@dataclass(frozen=True)
class PageHistory:
    """The newest valid revision of a page, and when its current breakage began (if broken)."""

    good_revid: int | None = None
    good_timestamp: str | None = None
    good_raw: str | None = None
    broken_revid: int | None = None
    broken_since: str | None = None


@dataclass(frozen=True)
class BuiltStatus:
    """What the last build's `api/status.json` said of time, and the key of the content it
    described (`site_builder.status`)."""

    key: str
    built_at: str
    last_sync: str | None = None


class History:
    def __init__(self, store: StateStore):
        self.store = store
        store.add_tables(_SCHEMA)

    def all(self) -> dict[int, PageHistory]:
        with self.store.reading():
            rows = self.store.connection.execute(
                "SELECT page_id, good_revid, good_timestamp, good_raw, broken_revid, broken_since FROM build_pages"
            )
            return {row[0]: PageHistory(*row[1:]) for row in rows}

    def cached_deals(self, page_id: int, revid: int, scenario: int, count: int, seed: int) -> str | None:
        with self.store.reading():
            row = self.store.connection.execute(
                "SELECT document FROM build_deals WHERE page_id=? AND revid=? AND scenario=? AND count=? AND seed=?",
                (page_id, revid, scenario, count, seed),
            ).fetchone()
        return row[0] if row else None

    def renders(self) -> dict[str, tuple[str, str]]:
        """Path -> (key, digest) of the page files the last build published."""
        with self.store.reading():
            rows = self.store.connection.execute("SELECT path, key, digest FROM build_renders")
            return {row[0]: (row[1], row[2]) for row in rows}

    def last_status(self) -> BuiltStatus | None:
        row = self.store.connection.execute("SELECT key, built_at, last_sync FROM build_status").fetchone()
        return BuiltStatus(*row) if row else None

    def save(
        self,
        pages: dict[int, PageHistory],
        deals: dict[tuple[int, int, int, int, int], str],
        renders: dict[str, tuple[str, str]],
        status: BuiltStatus | None = None,
    ) -> None:
        """Replace the remembered state with this build's (one transaction; the caller publishes first)."""
        with self.store.transaction() as db:
            db.execute("DELETE FROM build_pages")
            db.executemany(
                "INSERT INTO build_pages VALUES (?, ?, ?, ?, ?, ?)",
                [(pid, h.good_revid, h.good_timestamp, h.good_raw, h.broken_revid, h.broken_since) for pid, h in pages.items()],
            )
            # Keep only the deals this build used: old revisions' deals are never asked for again.
            db.execute("DELETE FROM build_deals")
            db.executemany(
                "INSERT INTO build_deals VALUES (?, ?, ?, ?, ?, ?)", [(*key, doc) for key, doc in deals.items()]
            )
            db.execute("DELETE FROM build_renders")
            db.executemany(
                "INSERT INTO build_renders VALUES (?, ?, ?)", [(path, *kd) for path, kd in renders.items()]
            )
            if status is not None:
                db.execute("DELETE FROM build_status")
                db.execute("INSERT INTO build_status VALUES (?, ?, ?)", (status.key, status.built_at, status.last_sync))
