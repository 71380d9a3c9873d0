"""Every exit status of `bridgeshape-mirror` (bridgeshape_mirror/exit_codes.py), each
reached through the real entry point from a real cause: what cron and scripts read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.store.lock import RunLock
from support.wiki_pages import EXPORT  # one convention page: a build of it takes a moment
from support.cli import status


@pytest.fixture
def synced(tmp_path: Path) -> Path:
    """A state store synced from EXPORT."""
    export = tmp_path / "export.xml"
    export.write_text(EXPORT, encoding="utf-8")
    state = tmp_path / "state.sqlite"
    assert status("sync", "--dump", str(export), "--state", str(state), "-q") == ExitCode.OK
    return state


def test_every_status_is_tested_here() -> None:
    """A new status must get its own test below."""
    assert sorted(ExitCode) == [0, 1, 2, 3, 4, 5, 6, 7, 70]


def test_ok(synced: Path, tmp_path: Path) -> None:
    assert status("build", "--state", str(synced), "--out", str(tmp_path / "out"), "--deals", "1", "--no-dd", "-q") == ExitCode.OK == 0
    assert (tmp_path / "out" / "api" / "list.json").is_file()


def test_invalid_dsl() -> None:
    assert status("validate", "opener H:5+ hcp:40") == ExitCode.INVALID == 1


def test_usage_error_from_argparse_and_from_the_configuration(tmp_path: Path) -> None:
    assert status("build", "--deals", "-1") == ExitCode.USAGE == 2
    assert status("build", "--config", str(tmp_path / "missing.toml"), "--state", str(tmp_path / "s")) == ExitCode.USAGE


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[wki]\napi = 'http://w/api.php'\n", "unknown section [wki]; did you mean [wiki]?"),
        ("[bulid]\ndeals = 3\n", "unknown section [bulid]; did you mean [build]?"),
        ("[mirror]\n", "unknown section [mirror] (the sections are [wiki], [sync], [build], [serve], [follow])"),
        ("[build]\ndd-budget = 30\n", "unknown key 'dd-budget' in [build]; did you mean 'dd_budget'?"),
        ("[sync]\ninfo_check_hour = 1\n", "unknown key 'info_check_hour' in [sync]; did you mean 'info_check_hours'?"),
        ("[serve]\nmaxage = 60\n", "unknown key 'maxage' in [serve]; did you mean 'max_age'?"),
        ("[wiki]\npassword = 'x'\n", "unknown key 'password' in [wiki]; did you mean 'password_file'?"),
        ("[build]\nstat = 'x'\n", "unknown key 'stat' in [build]; did you mean 'state' in [sync] or 'stage'?"),
        ("[build]\nstate = 'x'\n", "'state' is not a key of [build]: it belongs in [sync]"),
        ("deals = 3\n", "'deals' is outside every section: it belongs in [build]"),
        ("dels = 3\n", "unknown key 'dels' outside every section; did you mean 'deals' in [build]?"),
        ("[sync]\nfrobnicate = 1\n", "unknown key 'frobnicate' in [sync]\n"),
        ("build = 3\n", "build = ... where [build] is a section (a table of keys)"),
    ],
)
def test_an_unknown_configuration_name_is_a_usage_error_naming_the_close_ones(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str, said: str
) -> None:
    config = tmp_path / "mirror.toml"
    config.write_text(text, encoding="utf-8")
    assert status("update", "--config", str(config), "--dump", "x.xml", "-q") == ExitCode.USAGE
    assert f"{config}: {said}" in caplog.text + "\n"
    assert not (tmp_path / "state").exists()


def test_every_key_mistyped_by_a_letter_is_offered_back(tmp_path: Path) -> None:
    from bridgeshape_mirror.config import _SECTIONS, ConfigError, load

    config = tmp_path / "mirror.toml"
    for section, keys in _SECTIONS.items():
        for key in keys:
            typo = key[:-1] + key[-1] * 2
            config.write_text(f"[{section}]\n{typo} = 1\n", encoding="utf-8")
            with pytest.raises(ConfigError, match=rf"unknown key '{typo}' in \[{section}\]; did you mean [^?]*'{key}'"):
                load(str(config), {})


def test_locked(synced: Path, tmp_path: Path) -> None:
    with RunLock(synced):
        assert status("build", "--state", str(synced), "--out", str(tmp_path / "out"), "-q") == ExitCode.LOCKED == 3
    assert not (tmp_path / "out").exists()


def test_wiki_error(tmp_path: Path) -> None:
    argv = ("sync", "--api", "http://127.0.0.1:9/api.php", "--state", str(tmp_path / "s"), "--max-retries", "0", "--timeout", "2", "-q")
    assert status(*argv) == ExitCode.WIKI_ERROR == 4


def test_state_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    state = tmp_path / "state.sqlite"
    state.write_bytes(b"not a SQLite database, whatever it is\n" * 100)
    assert status("build", "--state", str(state), "--out", str(tmp_path / "out"), "-q") == ExitCode.STATE_ERROR == 5
    assert "cannot open the state store" in caplog.text


def test_build_error_when_the_output_cannot_be_published(synced: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    assert status("build", "--state", str(synced), "--out", str(blocker / "out"), "--deals", "1", "--no-dd", "-q") == ExitCode.BUILD_ERROR == 6
    assert "cannot publish to" in caplog.text


def test_refused_when_the_template_is_used_by_no_page(synced: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    export = tmp_path / "export.xml"
    argv = ("sync", "--dump", str(export), "--state", str(synced), "--template", "Convenzone", "-q")
    assert status(*argv) == ExitCode.REFUSED == 7
    assert "--allow-removals" in caplog.text


def test_internal_error_is_a_bug_with_a_trace(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken_parse(raw: str) -> None:
        raise RuntimeError("a bug in the parser")

    monkeypatch.setattr(dsl, "parse", broken_parse)
    assert status("validate", "opener H:5+") == ExitCode.INTERNAL == 70
    err = capsys.readouterr().err
    assert "Traceback" in err and "internal error: RuntimeError('a bug in the parser')" in err


def test_the_console_script_passes_the_status_on() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "validate", "opener H:5+ hcp:40"], capture_output=True, timeout=60
    )
    assert done.returncode == ExitCode.INVALID
    done = subprocess.run([sys.executable, "-m", "bridgeshape_mirror.cli", "nonsense"], capture_output=True, timeout=60)
    assert done.returncode == ExitCode.USAGE


def test_the_console_script_s_entry_exits_with_the_status_after_its_output_and_exit_handlers() -> None:
    # `cli.run` (the installed script's entry) freezes the objects left before exiting: the
    # output, the status and the atexit handlers must be as `main` alone gives them.
    probe = (
        "import atexit, gc, sys\nfrom bridgeshape_mirror import cli\n"
        "atexit.register(lambda: print('at exit, frozen:', gc.get_freeze_count() > 0, file=sys.stderr))\n"
        "sys.argv = ['bridgeshape-mirror', 'deals', sys.argv[1], '--count', '3']\ncli.run()"
    )
    done = subprocess.run([sys.executable, "-c", probe, "opener H:5+ hcp:12+"], capture_output=True, text=True, timeout=60)
    assert done.returncode == ExitCode.OK
    assert done.stdout.count('"pbn": "N:') == 3 and done.stdout.endswith("]}\n")
    assert "at exit, frozen: True" in done.stderr
    done = subprocess.run([sys.executable, "-c", probe, "opener H:5+ hcp:40"], capture_output=True, text=True, timeout=60)
    assert done.returncode == ExitCode.INVALID and "at exit, frozen: True" in done.stderr
