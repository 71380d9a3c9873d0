"""What the console script loads before it knows its command: every command pays for it
(and so does every build worker, which spawn starts from the script), so the modules a
single command needs wait for that command. Timing is `benchmarks/startup_bench.py`'s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bridgeshape_mirror.serving.api_headers import ServeSettings

HEAVY = ("numpy", "lark", "jinja2", "bridgeshape_mirror.serving.api_headers", "bridgeshape_mirror.serving.http_server", "endplay", "importlib.metadata")


def loaded_by(code: str) -> set[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_the_console_script_loads_no_command_s_heavy_modules_before_parsing():
    loaded = loaded_by("from bridgeshape_mirror.cli import build_parser\nbuild_parser()")
    assert not loaded & set(HEAVY)


def test_serve_help_still_names_the_library_s_default_max_age(capsys):
    from bridgeshape_mirror.cli import main

    try:
        main(["serve", "--help"])
    except SystemExit as exc:
        assert exc.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"else {ServeSettings.max_age})" in text


def test_a_build_worker_s_module_loads_neither_the_templates_nor_the_package_metadata():
    # What every spawned worker imports to run its share (site_builder.sampling.sample_jobs).
    loaded = loaded_by("import site_builder.sampling")
    assert not loaded & {"jinja2", "importlib.metadata", "endplay", "bridgeshape_mirror.serving.api_headers"}


def test_one_deal_in_json_reads_neither_lark_nor_the_package_metadata():
    # The version is printed by PBN only (its [Generator] tag, tests/test_deals_cli.py).
    run = "from bridgeshape_mirror.cli import main\nassert main(['deals', 'opener hcp:12+', '--count', '1', '--seed', '7']) == 0"
    loaded = loaded_by(run)
    assert "numpy" in loaded  # it did deal
    assert not loaded & {"lark", "regex", "importlib.metadata", "jinja2", "endplay"}
    assert "sqlite3" not in loaded  # --seed's bound is read without the state store


def test_validate_loads_neither_lark_nor_numpy():
    loaded = loaded_by("from bridgeshape_mirror.cli import main\nassert main(['validate', 'opener hcp:12+']) == 0")
    assert not loaded & {"lark", "regex", "numpy", "importlib.metadata", "jinja2", "difflib"}  # difflib: for a mistake


def _threads_after_a_deal(env: dict[str, str]) -> tuple[int, str]:
    code = (
        "import os\nfrom bridgeshape_mirror.cli import main\nassert main(['deals', 'opener hcp:12+', '--count', '1']) == 0\n"
        "print(len(os.listdir('/proc/self/task')), os.environ.get('OPENBLAS_NUM_THREADS', '-'))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    threads, setting = done.stdout.splitlines()[-1].split()
    return int(threads), setting


def test_the_console_script_starts_numpy_s_blas_with_one_thread_unless_told_otherwise():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    assert _threads_after_a_deal(env) == (1, "1")  # OpenBLAS would start one per core
    assert _threads_after_a_deal({**env, "OPENBLAS_NUM_THREADS": "2"})[1] == "2"


def _one_deal(dsl: str, cache: object) -> tuple[int, dict, set[str]]:
    """`deals DSL --count 1` in a process of its own with the disk cache `cache`: its status,
    its JSON document and the modules it loaded."""
    probe = (
        "import sys, json\nfrom bridgeshape_mirror.cli import main\n"
        "status = main(['deals', sys.argv[1], '--count', '1'])\n"
        "print(json.dumps([status, sorted(sys.modules)]))"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run([sys.executable, "-c", probe, dsl], check=True, capture_output=True, text=True, env=env)
    lines = done.stdout.splitlines()
    status, loaded = json.loads(lines[-1])
    return status, json.loads("\n".join(lines[:-1])), set(loaded)


def test_one_deal_loads_neither_the_drawing_tables_nor_the_catalogues_reader(tmp_path):
    # A one-partnership scenario is drawn by the partnership's own model: the tables that
    # draw from counts tying four seats, importlib.resources (which only the language
    # catalogues need), numpy's masked arrays and the card objects (reading PBN) are start-up cost such a run must not pay.
    status, document, loaded = _one_deal("opener hcp:12+", tmp_path)
    assert status == 0 and document["scenarios"][0]["deals"][0]["pbn"].startswith("N:")
    # numpy.ma: numpy's unique without return_counts (or an index) imports it, 18 ms.
    lazy = {"bridgeshape_mirror.deals.drawing.placement_draw", "bridgeshape_mirror.deals.drawing.length_draw", "bridgeshape_mirror.deals.counting.column_products", "importlib.resources", "numpy.ma", "bridgeshape_mirror.deals.boards.cards"}
    assert not loaded & lazy


def _parsed(argv: list[str], every_command: bool, capsys) -> tuple[object, str, str]:
    from bridgeshape_mirror.cli import build_parser

    try:
        result: object = vars(build_parser(argv, every_command=every_command).parse_args(argv))
        result = {k: v for k, v in result.items() if k != "handler"} | {"handler": getattr(result.get("handler"), "__module__", None)}
    except SystemExit as exc:
        result = ("exit", exc.code)
    out = capsys.readouterr()
    return result, out.out, out.err


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["validate", "--help"],
        ["deals", "--help"],
        ["export", "--help"],
        ["sync", "--help"],
        ["build", "--help"],
        ["update", "--help"],
        ["serve", "--help"],
        ["deals", "opener hcp:12+", "--count", "3", "--format", "pbn"],
        ["deals"],
        ["deals", "x", "--count", "-1"],
        ["deals", "x", "--bogus"],
        ["validate", "opener hcp:12+"],
        ["bogus"],
        [],
        ["--", "deals", "x"],
        ["-h", "deals"],
    ],
)
def test_a_command_line_parses_the_same_with_only_its_command_built(argv, capsys):
    # Help, errors and the parsed values, with every command's options and with the named one's.
    assert _parsed(argv, True, capsys) == _parsed(argv, False, capsys)


def test_a_deal_builds_and_imports_no_other_command():
    loaded = loaded_by("from bridgeshape_mirror.cli import main\nassert main(['deals', 'opener hcp:12+', '--count', '1']) == 0")
    others = {f"bridgeshape_mirror.commands.{name}" for name in ("validate", "export", "sync", "build", "update", "serve")}
    assert "bridgeshape_mirror.commands.deals" in loaded
    assert not loaded & others


def test_a_count_read_from_disk_loads_none_of_the_modules_that_count_it(tmp_path):
    # A scenario tying both partnerships together is counted once (seconds) and read from
    # the disk cache afterwards: the counting modules' imports would cost more than the read.
    counting = {"bridgeshape_mirror.deals.counting.column_products", "bridgeshape_mirror.deals.counting.length_matrices", "bridgeshape_mirror.deals.counting.crossing"}
    first, _, counted = _one_deal("opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+", tmp_path)
    second, _, read = _one_deal("opener hcp:12-21 x:5+; opp1 hcp:6-10 x:6+; opp2 fit:9+", tmp_path)
    assert first == second == 0
    assert counted & counting  # the first run counted
    assert not read & counting


def test_a_deal_with_its_table_loads_dds_alone_not_endplay_s_dealer_nor_matplotlib():
    run = "from bridgeshape_mirror.cli import main\nassert main(['deals', 'opener hcp:12+', '--count', '1', '--dd']) == 0"
    loaded = loaded_by(run)
    assert "endplay._dds" in loaded  # it did solve
    assert not {name for name in loaded if name.split(".")[0] == "matplotlib" or name.startswith("endplay.dealer")}
    assert "endplay" not in loaded
    assert "tqdm" not in loaded  # its bar is for a terminal only (tests/test_deals_double_dummy.py)


SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample-wiki.xml"


def test_no_command_writes_under_the_home_or_the_configuration_folder(tmp_path):
    home, config, cache, work = (tmp_path / name for name in ("home", "config", "cache", "work"))
    for folder in (home, config, work):
        folder.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MPLCONFIGDIR"}
    env |= {"HOME": str(home), "XDG_CONFIG_HOME": str(config), "XDG_CACHE_HOME": str(cache)}
    script = "import sys\nfrom bridgeshape_mirror.cli import main\nsys.exit(main(sys.argv[1:]))"
    commands = [
        ["deals", "opener hcp:12+ H:5+", "--count", "2", "--dd", "--format", "pbn"],
        ["export", "opener hcp:12+ H:5+", "--to", "dealer"],
        # The sample wiki synced and built with a budget that solves some of its tables.
        ["update", "--dump", str(SAMPLE), "--state", str(work / "s.sqlite"), "--out", str(work / "out"), "--dd-budget", "1", "-q"],
    ]
    for argv in commands:
        done = subprocess.run([sys.executable, "-c", script, *argv], cwd=work, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (argv, done.stderr)
    assert json.loads((work / "out" / "api" / "status.json").read_text())["doubleDummy"]["analysed"] > 0
    assert list(home.iterdir()) == [] and list(config.iterdir()) == []
