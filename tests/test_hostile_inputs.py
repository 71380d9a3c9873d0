"""Hostile configuration, exports and state stores: each is the user's input at fault, so
an exit status that says so (2, 1, 5) with a message, never 70 ("a bug")."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bridgeshape_mirror.config import ConfigError, load
from bridgeshape_mirror.exit_codes import ExitCode
from support.cli import status
from support.wiki_pages import EXPORT

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample-wiki.xml"


@pytest.mark.parametrize(
    "line",
    ['deals = "ten"', "deals = -5", "seed = 1.5", "deals = true", 'out = 5', "max_retries = -3", "timeout = 0", 'timeout = "fast"',
     "max_age = -1", "max_age = 31536001", 'max_age = "5m"', "max_age = 1.5",
     "deals = 201", "deals = 99999999999999999999", "seed = 100000000000000000000000000000", "seed = 9223372036854775808"],
)
def test_a_configuration_value_of_the_wrong_type_or_range_is_exit_2(tmp_path, capsys, line):
    section = {"max_retries": "sync", "timeout": "sync", "max_age": "serve"}.get(line.split()[0], "build")
    config = tmp_path / "mirror.toml"
    config.write_text(f"[{section}]\n{line}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=line.split()[0]):
        load(str(config), {})
    assert status("build", "--config", str(config), "--state", str(tmp_path / "s.sqlite"), "-q") == ExitCode.USAGE
    assert "internal error" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, option, bound",
    [
        (["build", "--deals", "100000"], "--deals", "200"),
        (["update", "--deals", "99999999999999999999"], "--deals", "200"),
        (["build", "--seed", "99999999999999999999"], "--seed", "9223372036854775807"),
        (["update", "--seed", "9223372036854775808"], "--seed", "9223372036854775807"),
        (["deals", "opener hcp:12+", "--seed", "99999999999999999999"], "--seed", "9223372036854775807"),
        (["deals", "opener hcp:12+", "--count", "99999999999999999999"], "--count", "1000000000"),
    ],
)
def test_a_number_past_its_upper_bound_is_exit_2_naming_the_option_and_the_bound(tmp_path, capsys, argv, option, bound):
    place = ["--state", str(tmp_path / "s.sqlite"), "-q"] if argv[0] != "deals" else []
    assert status(*argv, *place) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f"argument {option}: must be at most {bound} (" in err and "internal error" not in err


def test_the_largest_seed_builds_and_deals(tmp_path, capsys):
    export, synced = tmp_path / "export.xml", tmp_path / "s.sqlite"
    export.write_text(EXPORT, encoding="utf-8")
    assert status("sync", "--dump", str(export), "--state", str(synced), "-q") == ExitCode.OK
    top = str(2**63 - 1)
    assert status("build", "--state", str(synced), "--out", str(tmp_path / "out"), "--deals", "1", "--seed", top, "--no-dd", "-q") == 0
    assert status("deals", "opener hcp:12+", "--count", "1", "--seed", top) == ExitCode.OK
    assert status("deals", "opener hcp:12+", "--count", "1", "--seed", str(2**63)) == ExitCode.USAGE
    assert "must be at most" in capsys.readouterr().err


@pytest.mark.parametrize(
    "line, key",
    [
        ('contact = "ops@example.org\\r\\nX-Injected: 1"', "contact"),
        ('contact = "ops@example.org\\n"', "contact"),
        ('contact = "ops\\u0000@example.org"', "contact"),
        ('template = ""', "template"),
        ('template = " _\\t"', "template"),
        ('parameter = "  "', "parameter"),
    ],
)
def test_a_contact_that_cannot_be_a_header_or_a_blank_name_is_exit_2_naming_the_key(tmp_path, capsys, line, key):
    config = tmp_path / "mirror.toml"
    config.write_text(f'[wiki]\n{line}\n', encoding="utf-8")
    # An API on a port nothing listens on: refused before any request, whatever the source.
    api = ["--api", "http://127.0.0.1:9/w/api.php"]
    for source in (api, ["--dump", str(SAMPLE)]):
        assert status("sync", "--config", str(config), *source, "--state", str(tmp_path / "s.sqlite"), "-q") == ExitCode.USAGE
        err = capsys.readouterr().err
        assert f"{key} = " in err and "internal error" not in err
    assert status("build", "--config", str(config), "--state", str(tmp_path / "s.sqlite"), "-q") == ExitCode.USAGE
    assert f"{key} = " in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [config]  # refused before the lock and the store


def test_an_export_page_with_a_title_past_255_bytes_is_refused_and_the_others_synced(tmp_path, capsys):
    text = SAMPLE.read_text(encoding="utf-8")
    assert text.count("<title>Apertura 1SA</title>") == 1
    export = tmp_path / "export.xml"
    export.write_text(text.replace("<title>Apertura 1SA</title>", f"<title>{'Apertura 1SA ' * 160_000}</title>"), encoding="utf-8")
    state = tmp_path / "s.sqlite"
    assert status("sync", "--dump", str(SAMPLE), "--state", str(tmp_path / "whole.sqlite"), "-q") == ExitCode.OK
    assert status("sync", "--dump", str(export), "--state", str(state), "-v") == ExitCode.OK
    err = capsys.readouterr().err
    assert "WARNING page " in err and " not synced: its title is 2,080,000 bytes of UTF-8, more than MediaWiki's 255" in err
    assert "1 refused: page " in err
    from bridgeshape_mirror.store.state import StateStore

    with StateStore(tmp_path / "whole.sqlite") as whole, StateStore(state) as store:
        assert "Apertura 1SA" in {p.title for p in whole.pages()}
        expected = {p.page_id: p.title for p in whole.pages() if p.title != "Apertura 1SA"}
        assert {p.page_id: p.title for p in store.pages()} == expected and len(expected) > 5
    out = tmp_path / "out"
    assert status("build", "--state", str(state), "--out", str(out), "--deals", "0", "-q") == ExitCode.OK
    assert max(f.stat().st_size for f in out.rglob("*") if f.is_file()) < 1_000_000


def test_a_broken_page_s_raw_text_is_shown_cut_to_the_dsl_limit_in_the_report(tmp_path):
    import json

    from bridgeshape_mirror.dsl.limits import LIMITS

    export = tmp_path / "export.xml"
    long_value = "opener H:5+ " + "hcp:12+ " * 250_000  # 2 MB, past the DSL's 20,000 characters
    export.write_text(EXPORT.replace("opener H:5+ &lt;!-- ok --&gt;", long_value), encoding="utf-8")
    state, out = tmp_path / "s.sqlite", tmp_path / "out"
    assert status("sync", "--dump", str(export), "--state", str(state), "-q") == ExitCode.OK
    assert status("build", "--state", str(state), "--out", str(out), "--deals", "0", "--lang", "it", "-q") == ExitCode.OK
    report = json.loads((out / "report/report.json").read_text(encoding="utf-8"))
    [row] = report["broken"]
    left_out = len(long_value.strip()) - LIMITS.characters
    assert row["raw"] == long_value.strip()[: LIMITS.characters] + f" [\u2026 {left_out:,} more characters not shown]"
    assert [e["code"] for e in row["errors"]] == ["limit-exceeded"] and row["errors"][0]["offset"] == LIMITS.characters
    html = (out / "report/index.html").read_text(encoding="utf-8")
    assert f"{left_out:,} more characters not shown" in html
    assert html.count("hcp:12+") < LIMITS.characters and len(html.encode("utf-8")) < 200_000
    # The errors in the site's language are the whole value's, not the shown text's.
    whole = f"{len(long_value.strip()):,}".replace(",", ".")
    assert f"Il testo è lungo {whole} caratteri" in html


def test_good_values_still_load(tmp_path):
    config = tmp_path / "mirror.toml"
    config.write_text("[sync]\ntimeout = 30\nmax_retries = 0\ndeadline = 1.5\n[build]\ndeals = 0\nseed = 7\n", encoding="utf-8")
    loaded = load(str(config), {})
    assert (loaded.timeout, loaded.max_retries, loaded.deadline, loaded.deals, loaded.seed) == (30, 0, 1.5, 0, 7)


@pytest.mark.parametrize("old, new", [("<id>7</id>", "<id>seven</id>"), ("<id>70</id>", "<id>x70</id>"), ("<ns>0</ns>", "<ns>main</ns>"), ('key="10"', 'key="ten"')])
def test_an_export_with_a_non_numeric_id_is_exit_1(tmp_path, capsys, old, new):
    export = tmp_path / "export.xml"
    export.write_text(EXPORT.replace(old, new, 1), encoding="utf-8")
    assert status("sync", "--dump", str(export), "--state", str(tmp_path / "s.sqlite"), "-q") == ExitCode.INVALID
    assert "not a number" in capsys.readouterr().err


def test_a_state_path_whose_parent_is_a_file_is_exit_5(tmp_path, capsys):
    (tmp_path / "file").write_text("not a folder")
    state = tmp_path / "file" / "state.sqlite"
    assert status("build", "--state", str(state), "--out", str(tmp_path / "out"), "-q") == ExitCode.STATE_ERROR
    assert status("sync", "--dump", str(SAMPLE), "--state", str(state), "-q") == ExitCode.STATE_ERROR
    assert "internal error" not in capsys.readouterr().err


def test_a_state_store_with_flipped_bytes_is_exit_5(tmp_path, capsys):
    state = tmp_path / "good.sqlite"
    assert status("sync", "--dump", str(SAMPLE), "--state", str(state), "-q") == ExitCode.OK
    assert status("build", "--state", str(state), "--out", str(tmp_path / "out0"), "--deals", "0", "-q") == ExitCode.OK
    good = state.read_bytes()
    seen = set()
    for seed in range(8):
        rng = random.Random(seed)
        data = bytearray(good)
        for _ in range(50):  # past the first page: the schema, which opening checks already
            data[rng.randrange(4096, len(data))] ^= rng.randrange(1, 256)
        damaged = tmp_path / f"damaged{seed}.sqlite"
        damaged.write_bytes(bytes(data))
        code = status("build", "--state", str(damaged), "--out", str(tmp_path / f"out{seed}"), "--deals", "0", "-q")
        assert code in (ExitCode.OK, ExitCode.STATE_ERROR), capsys.readouterr().err
        seen.add(code)
    assert ExitCode.STATE_ERROR in seen
    assert "internal error" not in capsys.readouterr().err


def test_damaged_deals_remembered_in_the_state_are_exit_5(tmp_path):
    import sqlite3

    state = tmp_path / "state.sqlite"
    assert status("sync", "--dump", str(SAMPLE), "--state", str(state), "-q") == ExitCode.OK
    assert status("build", "--state", str(state), "--out", str(tmp_path / "out"), "--deals", "1", "--no-dd", "-q") == ExitCode.OK
    with sqlite3.connect(state) as db:
        db.execute("UPDATE build_deals SET document = '{\"index\": 1, \"lab'")
    assert status("build", "--state", str(state), "--out", str(tmp_path / "out"), "--deals", "1", "--no-dd", "-q") == ExitCode.STATE_ERROR
