"""`build` of a missing or empty state store is exit 5 (not an empty mirror over the good
one); two state stores publishing to one output folder take turns, so neither's garbage
collection deletes the other's version folder mid-write."""

from __future__ import annotations

import json
import threading
from pathlib import Path, PurePosixPath

import pytest

from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.site_builder.publish import current_version, publish
from bridgeshape_mirror.store.errors import StateError
from support.mirror import intact
from support.cli import status

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample-wiki.xml"


def test_build_of_a_missing_or_empty_state_is_exit_5_and_keeps_the_mirror(tmp_path, capsys):
    state, out = tmp_path / "state.sqlite", tmp_path / "out"
    assert status("sync", "--dump", str(SAMPLE), "--state", str(state), "-q") == ExitCode.OK
    assert status("build", "--state", str(state), "--out", str(out), "--deals", "0", "-q") == ExitCode.OK
    published = current_version(out)
    assert status("build", "--state", str(tmp_path / "typo.sqlite"), "--out", str(out), "-q") == ExitCode.STATE_ERROR
    (tmp_path / "empty.sqlite").write_bytes(b"")
    assert status("build", "--state", str(tmp_path / "empty.sqlite"), "--out", str(out), "-q") == ExitCode.STATE_ERROR
    assert current_version(out) == published
    assert len(json.loads((out / "api/listall.json").read_text())["pages"]) > 10
    with pytest.raises(StateError, match="no state store"):
        build(tmp_path / "missing.sqlite", BuildSettings(out=out, dd_budget=0))
    assert "run sync first" in capsys.readouterr().err


class PausingFiles(dict):
    """Files whose writing (publish's third pass over them) stops after the first file
    until `resume` is set: a publish caught mid-write."""

    def __init__(self, files, paused: threading.Event, resume: threading.Event):
        super().__init__(files)
        self.passes = 0
        self.paused, self.resume = paused, resume

    def items(self):
        self.passes += 1
        items = list(super().items())
        if self.passes < 3:
            return items
        return self._slowly(items)

    def _slowly(self, items):
        for n, item in enumerate(items):
            yield item
            if n == 0:
                self.paused.set()
                self.resume.wait(10)


def test_two_stores_publishing_to_one_folder_take_turns(tmp_path):
    out = tmp_path / "out"
    publish(out, {PurePosixPath("a.json"): b"0"})
    paused, resume = threading.Event(), threading.Event()
    first = PausingFiles({PurePosixPath(f"first/{n}.json"): b"1" for n in range(20)}, paused, resume)
    outcomes: dict[str, object] = {}

    def run(name, files):
        try:
            outcomes[name] = publish(out, files)
        except Exception as exc:  # noqa: BLE001 - the test reports it
            outcomes[name] = exc

    one = threading.Thread(target=run, args=("first", first))
    one.start()
    assert paused.wait(10)
    two = threading.Thread(target=run, args=("second", {PurePosixPath("second.json"): b"2"}))
    two.start()
    two.join(1.0)  # before the lock, the second published now and deleted the first's folder
    resume.set()
    one.join(30)
    two.join(30)
    assert not isinstance(outcomes["first"], Exception), outcomes["first"]
    assert not isinstance(outcomes["second"], Exception), outcomes["second"]
    assert (out / "second.json").read_bytes() == b"2"  # the second waited, then published
    assert intact(current_version(out))
    assert intact(outcomes["first"].version)
