"""`bridgeshape-mirror deals`: JSON and PBN documents, exit statuses (called in-process); and
a large count in a process of its own, streamed: bounded memory, the first bytes at once."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.deals.boards.pbn import MANDATORY_TAGS, iter_deal_strings, parse_deal
from bridgeshape_mirror.deals.rules.predicate import satisfies
from bridgeshape_mirror.store.version import VERSION
from support.cli import parser, run

SPLINTER = "1H-4C: opener H:5+ hcp:12-21; responder H:4+ C:0-1 Chcp:0 hcp:10-15"
TWO = SPLINTER + " // 1S-4H: opener S:5+ hcp:12-21; responder S:4+ H:0-1 Hhcp:0 hcp:10-15"


def test_json_document(monkeypatch):
    code, out, err = run(monkeypatch, TWO, "--count", "7", "--seed", "3")
    assert code == ExitCode.OK and err == ""
    doc = json.loads(out)
    scenarios = dsl.parse_scenarios(TWO)
    assert [s["index"] for s in doc["scenarios"]] == [1, 2]
    assert [s["label"] for s in doc["scenarios"]] == ["1H-4C", "1S-4H"]
    for entry, scenario in zip(doc["scenarios"], scenarios):
        assert len(entry["deals"]) == 7
        assert entry["probability_exact"] is True
        num, den = map(int, entry["probability_fraction"].split("/"))
        assert entry["probability"] == pytest.approx(num / den)
        for deal in entry["deals"]:
            assert satisfies(parse_deal(deal["pbn"]), scenario)
    # same seed, same document
    assert run(monkeypatch, TWO, "--count", "7", "--seed", "3")[1] == out
    assert run(monkeypatch, TWO, "--count", "7", "--seed", "4")[1] != out


def test_scenario_option_and_stdin(monkeypatch):
    code, out, _ = run(monkeypatch, "-", "--scenario", "2", "--count", "2", stdin=TWO + "\n")
    doc = json.loads(out)
    assert code == 0 and [s["index"] for s in doc["scenarios"]] == [2]
    # scenario 2 alone deals what scenario 2 of the whole string deals
    whole = json.loads(run(monkeypatch, TWO, "--count", "2")[1])
    assert [d["pbn"] for d in whole["scenarios"][1]["deals"]] == [d["pbn"] for d in doc["scenarios"][0]["deals"]]


def test_pbn_export(monkeypatch):
    code, out, _ = run(monkeypatch, TWO, "--count", "3", "--format", "pbn", "--seed", "4")
    text = out.decode("ascii")
    assert code == 0
    assert text.startswith("% PBN 2.1\r\n% EXPORT\r\n")
    games = text.split("\r\n\r\n")
    assert len(games) == 6
    doc = json.loads(run(monkeypatch, TWO, "--count", "3", "--seed", "4")[1])
    by_board = {d["board"]: (s["index"], d) for s in doc["scenarios"] for d in s["deals"]}
    for number, game in enumerate(games, start=1):
        tags = [line[1:].split(" ", 1)[0] for line in game.split("\r\n") if line.startswith("[")]
        assert tuple(tags) == MANDATORY_TAGS + ("Generator",)
        index, deal = by_board[number]
        assert index == (1 if number % 2 else 2)  # the scenarios in turn
        assert f'[Board "{number}"]' in game and f'[Dealer "{"NESW"[(number - 1) % 4]}"]' in game
        assert f'[Vulnerable "{deal["vulnerable"]}"]' in game and f'[Deal "{deal["board_pbn"]}"]' in game
        assert f"[Generator \"bridgeshape-mirror {VERSION} (seed 4, scenario {index})\"]" in game
        assert ("{scenario 1: 1H-4C}" if index == 1 else "{scenario 2: 1S-4H}") in game
        assert ('[Event "1H-4C"]' if index == 1 else '[Event "1S-4H"]') in game
    assert len(list(iter_deal_strings(text))) == 6


def test_json_deals_carry_their_boards(monkeypatch):
    text = TWO + " // bad: opener S:7+; responder S:7+ // x: opener C:6+"
    code, out, _ = run(monkeypatch, text, "--count", "2")
    doc = json.loads(out)
    assert code == ExitCode.INVALID
    boards = sorted((d["board"], s["index"], d) for s in doc["scenarios"] for d in s["deals"])
    assert [(number, index) for number, index, _ in boards] == [(1, 1), (2, 2), (3, 4), (4, 1), (5, 2), (6, 4)]
    for number, _, deal in boards:
        assert list(deal) == ["pbn", "board", "dealer", "vulnerable", "board_pbn"]
        assert deal["dealer"] == "NESW"[(number - 1) % 4]
        assert deal["vulnerable"] in ("None", "NS", "EW", "All")
        assert deal["board_pbn"] == deal["dealer"] + deal["pbn"][1:]


def test_unsatisfiable_scenario_exits_1_and_others_still_print(monkeypatch):
    code, out, err = run(monkeypatch, "bad: opener S:7+; responder S:7+ // " + SPLINTER, "--count", "2")
    assert code == ExitCode.INVALID
    assert "scenario 1 (bad) is unsatisfiable" in err
    doc = json.loads(out)
    assert doc["scenarios"][0]["deals"] == [] and doc["scenarios"][0]["probability"] == 0
    assert "unsatisfiable" in doc["scenarios"][0]
    assert len(doc["scenarios"][1]["deals"]) == 2


def test_invalid_dsl_exits_1(monkeypatch):
    code, out, err = run(monkeypatch, "opener H:5+ hcp:40")
    assert code == ExitCode.INVALID and out == b"" and "scenario 1" in err


def test_scenario_out_of_range_is_a_usage_error(monkeypatch):
    code, _, err = run(monkeypatch, SPLINTER, "--scenario", "3")
    assert code == ExitCode.USAGE and "1 scenario" in err


def test_bad_count_is_rejected_by_argparse():
    with pytest.raises(SystemExit) as exc:
        parser().parse_args(["deals", SPLINTER, "--count", "-1"])
    assert exc.value.code == 2


def test_empty_dsl_gives_no_scenarios(monkeypatch):
    code, out, _ = run(monkeypatch, "   ")
    assert code == 0 and json.loads(out) == {"scenarios": []}


def test_estimated_probability_has_an_interval(monkeypatch):
    text = "opener hcp:0-20 S:0-12; opp1 hcp:0-20; responder hcp:0-20; opp2 hcp:0-20"  # past the exact count's budget
    code, out, _ = run(monkeypatch, text, "--count", "5")
    entry = json.loads(out)["scenarios"][0]
    assert code == 0 and entry["probability_exact"] is False
    low, high = entry["probability_ci95"]
    assert 0 < low <= entry["probability"] <= high < 1


def test_each_entry_is_its_scenario_outcome(monkeypatch):
    """The command and the mirror write the same scenario entry: `deal_outcome`'s JSON (the
    command seeds scenario i with (seed, i)); unsatisfiable ones say their probability is exact."""
    from bridgeshape_mirror.deals.outcome import deal_outcome
    from bridgeshape_mirror.deals.drawing.rng import make_rng

    text = "bad: opener S:7+; responder S:7+ // " + SPLINTER + " // opener hcp:0-20 S:0-12; opp1 hcp:0-20; responder hcp:0-20; opp2 hcp:0-20"
    code, out, _ = run(monkeypatch, text, "--count", "4", "--seed", "5")
    entries = json.loads(out)["scenarios"]
    scenarios = dsl.parse_scenarios(text)
    assert code == ExitCode.INVALID
    for entry in entries:
        entry["deals"] = [{"pbn": d["pbn"]} for d in entry["deals"]]
    assert entries == [deal_outcome(s, i, 4, make_rng(5, i)).to_json() for i, s in enumerate(scenarios, start=1)]
    assert [e["probability_exact"] for e in entries] == [True, True, False]


def test_a_scenario_too_rare_to_deal_is_an_entry_with_its_bound(monkeypatch):
    from bridgeshape_mirror.deals.errors import TooRare
    from bridgeshape_mirror.deals.drawing.sampler import ScenarioSampler

    def no_luck(self, count, rng):
        raise TooRare(2_000_000, 3.2e-7)
        yield  # a generator, like the real one

    monkeypatch.setattr(ScenarioSampler, "batches", no_luck)
    code, out, err = run(monkeypatch, SPLINTER, "--count", "2")
    entry = json.loads(out)["scenarios"][0]
    assert code == ExitCode.INVALID and "scenario 1 (1H-4C): no deal found" in err
    assert entry["deals"] == [] and entry["probability"] == 0 and entry["probability_exact"] is False
    assert entry["probability_ci95"] == [0, 3.2e-7] and "may be unsatisfiable" in entry["too_rare"]


def test_the_format_choices_are_the_registry():
    from bridgeshape_mirror.deals.formats import FORMATS

    with pytest.raises(SystemExit):
        parser().parse_args(["deals", SPLINTER, "--format", "nope"])
    assert {"json", "pbn"} <= set(FORMATS)
    for name in FORMATS:
        assert parser().parse_args(["deals", SPLINTER, "--format", name]).format == name


#: Runs `bridgeshape-mirror deals ARGS...` with its output in a pipe and prints its status,
#: the seconds to its first 100 bytes and to its end, its lines, and its peak RSS in KiB
#: (getrusage of this process's children: the command alone).
_PIPED = r"""
import resource, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen([sys.executable, "-m", "bridgeshape_mirror.cli", "deals", *sys.argv[1:]], stdout=subprocess.PIPE)
head = child.stdout.read(100)
first = time.perf_counter() - start
lines = head.count(b"\n") + sum(b.count(b"\n") for b in iter(lambda: child.stdout.read(1 << 20), b""))
child.wait()
print(child.returncode, first, time.perf_counter() - start, lines, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _piped(*argv: str) -> tuple[int, float, float, int, int]:
    done = subprocess.run([sys.executable, "-c", _PIPED, *argv], capture_output=True, text=True, check=True)
    code, first, end, lines, peak = done.stdout.split()
    return int(code), float(first), float(end), int(lines), int(peak) // 1024


def test_a_million_deals_stream_in_bounded_memory_and_their_first_bytes_come_at_once():
    """The held writers took 355 MB for a million LIN lines and wrote nothing before the end;
    streamed, the memory of ten thousand deals, and the first bytes long before the end."""
    dsl = "opener H:7+ x:0-1 hcp:5-10"
    code, first, end, lines, peak = _piped(dsl, "--count", "1000000", "--format", "lin", "--seed", "4")
    assert (code, lines) == (0, 1_000_000)
    small = _piped(dsl, "--count", "10000", "--format", "lin", "--seed", "4")[4]
    assert peak < 200 and peak < small + 40, (peak, small)
    assert first < end / 2, (first, end)
