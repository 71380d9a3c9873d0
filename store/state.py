"""The local state store: one SQLite file with the convention pages and the sync cursor.

Every run writes in one transaction at its end, so a run that fails (or is killed) leaves
the previous state exactly as it was. Other layers may keep their own tables in the same
file (`add_tables`, then `connection` to read and `transaction()` to write), never touching
`pages` and `meta`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import StateError
from .model import Problem, SiteInfo, WikiPage

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages (
    page_id   INTEGER PRIMARY KEY,
    title     TEXT NOT NULL,
    namespace INTEGER NOT NULL,
    revid     INTEGER NOT NULL,
    timestamp TEXT NOT NULL,
    raw       TEXT,
    problems  TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS pages_title ON pages (title);
"""


#: The meta key of the redirects to convention pages: {page id: [[namespace, title], ...]}.
REDIRECTS = "redirects"


class StateStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # its folder's place holds a file, or is not writable
            raise StateError(f"cannot make the folder of the state store {self.path}: {exc}") from exc
        try:
            self.connection = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.executescript(_SCHEMA)
            version = self.get_meta("schema_version")
            if version is None:
                self.connection.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif int(version) != SCHEMA_VERSION:
                raise StateError(f"{self.path}: state schema {version}, this version reads {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StateError(f"cannot open the state store {self.path}: {exc}") from exc

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> StateStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction; inside another, part of it (the outer one commits or undoes both),
        so that writes of two layers that must not part, such as a build's history and its
        report events, are made together."""
        if self.connection.in_transaction:
            with self._writing():
                yield self.connection
            return
        with self._writing():
            self.connection.execute("BEGIN IMMEDIATE")
        try:
            with self._writing():
                yield self.connection
        except BaseException:
            try:
                self.connection.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass  # the write failed and took the transaction with it: nothing to undo
            raise
        with self._writing():
            self.connection.execute("COMMIT")

    def add_tables(self, schema: str) -> None:
        """Create another layer's own tables (`CREATE TABLE IF NOT EXISTS ...`) in this file."""
        with self._writing():
            self.connection.executescript(schema)

    @contextmanager
    def _writing(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise StateError(f"cannot write the state store {self.path}: {exc}") from exc

    # -- reading ---------------------------------------------------------------------------

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Reads of this file (History's too): a damaged file (flipped bytes: malformed pages,
        text that is not UTF-8, JSON that is not) is a StateError, not a bug."""
        try:
            yield
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError) as exc:
            raise StateError(f"the state store {self.path} is damaged: {exc}") from exc

    def get_meta(self, key: str) -> str | None:
        with self.reading():
            row = self.connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def get_json(self, key: str) -> Any:
        value = self.get_meta(key)
        with self.reading():
            return None if value is None else json.loads(value)

    def pages(self) -> list[WikiPage]:
        with self.reading():
            rows = self.connection.execute(
                "SELECT page_id, title, namespace, revid, timestamp, raw, problems FROM pages ORDER BY page_id"
            )
            return [_page(row) for row in rows]

    def page(self, page_id: int) -> WikiPage | None:
        with self.reading():
            row = self.connection.execute(
                "SELECT page_id, title, namespace, revid, timestamp, raw, problems FROM pages WHERE page_id = ?", (page_id,)
            ).fetchone()
            return _page(row) if row else None

    def revisions(self) -> dict[int, int]:
        with self.reading():
            return dict(self.connection.execute("SELECT page_id, revid FROM pages"))

    def ids_with_titles(self, titles: Iterable[str]) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        with self.reading():
            for title in set(titles):
                ids = [r[0] for r in self.connection.execute("SELECT page_id FROM pages WHERE title = ?", (title,))]
                if ids:
                    found[title] = ids
        return found

    def redirects(self) -> dict[int, tuple[tuple[int, str], ...]]:
        """Convention page id -> the redirects to it as sync last read them ((namespace, title))."""
        data = self.get_json(REDIRECTS) or {}
        return {int(page_id): tuple((int(ns), str(title)) for ns, title in pairs) for page_id, pairs in data.items()}

    def site_info(self) -> SiteInfo | None:
        data = self.get_json("siteinfo")
        if data is None:
            return None
        with self.reading():
            return self._site_info(data)

    @staticmethod
    def _site_info(data: dict[str, Any]) -> SiteInfo:
        return SiteInfo(
            namespaces={int(k): v for k, v in data["namespaces"].items()},
            namespace_lookup=dict(data["namespace_lookup"]),
            case_sensitive=frozenset(data["case_sensitive"]),
            article_path=data.get("article_path", ""),
            server=data.get("server", ""),
            script_path=data.get("script_path", ""),
            sitename=data.get("sitename", ""),
            general=data.get("general", ""),
            lang=data.get("lang", ""),
        )

    # -- writing (inside transaction()) ------------------------------------------------------

    @staticmethod
    def put_meta(connection: sqlite3.Connection, key: str, value: Any) -> None:
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        connection.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, text))

    @staticmethod
    def delete_meta(connection: sqlite3.Connection, key: str) -> None:
        connection.execute("DELETE FROM meta WHERE key = ?", (key,))

    @staticmethod
    def put_site_info(connection: sqlite3.Connection, site: SiteInfo) -> None:
        StateStore.put_meta(
            connection,
            "siteinfo",
            {
                "namespaces": {str(k): v for k, v in site.namespaces.items()},
                "namespace_lookup": site.namespace_lookup,
                "case_sensitive": sorted(site.case_sensitive),
                "article_path": site.article_path,
                "server": site.server,
                "script_path": site.script_path,
                "sitename": site.sitename,
                "general": site.general,
                "lang": site.lang,
            },
        )

    @staticmethod
    def upsert(connection: sqlite3.Connection, page: WikiPage) -> None:
        connection.execute(
            "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                page.page_id,
                page.title,
                page.namespace,
                page.revid,
                page.timestamp,
                page.raw,
                json.dumps([p.value for p in page.problems]),
            ),
        )

    @staticmethod
    def delete(connection: sqlite3.Connection, page_id: int) -> None:
        connection.execute("DELETE FROM pages WHERE page_id = ?", (page_id,))

    @staticmethod
    def replace_pages(connection: sqlite3.Connection, old_ids: Iterable[int], pages: Iterable[WikiPage]) -> set[int]:
        """Make `pages` the whole set of pages (a full sync); returns the ids deleted."""
        pages = list(pages)
        gone = set(old_ids) - {p.page_id for p in pages}
        for page_id in gone:
            StateStore.delete(connection, page_id)
        for page in pages:
            StateStore.upsert(connection, page)
        return gone


def _page(row: tuple[Any, ...]) -> WikiPage:
    page_id, title, namespace, revid, timestamp, raw, problems = row
    return WikiPage(
        page_id=page_id,
        title=title,
        namespace=namespace,
        revid=revid,
        timestamp=timestamp,
        raw=raw,
        problems=tuple(Problem(p) for p in json.loads(problems)),
    )
