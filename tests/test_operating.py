"""The operator's files (docs/OPERATING.md). The systemd units in examples/systemd/, every
one: `systemd-analyze verify` finds nothing to say of them (an unknown key or a value it
cannot parse is only a warning there, so any output fails), their command line is one the
CLI accepts, and the run's time-out leaves room for a run's sync and double-dummy budget.
The docs' cron lines: the command's absolute path (cron's PATH has no virtual environment's
`bin/`), the same as the units', with a command line the CLI accepts."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from bridgeshape_mirror.cli import build_parser
from bridgeshape_mirror.site_builder.build import BuildSettings
from bridgeshape_mirror.store.lock import HUNG_AFTER
from bridgeshape_mirror.sync.settings import ClientSettings

ROOT = Path(__file__).resolve().parents[1]
UNITS = sorted(path for path in (ROOT / "examples" / "systemd").iterdir() if path.is_file())
#: Where the docs install the console script (the README's cron line, docs/OPERATING.md).
INSTALLED = "/opt/bridgeshape-mirror/.venv/bin/bridgeshape-mirror"


def settings(path: Path, section: str) -> dict[str, list[str]]:
    """The unit's `key=value` lines of `[section]`, each key's values in order."""
    found: dict[str, list[str]] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = line.strip("[]")
        elif current == section:
            key, _, value = line.partition("=")
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def seconds(span: str) -> float:
    """A systemd time span (`30min`, `1h 5s`), as systemd itself reads it."""
    done = subprocess.run(["systemd-analyze", "timespan", span], capture_output=True, text=True, timeout=30, check=True)
    return int(re.search(r"μs: (\d+)", done.stdout)[1]) / 1e6


def default(settings_class: type, name: str) -> float:
    return next(f.default for f in fields(settings_class) if f.name == name)


@pytest.fixture(scope="module")
def analyze() -> str:
    found = shutil.which("systemd-analyze")
    try:
        if found is None:
            raise OSError("systemd-analyze is not installed (scripts/install-test-packages.sh installs the systemd package)")
        subprocess.run([found, "--version"], capture_output=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        if os.environ.get("CI"):
            pytest.fail(f"systemd-analyze cannot run here: {exc}")
        pytest.skip(f"systemd-analyze cannot run here: {exc}")
    return found


def test_there_is_a_service_and_its_timer() -> None:
    names = {path.name for path in UNITS}
    assert {"bridgeshape-mirror.service", "bridgeshape-mirror.timer"} <= names


def test_systemd_analyze_verify_finds_nothing_to_say(analyze: str, tmp_path: Path) -> None:
    """Verified together (a timer's service is read from the same folder), with the installed
    command's path pointing at this environment's console script: verify checks that it is
    an executable, and the path the docs give does not exist here."""
    here = str(Path(sys.executable).parent / "bridgeshape-mirror")
    assert os.access(here, os.X_OK)
    for unit in UNITS:
        (tmp_path / unit.name).write_text(unit.read_text(encoding="utf-8").replace(INSTALLED, here), encoding="utf-8")
    done = subprocess.run(
        [analyze, "verify", "--man=no", *(f"./{unit.name}" for unit in UNITS)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_the_check_hears_a_mistyped_key(analyze: str, tmp_path: Path) -> None:
    unit = tmp_path / "x.service"
    unit.write_text("[Service]\nType=oneshot\nExecStart=/bin/true\nNicee=10\n", encoding="utf-8")
    done = subprocess.run([analyze, "verify", "--man=no", "./x.service"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "Unknown key" in done.stdout + done.stderr


@pytest.mark.parametrize("unit", [u for u in UNITS if u.suffix == ".service"], ids=lambda u: u.name)
def test_each_service_runs_the_installed_command_with_a_command_line_it_accepts(unit: Path) -> None:
    for line in settings(unit, "Service")["ExecStart"]:
        program, *argv = shlex.split(line.lstrip("-@:+!"))
        assert program == INSTALLED
        build_parser().parse_args(argv)  # argparse exits (status 2) on a line it refuses


def test_the_update_service_is_a_oneshot_update_with_the_file_nice_and_a_time_out_past_a_run(analyze: str) -> None:
    service = settings(ROOT / "examples" / "systemd" / "bridgeshape-mirror.service", "Service")
    assert service["Type"] == ["oneshot"]
    (line,) = service["ExecStart"]
    args = build_parser().parse_args(shlex.split(line)[1:])
    assert args.command == "update" and args.config == "/etc/bridgeshape-mirror.toml"
    assert args.quiet  # -q: the journal (and a failure's mail) gets only what a person needs
    assert int(service["Nice"][-1]) > 0
    assert "3" in service["SuccessExitStatus"][-1].split()  # an overlap (the lock held) is no failure
    timeout = seconds(service["TimeoutStartSec"][-1])
    run = default(ClientSettings, "deadline") + default(BuildSettings, "dd_budget")
    # room for a run's rendering besides, and short of the hour after which an overlap reports a hung lock
    assert 2 * run < timeout < HUNG_AFTER.total_seconds()


def test_the_timer_starts_the_service() -> None:
    timer = settings(ROOT / "examples" / "systemd" / "bridgeshape-mirror.timer", "Timer")
    assert timer.get("Unit", ["bridgeshape-mirror.service"]) == ["bridgeshape-mirror.service"]
    assert timer["OnCalendar"]
    assert settings(ROOT / "examples" / "systemd" / "bridgeshape-mirror.timer", "Install")["WantedBy"] == ["timers.target"]


def cron_lines(document: Path) -> list[str]:
    text = document.read_text(encoding="utf-8")
    blocks = re.findall(r"^```cron\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    # not comments, nor the crontab's variables (MAILTO=...)
    return [line for line in lines if line and not line.startswith("#") and not re.match(r"^\w+\s*=", line)]


@pytest.mark.parametrize("document", ["README.md", "docs/OPERATING.md"])
def test_the_cron_line_calls_the_installed_command_by_its_absolute_path(document: str) -> None:
    lines = cron_lines(ROOT / document)
    assert lines
    for line in lines:
        program, *argv = shlex.split(line.split(None, 5)[5])  # after the five time fields
        assert program == INSTALLED
        args = build_parser().parse_args(argv)
        assert args.command == "update" and args.quiet  # -q: cron mails only what a person needs
