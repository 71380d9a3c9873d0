"""The last line of every locked run (sync, build, update), success or failure, is one
summary line a cron mail can be read from: the command, ok or FAILED with the exit status
and its cause, and the run's figures. Through the real console script, stderr not a terminal."""

from __future__ import annotations

import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bridgeshape_mirror.store.lock import lock_text
from support.lock_holder import held_elsewhere
from support.wiki_pages import EXPORT

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", *argv], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert lines, done
    return lines[-1]


def test_success_ends_with_one_ok_line(tmp_path: Path) -> None:
    export = tmp_path / "export.xml"
    export.write_text(EXPORT, encoding="utf-8")
    state, out = str(tmp_path / "state.sqlite"), str(tmp_path / "out")
    done = run("update", "--dump", str(export), "--state", state, "--out", out, "--deals", "1", "--no-dd")
    assert done.returncode == 0, done.stderr
    line = last_line(done)
    assert "update: ok: build: 2 pages (" in line and "files written" in line, line
    assert line.rstrip().endswith(" s") and " in " in line
    sync = run("sync", "--dump", str(export), "--state", state)
    assert "sync: ok: sync (dump): 2 convention pages" in last_line(sync)
    # -q, as cron runs it: a success prints nothing, so cron mails nothing.
    quiet = run("build", "--state", state, "--out", out, "--deals", "1", "--no-dd", "-q")
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_failure_ends_with_one_failed_line_naming_status_and_cause(tmp_path: Path) -> None:
    argv = ("--api", "http://127.0.0.1:9/api.php", "--state", str(tmp_path / "s"), "--max-retries", "0", "--timeout", "2")
    for command in ("sync", "update"):
        done = run(command, *argv, "-q")
        assert done.returncode == 4
        line = last_line(done)
        assert f"{command}: FAILED (exit 4 wiki_error): sync failed" in line, line
        assert "cannot connect" in line  # the cause, not only the status
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    export = tmp_path / "export.xml"
    export.write_text(EXPORT, encoding="utf-8")
    state = str(tmp_path / "state.sqlite")
    assert run("sync", "--dump", str(export), "--state", state, "-q").returncode == 0
    done = run("build", "--state", state, "--out", str(blocker / "out"), "--deals", "1", "--no-dd")
    assert done.returncode == 6
    assert "build: FAILED (exit 6 build_error): build failed, the published mirror is unchanged: cannot publish" in last_line(done)


def test_an_overlapping_run_mails_nothing_unless_the_lock_has_been_held_for_over_an_hour(tmp_path: Path) -> None:
    export = tmp_path / "export.xml"
    export.write_text(EXPORT, encoding="utf-8")
    state, out = tmp_path / "state.sqlite", tmp_path / "out"
    argv = ("update", "--dump", str(export), "--state", str(state), "--out", str(out), "--deals", "1", "--no-dd")
    host = socket.gethostname()
    with held_elsewhere(state) as holder:
        quiet = run(*argv, "-q")
        assert (quiet.returncode, quiet.stderr) == (3, "")
        told = run(*argv)  # without -q, the overlap is said, at info level
        assert told.returncode == 3
        assert f"update: not run (exit 3 locked): another run holds {state}.lock (pid {holder.pid} on {host}, since " in last_line(told)
        lock = Path(f"{state}.lock")
        lock.write_text(lock_text(holder.pid, host, datetime.now(UTC) - timedelta(minutes=59)), encoding="utf-8")
        assert (run(*argv, "-q").returncode, run(*argv, "-q").stderr) == (3, "")
        taken = datetime.now(UTC) - timedelta(hours=2, minutes=5)
        lock.write_text(lock_text(holder.pid, host, taken), encoding="utf-8")
        hung = run(*argv, "-q")
    assert hung.returncode == 3
    (line,) = hung.stderr.splitlines()  # one line, for one mail
    assert " WARNING update: not run (exit 3 locked) with WARNING: the lock has been held for 2.1 h" in line, line
    assert f"(pid {holder.pid} on {host}, since {taken:%Y-%m-%d %H:%M:%S} UTC)" in line
    assert not out.exists() and not state.exists()
