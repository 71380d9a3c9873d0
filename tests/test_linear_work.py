"""Hostile sizes: the report's highlighting and `validate`'s text report stay linear in the
input (one sweep; one window of the line per error; a cap on errors shown)."""

from __future__ import annotations

import random
import time

from bridgeshape_mirror import dsl
from bridgeshape_mirror.dsl.explain import SHOWN, explain
from bridgeshape_mirror.dsl.limits import Limits
from bridgeshape_mirror.site_builder.html import Piece, highlight


def quadratic_highlight(raw, errors):
    """The former highlight, compared piece by piece with every error: the reference."""
    cuts = {0, len(raw)}
    for e in errors:
        start = min(e["offset"], len(raw))
        cuts.update((start, min(len(raw), start + max(e["length"], 1))))
    points = sorted(cuts)
    pieces = []
    for start, end in zip(points, points[1:]):
        covering = tuple(
            n for n, e in enumerate(errors, start=1) if e["offset"] <= start and end <= e["offset"] + max(e["length"], 1)
        )
        pieces.append(Piece(raw[start:end], covering))
    for n, e in enumerate(errors, start=1):
        if e["offset"] >= len(raw):
            pieces.append(Piece("\u2038", (n,)))
    return pieces


def test_highlight_is_the_same_as_before_on_random_errors():
    rng = random.Random(18)
    for _ in range(500):
        raw = "x" * rng.randrange(0, 30)
        errors = [
            {"offset": rng.randrange(0, len(raw) + 2), "length": rng.randrange(0, 8)} for _ in range(rng.randrange(0, 6))
        ]
        assert highlight(raw, errors) == quadratic_highlight(raw, errors)


def test_highlight_of_twenty_thousand_errors_is_one_pass():
    raw = "zz " * 20_000
    errors = [{"offset": 3 * n, "length": 2} for n in range(20_000)]
    started = time.perf_counter()
    pieces = highlight(raw, errors)
    assert time.perf_counter() - started < 2
    assert "".join(p.text for p in pieces) == raw
    assert sum(1 for p in pieces if p.errors) == 20_000


def test_validate_text_shows_a_window_per_error_not_the_whole_line():
    raw = "opener H:5+ " + "zz " * 6000  # 18 KB on one line, within the length limit
    result = dsl.parse(raw)
    text = explain(result)
    assert text.startswith("invalid: more than 100 errors")
    assert "5,900 more errors" in text
    # 101 errors of 18 KB each printed the line again: 1.8 MB. Now a window of ~150 characters.
    assert len(text) < 60_000
    assert max(len(line) for line in text.splitlines()) < 500


def test_validate_text_caps_the_errors_shown():
    result = dsl.parse("opener H:5+ " + "zz " * 600, Limits(errors=10_000))
    assert len(result.errors) == 600
    text = explain(result)
    assert text.count("[not-key-value]") == SHOWN
    assert "500 more errors not shown" in text


def test_the_caret_stays_under_the_place_in_a_window():
    raw = "opener H:5+ " + "x" * 80 + " hcp:99 " + "y" * 80
    lines = explain(dsl.parse(raw)).splitlines()
    at = lines.index(next(line for line in lines if "[range-out-of-bounds]" in line))
    source, carets = lines[at + 2], lines[at + 3]
    assert source.startswith("    ...") and source.endswith("...")
    column = carets.index("^")
    assert source[column : column + 2] == "99" and carets.strip() == "^^"


def test_control_characters_from_the_dsl_are_escaped_on_the_terminal():
    raw = "opener \x1b[2J\x1b]0;owned\x07 H:5+ \u202e"
    text = explain(dsl.parse(raw))
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b[2J" in text
    labels = explain(dsl.parse("S\x1b[31m: opener H:5+"))
    assert "\x1b" not in labels and "S\\x1b[31m" in labels


class CountingFiles(dict):
    """A build's files that count how often they are walked through."""

    walks = 0

    def __iter__(self):
        CountingFiles.walks += 1
        return super().__iter__()


def test_the_manifest_walks_the_files_once_whatever_the_number_of_pages():
    from types import SimpleNamespace

    from bridgeshape_mirror.site_builder import layout
    from bridgeshape_mirror.site_builder.manifest import manifest_document

    pages = 300
    files = CountingFiles()
    analyses = []
    for pid in range(1, pages + 1):
        files[layout.get_by_pageid(pid)] = b"{}"
        files[layout.convention_html(pid)] = b"<html>"
        for n in (2, 1, 10):
            files[layout.script(pid, n, ".dlr")] = b"condition 1"
        page = SimpleNamespace(page_id=pid, title=f"P{pid}")
        analyses.append(SimpleNamespace(page=page, served_revid=pid, status=SimpleNamespace(value="ok")))
    CountingFiles.walks = 0
    document = manifest_document(analyses, {}, {}, files, None)
    assert CountingFiles.walks <= 2  # one pass for the scripts, not one per page
    first = next(p for p in document["pages"] if p["pageId"] == 1)
    assert [f["path"] for f in first["files"]] == [
        "api/get/pageid/1.json", "scripts/1/1.dlr", "scripts/1/2.dlr", "scripts/1/10.dlr", "conventions/1.html"
    ]
