"""The state store's transactions, the run lock, and the build's history on the store's transactions."""

from __future__ import annotations

import logging
import math
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bridgeshape_mirror.cli import main
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.site_builder.publish import current_version
from bridgeshape_mirror.store.errors import LockHeld, StateError
from bridgeshape_mirror.store.history import History, PageHistory
from bridgeshape_mirror.store.lock import FOLLOWER, RunLock, read_holder
from bridgeshape_mirror.store.model import WikiPage
from bridgeshape_mirror.store.state import StateStore
from support.lock_holder import held_elsewhere


def page(page_id: int, revid: int = 1) -> WikiPage:
    return WikiPage(page_id, f"P{page_id}", 0, revid, "2026-11-29T10:00:00Z", "opener H:5+", ())


def test_store_round_trip_and_rollback_on_failure(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        with store.transaction() as db:
            StateStore.upsert(db, page(1))
            StateStore.put_meta(db, "cursor", {"rcid": 5})
        with pytest.raises(RuntimeError):
            with store.transaction() as db:
                StateStore.upsert(db, page(1, revid=2))
                StateStore.delete(db, 1)
                StateStore.upsert(db, page(2))
                raise RuntimeError("killed midway")
        assert store.pages() == [page(1)]
        assert store.get_json("cursor") == {"rcid": 5}
    # And it is all on disk for the next process.
    with StateStore(tmp_path / "s.sqlite") as again:
        assert again.pages() == [page(1)]


def test_corrupt_store_is_a_state_error(tmp_path):
    path = tmp_path / "bad.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StateError):
        StateStore(path)


def test_store_from_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "s.sqlite"
    StateStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StateError, match="schema 99"):
        StateStore(path)


def test_second_lock_on_the_same_state_fails_at_once(tmp_path):
    state = tmp_path / "s.sqlite"
    with RunLock(state):
        with pytest.raises(LockHeld):
            with RunLock(state):
                pass
    with RunLock(state):  # released
        pass


def test_a_held_lock_names_its_holder_in_a_file_an_operator_can_read(tmp_path):
    state = tmp_path / "s.sqlite"
    before = datetime.now(UTC).replace(microsecond=0)
    with held_elsewhere(state) as holder:
        lines = Path(f"{state}.lock").read_text(encoding="utf-8").splitlines()
        assert lines[:2] == [f"pid: {holder.pid}", f"host: {socket.gethostname()}"] and lines[2].startswith("since: 20")
        with pytest.raises(LockHeld) as held:
            with RunLock(state):
                pass
    found = held.value
    assert (found.pid, found.host) == (holder.pid, socket.gethostname())
    assert found.since is not None and before <= found.since <= datetime.now(UTC)
    assert f"pid {holder.pid} on {socket.gethostname()}, since {found.since:%Y-%m-%d %H:%M:%S} UTC" in str(found)
    assert timedelta(0) <= found.held_for() < timedelta(minutes=5)


@pytest.mark.parametrize("text", ["", "4242\n", "pid: x\nhost:\nsince: yesterday\n", "\x00\xff garbage"])
def test_a_lock_file_that_does_not_say_who_holds_it_gives_a_holder_of_unknowns(tmp_path, text):
    lock = tmp_path / "s.sqlite.lock"
    lock.write_text(text, encoding="utf-8")
    found = read_holder(lock)
    assert (found.pid, found.host, found.since, found.held_for()) == (None, None, None, None)
    assert "pid ? on ?" in str(found)


def _held_for(state: Path, seconds: float, **kind: object) -> threading.Thread:
    """A lock on `state` taken now, in another thread, and released after `seconds`."""
    taken = threading.Event()

    def hold() -> None:
        with RunLock(state, **kind):
            taken.set()
            time.sleep(seconds)

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait(5)
    return thread


def test_a_run_waits_for_a_followers_turn_and_a_follower_for_any_run(tmp_path):
    state = tmp_path / "s.sqlite"
    holder = _held_for(state, 0.5, kind=FOLLOWER)
    started = time.monotonic()
    with RunLock(state, wait=10):
        assert time.monotonic() - started >= 0.4
    holder.join()
    holder = _held_for(state, 0.5, kind="update")
    with pytest.raises(LockHeld, match=r"another run \(update\) holds .*; this one does nothing"):
        with RunLock(state, wait=10):  # two cron runs: the second does not wait
            pass
    started = time.monotonic()
    with RunLock(state, kind=FOLLOWER, wait=math.inf, wait_for_any=True):
        assert time.monotonic() - started >= 0.3
        assert "command: follow" in (tmp_path / "s.sqlite.lock").read_text().splitlines()
    holder.join()


def test_a_run_waits_for_a_follower_no_longer_than_asked(tmp_path):
    state = tmp_path / "s.sqlite"
    holder = _held_for(state, 1.5, kind=FOLLOWER)
    started = time.monotonic()
    with pytest.raises(LockHeld, match=r"another run \(follow\) holds"):
        with RunLock(state, wait=0.3):
            pass
    assert time.monotonic() - started < 1.2
    holder.join()


@contextmanager
def another_writer(path: Path) -> Iterator[None]:
    """Another process's write transaction on the state file, held until the block ends."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.fixture
def impatient_sqlite(monkeypatch):
    """The store waits 30 s for a busy database; a test need not."""
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *args, **kwargs: connect(*args, **{**kwargs, "timeout": 0.05}))


def test_history_save_on_a_locked_state_file_is_a_state_error_and_keeps_the_history(tmp_path, impatient_sqlite):
    path = tmp_path / "s.sqlite"
    remembered = {1: PageHistory(1, "2026-11-29T10:00:00Z", "opener H:5+")}
    with StateStore(path) as store:
        history = History(store)
        history.save(remembered, {}, {"pages/1.json": ("key", "digest")})
        with another_writer(path), pytest.raises(StateError, match="locked"):
            history.save({}, {}, {})
        assert history.all() == remembered
        assert history.renders() == {"pages/1.json": ("key", "digest")}


def test_build_exits_with_state_error_when_its_history_cannot_be_saved(tmp_path, impatient_sqlite, caplog):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    argv = ["build", "--state", str(state), "--out", str(out), "--deals", "0"]
    with StateStore(state) as store, store.transaction() as db:
        StateStore.upsert(db, replace(page(1), raw=None))
    assert main(argv) == ExitCode.OK
    published = current_version(out)
    with StateStore(state) as store, store.transaction() as db:
        StateStore.upsert(db, replace(page(1, revid=2), title="P1 renamed", raw=None))
    with another_writer(state), caplog.at_level(logging.ERROR):
        assert main(argv) == ExitCode.STATE_ERROR
    assert "cannot write the state store" in caplog.text
    # It failed in the history save, after publishing (the next build saves it).
    assert current_version(out) != published


def test_a_refusal_is_kept_beside_the_state_file_until_cleared(tmp_path):
    from bridgeshape_mirror.store.refusal import Refusal, clear_refusal, read_refusal, record_refusal, refusal_path

    state = tmp_path / "state.sqlite"
    assert read_refusal(state) is None
    refusal = Refusal(at="2026-12-01T10:00:00Z", message="24 of 24 pages would go", removed=24, stored=24)
    record_refusal(state, refusal)
    assert read_refusal(state) == refusal
    assert not state.exists()  # the state file itself is never touched
    refusal_path(state).write_text("{not json", encoding="utf-8")
    assert read_refusal(state) is None
    clear_refusal(state)
    clear_refusal(state)
    assert not refusal_path(state).exists()


def test_a_transaction_inside_another_is_part_of_it(tmp_path):
    path = tmp_path / "state.sqlite"
    with StateStore(path) as store, StateStore(path) as other:
        with pytest.raises(RuntimeError):
            with store.transaction() as db:
                db.execute("INSERT INTO meta VALUES ('outer', '1')")
                with store.transaction() as inner:
                    inner.execute("INSERT INTO meta VALUES ('inner', '2')")
                assert other.get_meta("inner") is None  # the inner one did not commit
                raise RuntimeError("stopped after both")
        assert store.get_meta("outer") is None and store.get_meta("inner") is None  # both undone
        with store.transaction():
            with store.transaction() as inner:
                inner.execute("INSERT INTO meta VALUES ('inner', '2')")
        assert other.get_meta("inner") == "2"
        assert not store.connection.in_transaction
