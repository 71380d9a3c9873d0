"""Progress on a terminal: the real CLI under a pseudo-terminal, on the bundled sample export
(plus one page whose title has no file path, so that the build logs a warning while a bar
is showing). The counts move (pages read, scenarios dealt, pages rendered, files published),
every log line starts on a line of its own, and nothing of it shows with -q or when
standard error is not a terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample-wiki.xml"
#: A page whose title has an empty `/` segment: served by page id only, with a warning.
EXTRA_PAGE = """  <page>
    <title>Prova//Doppia barra</title>
    <ns>0</ns>
    <id>9901</id>
    <revision>
      <id>99010</id>
      <timestamp>2026-10-04T10:00:00Z</timestamp>
      <text xml:space="preserve">{{Convenzione|shape_constraints=opener S:5+ hcp:11-15}}</text>
    </revision>
  </page>
</mediawiki>"""
LEVELS = ("DEBUG: ", "INFO: ", "WARNING: ", "ERROR: ")


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("export") / "sample-plus.xml"
    text = SAMPLE.read_text(encoding="utf-8")
    assert text.rstrip().endswith("</mediawiki>")
    path.write_text(text.rstrip()[: -len("</mediawiki>")] + EXTRA_PAGE + "\n", encoding="utf-8")
    return path


def run_in_terminal(*argv: str, timeout: float = 240) -> tuple[int, str]:
    """Run the console script with standard input, output and error on a pseudo-terminal
    120 columns wide; its status and everything it wrote, escapes and carriage returns kept."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-m", "bridgeshape_mirror.cli", *argv], stdin=slave, stdout=slave, stderr=slave, cwd=ROOT
    )
    os.close(slave)
    output = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every writer closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
            elif process.poll() is not None:
                break
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    return process.wait(timeout=30), output.decode("utf-8", errors="replace")


def screen_lines(output: str) -> list[str]:
    """The lines a terminal would show: carriage return back to column 0, characters
    overwrite, cursor-up escapes honoured, other escapes dropped."""
    lines: list[list[str]] = [[]]
    row = col = 0
    for token in re.findall(r"\x1b\[(\d*)([A-Za-z])|(\r)|(\n)|([^\x1b\r\n])", output):
        count, code, cr, lf, char = token
        if code == "A":
            row = max(0, row - int(count or 1))
        elif code:
            continue
        elif cr:
            col = 0
        elif lf:
            row += 1
            col = 0
            if row == len(lines):
                lines.append([])
        else:
            line = lines[row]
            line.extend(" " * (col - len(line) + 1) if col >= len(line) else "")
            line[col] = char
            col += 1
    return ["".join(line).rstrip() for line in lines]


def counts(output: str, label: str) -> set[int]:
    return {int(n) for n in re.findall(re.escape(label) + r":[^\r\n]*?(\d+)(?:/\d+)?(?:page|file|scenario| )", output)}


def test_live_counts_and_log_lines_on_their_own_lines(export, tmp_path):
    status, output = run_in_terminal(
        "update", "--dump", str(export), "--state", str(tmp_path / "s.sqlite"), "--out", str(tmp_path / "out"), "--deals", "1", "--no-dd"
    )
    assert status == 0, output
    # The counts move: more than one value shown, the last one above 0.
    for label in ("build: scenarios dealt", "build: files published"):
        seen = counts(output, label)
        assert len(seen) >= 2 and max(seen) > 0, (label, seen, output[-3000:])
    assert max(counts(output, "sync: pages read") | {0}) > 0, output[:2000]
    # What the terminal shows: each log line begins its line, and no bar is left over on it.
    lines = screen_lines(output)
    logged = [line for line in lines if any(level in line for level in LEVELS)]
    assert any(line.startswith("WARNING: the title ") and "has no file" in line for line in logged), lines
    for line in logged:
        assert line.startswith(LEVELS), (line, lines)
        assert "it/s" not in line and "|" not in line and "[00:" not in line, (line, lines)
    assert lines[-1] == "" and lines[-2].startswith("INFO: update: ok: build: 25 pages"), lines[-3:]


def test_no_progress_with_quiet_or_without_a_terminal(export, tmp_path):
    state, out = str(tmp_path / "s.sqlite"), str(tmp_path / "out")
    status, output = run_in_terminal("update", "--dump", str(export), "--state", state, "--out", out, "--deals", "1", "--no-dd", "-q")
    assert status == 0
    # -q: only the warning, no bar
    assert "scenarios dealt" not in output and "pages read" not in output and "\r" not in output.replace("\r\n", "\n")
    assert "WARNING: the title " in output
    piped = subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "update", "--dump", str(export), "--state", state, "--out", out, "--full", "--no-dd"],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
    )
    assert piped.returncode == 0
    assert "pages read" not in piped.stderr and "files published" not in piped.stderr and "\r" not in piped.stderr
