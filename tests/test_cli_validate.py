"""`bridgeshape-mirror validate`: report, JSON document, exit statuses."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from bridgeshape_mirror.cli import main
from bridgeshape_mirror.exit_codes import ExitCode


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_string_reports_scenarios_and_exits_0(capsys):
    code, out, _ = run(capsys, "validate", "1H-4C: opener H:5+ // 1H-4D: opener H:5+")
    assert code == ExitCode.OK == 0
    assert out.strip() == "valid: 2 scenarios (1H-4C, 1H-4D)"


def test_invalid_string_shows_caret_under_the_place_and_exits_1(capsys):
    raw = "opener H:5+ hcp:40"
    code, out, _ = run(capsys, "validate", raw)
    assert code == ExitCode.INVALID == 1
    lines = out.splitlines()
    assert lines[0] == "invalid: 1 error"
    assert "[range-out-of-bounds]" in lines[2]
    source = lines.index("    " + raw)
    assert lines[source + 1] == "    " + " " * raw.index("40") + "^^"


def test_json_output_is_the_validate_document(capsys):
    code, out, _ = run(capsys, "validate", "--json", "opp2 fit:8+")
    assert code == 0
    assert json.loads(out) == {
        "validate": {
            "valid": True,
            "raw": "opp2 fit:8+",
            "scenarios": [
                {"label": "", "positions": {"opp2": {}}, "fit": [{"suit": None, "suit_class": None, "min": 8, "pair": "defense"}]}
            ],
        }
    }


def test_json_errors_carry_code_message_scenario_offset(capsys):
    code, out, _ = run(capsys, "validate", "--json", "opener H:5+ // opner H:4+")
    assert code == 1
    document = json.loads(out)["validate"]
    assert document["valid"] is False and "scenarios" not in document
    (error,) = document["errors"]
    assert {k: error[k] for k in ("code", "scenario", "offset", "length", "token")} == {
        "code": "unknown-role", "scenario": 2, "offset": 15, "length": 5, "token": "opner",
    }
    assert error["message"] and error["hint"] == 'Did you mean "opener"?'


def test_dash_reads_standard_input_trimmed(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("opener H:5+\n"))
    code, out, _ = run(capsys, "validate", "--json", "-")
    assert code == 0 and json.loads(out)["validate"]["raw"] == "opener H:5+"


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["validate"])
    assert caught.value.code == ExitCode.USAGE == 2
    assert "usage:" in capsys.readouterr().err


def test_console_script_is_installed_and_runs():
    done = subprocess.run(
        [sys.executable, "-m", "bridgeshape_mirror.cli", "validate", "opener s:5+"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 1
    assert 'Did you mean "S:5+"?' in done.stdout
