"""`bridgeshape-mirror sync`: sources, exit statuses cron can act on, state kept on failure."""

from __future__ import annotations

import logging
import json

import pytest

from bridgeshape_mirror.cli import main
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.store.lock import RunLock
from bridgeshape_mirror.store.model import Problem
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import read_dump
from support.wiki_pages import EXPORT


@pytest.fixture
def export(tmp_path):
    path = tmp_path / "export.xml"
    path.write_text(EXPORT, encoding="utf-8")
    return path


def test_dump_keeps_the_newest_revision_and_only_convention_pages(export, tmp_path):
    state = tmp_path / "state.sqlite"
    assert main(["sync", "--dump", str(export), "--state", str(state)]) == ExitCode.OK
    with StateStore(state) as store:
        pages = {p.page_id: p for p in store.pages()}
    assert sorted(pages) == [7, 8]
    assert (pages[7].revid, pages[7].raw) == (71, "opener H:5+")
    assert pages[8].problems == (Problem.NO_PARAMETER,)
    site, stream = read_dump(export)
    assert site.sitename == "BridgePedia" and [p.title for p in stream] == ["Splinter", "Senza vincoli", "Splinter (convenzione)", "Storia"]
    with StateStore(state) as store:
        assert store.redirects() == {7: ((0, "Splinter (convenzione)"),)}
        assert json.loads(store.site_info().general)["generator"] == "MediaWiki 1.44.0"


def test_truncated_dump_is_refused_and_state_kept(export, tmp_path, caplog):
    state = tmp_path / "state.sqlite"
    assert main(["sync", "--dump", str(export), "--state", str(state)]) == ExitCode.OK
    broken = tmp_path / "broken.xml"
    broken.write_text(EXPORT[: EXPORT.index("<title>Storia")], encoding="utf-8")
    with caplog.at_level(logging.ERROR):
        assert main(["sync", "--dump", str(broken), "--state", str(state)]) == ExitCode.INVALID
    assert "state kept as it was" in caplog.text
    with StateStore(state) as store:
        assert sorted(p.page_id for p in store.pages()) == [7, 8]


def test_unreachable_wiki_exits_with_wiki_error_quickly(tmp_path, caplog):
    state = tmp_path / "state.sqlite"
    argv = ["sync", "--api", "http://127.0.0.1:9/api.php", "--state", str(state), "--max-retries", "0", "--timeout", "2"]
    with caplog.at_level(logging.ERROR):
        assert main(argv) == ExitCode.WIKI_ERROR
    assert "cannot connect" in caplog.text


def test_held_lock_exits_with_locked(export, tmp_path):
    state = tmp_path / "state.sqlite"
    with RunLock(state):
        assert main(["sync", "--dump", str(export), "--state", str(state)]) == ExitCode.LOCKED


def test_bad_config_and_bad_url_are_usage_errors(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[nonsense]\n")
    assert main(["sync", "--config", str(config), "--state", str(tmp_path / "s")]) == ExitCode.USAGE
    assert main(["sync", "--api", "http://w/index.php", "--state", str(tmp_path / "s")]) == ExitCode.USAGE


def test_corrupt_state_is_a_state_error(export, tmp_path):
    state = tmp_path / "state.sqlite"
    state.write_bytes(b"garbage" * 1000)
    assert main(["sync", "--dump", str(export), "--state", str(state)]) == ExitCode.STATE_ERROR


def test_update_reports_store_errors_of_its_sync_step_as_a_failed_sync(export, tmp_path, caplog):
    state, out = tmp_path / "state.sqlite", tmp_path / "output"
    state.write_bytes(b"garbage" * 1000)
    with caplog.at_level(logging.ERROR):
        assert main(["update", "--dump", str(export), "--state", str(state), "--out", str(out)]) == ExitCode.STATE_ERROR
    assert "sync failed; state and mirror kept as they were" in caplog.text
    assert not out.exists()
    with RunLock(state):
        assert main(["update", "--dump", str(export), "--state", str(state), "--out", str(out)]) == ExitCode.LOCKED


@pytest.mark.parametrize("command", ["sync", "update"])
def test_no_source_is_a_usage_error_naming_the_three_ways(command, tmp_path, caplog):
    config = tmp_path / "c.toml"
    config.write_text('[sync]\nstate = "state.sqlite"\n')
    with caplog.at_level(logging.ERROR):
        out = ["--out", str(tmp_path / "out")] if command == "update" else []
        assert main([command, "--config", str(config), *out]) == ExitCode.USAGE
    assert "--api URL" in caplog.text and "--dump FILE" in caplog.text and "configuration file" in caplog.text
    assert not (tmp_path / "state.sqlite").exists() and not (tmp_path / "out").exists()
