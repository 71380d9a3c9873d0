"""Titles as MediaWiki reads them (SEMANTICS 6): the one rule set in `sync.titles`, the
checks and spellings of `serving.title_lookup`, and the build's alias files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import PurePosixPath

import pytest

from bridgeshape_mirror.serving.title_lookup import _all_characters, _lower_spellings, api_title, case_spellings, decode_value
from bridgeshape_mirror.site_builder.title_aliases import TitleTarget, alias_files
from bridgeshape_mirror.store.model import SiteInfo
from bridgeshape_mirror.sync.titles import upper_first

SITE = SiteInfo(namespaces={0: "", 4: "BridgePedia", 10: "Template"}, namespace_lookup={"bridgepedia": 4, "project": 4, "bp": 4})

#: PHP's mb_strtoupper of every character whose upper case differs from it.
PHP_UPPER = r"""
mb_internal_encoding('UTF-8');
for ($c = 0; $c <= 0x10FFFF; $c++) {
    if ($c >= 0xD800 && $c <= 0xDFFF) continue;
    $ch = mb_chr($c, 'UTF-8');
    $u = mb_strtoupper($ch);
    if ($u !== $ch) echo dechex($c), ' ', bin2hex($u), "\n";
}
"""


@pytest.mark.slow
def test_upper_first_is_php_mb_strtoupper_for_every_character() -> None:
    php = shutil.which("php")
    if php is None:
        pytest.skip("php is not installed")
    out = subprocess.run([php, "-r", PHP_UPPER], capture_output=True, text=True, check=True, timeout=120).stdout
    expected = {chr(int(code, 16)): bytes.fromhex(upper).decode("utf-8") for code, upper in (line.split() for line in out.splitlines())}
    assert len(expected) > 1000
    differ = [
        (hex(c), upper_first(chr(c)), expected.get(chr(c), chr(c)))
        for c in range(sys.maxunicode + 1)
        if not 0xD800 <= c <= 0xDFFF and upper_first(chr(c)) != expected.get(chr(c), chr(c))
    ]
    assert differ == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("splinter", "Splinter"),
        ("  _Stay__ \u00a0man_ ", "Stay man"),
        (":stayman", "Stayman"),
        (" : stayman", "Stayman"),
        ("stayman#Varianti [x]", "Stayman"),
        ("stayman _#x", "Stayman"),
        ("ßeta", "SSeta"),  # full case mapping, as PHP 8's mb_strtoupper
        ("ǆungla", "Ǆungla"),
        ("ècarté", "Ècarté"),
        ("project:regole", "BridgePedia:Regole"),
        ("bp : regole", "BridgePedia:Regole"),
        ("template:x", "Template:X"),
        ("Foo: bar", "Foo: bar"),
        ("A\u200eB", "AB"),
        ("Contro/../x", None),
        ("..", None),
        ("./x", None),
        ("A<B", None),
        ("A%41", None),
        ("~~~", None),
        ("&amp;", None),
        ("#x", None),
        ("", None),
        ("BridgePedia:", None),
        ("a" * 255, "A" + "a" * 254),
        ("a" * 256, None),
        ("é" * 128, None),
        ("\ufffd", None),
    ],
)
def test_api_title(given: str, expected: str | None) -> None:
    assert api_title(given, SITE) == expected


def test_decode_value_is_php_reading() -> None:
    assert decode_value("C%2B%2B+e_1") == "C++ e_1"
    assert decode_value("Perch%C3%A9") == "Perché"
    assert decode_value("%FF") == "\ufffd"  # not UTF-8: a title no page has


def test_case_spellings_are_what_upper_first_reaches() -> None:
    assert set(case_spellings("Splinter", 0, SITE)) == {"splinter", "ſplinter"}
    assert set(case_spellings("SSeta", 0, SITE)) >= {"ßeta", "sSeta"}
    assert case_spellings("BridgePedia:Regole", 4, SITE) == ["BridgePedia:regole"]
    assert case_spellings("1NT", 0, SITE) == []
    case_sensitive = SiteInfo(case_sensitive=frozenset({0}))
    assert case_spellings("Splinter", 0, case_sensitive) == []
    for title in ("Splinter", "SSeta", "Ǆungla", "Ècarté"):
        for spelling in case_spellings(title, 0, SITE):
            assert api_title(spelling, SITE) == title


def test_alias_files_never_take_a_served_path() -> None:
    def path(title: str) -> PurePosixPath:
        return PurePosixPath("api/get/title") / (title.replace(" ", "_") + ".json")

    served = {
        path("Splinter"): TitleTarget("Splinter", 0, b"S"),
        path("Stayman"): TitleTarget("Stayman", 0, b"T"),
        # A served title whose file stands where a spelling of another would be.
        path("stayman.json/x"): TitleTarget("stayman.json/x", 0, b"X"),
    }
    files = alias_files(served, SITE, [("Splinter 2", 0, path("Splinter")), ("Gone", 0, path("Nothing"))])
    assert files[path("splinter")] == b"S"
    assert files[path("Splinter 2")] == b"S"
    assert files[path("splinter 2")] == b"S"
    assert path("stayman") not in files  # its file would be the folder of a served title's
    assert path("Gone") not in files  # a redirect to a page without a title file
    assert not set(files) & set(served)


def test_namespace_spellings_are_every_name_the_wiki_reads() -> None:
    from bridgeshape_mirror.serving.title_lookup import namespace_spellings

    assert namespace_spellings(SITE, {0, 4}) == {"BridgePedia": ("bp", "bridgepedia", "project")}
    assert namespace_spellings(SITE, {0}) == {}


def test_the_snippet_writes_a_namespace_prefix_nginx_cannot_quote_encoded() -> None:
    from bridgeshape_mirror.serving.nginx import render_snippet

    assert "set $bridgeshape_title 'BridgePedia:$1';" in render_snippet(namespaces={"BridgePedia": ("bridgepedia", "bp")})
    # No nginx string holds a `$`: the SSI include decodes it (tests/test_nginx_snippet.py).
    assert "set $bridgeshape_title 'A%24b:$1';" in render_snippet(namespaces={"A$b": ("a$b",)})


def test_lower_spellings_are_every_character_that_upper_cases() -> None:
    # The table is read in blocks (skipping those upper() leaves alone): it must hold what a
    # look at every single code point finds, in the same order.
    everything = _all_characters()
    assert len(everything) == sys.maxunicode + 1
    assert all(ord(everything[code]) == code for code in (0, 0x41, 0xD800, 0xDFFF, 0xFFFF, 0x10000, sys.maxunicode))
    found: dict[str, list[str]] = {}
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if char.upper() != char:
            found.setdefault(char.upper(), []).append(char)
    expected = {upper: tuple(chars) for upper, chars in found.items()}
    assert list(_lower_spellings().items()) == list(expected.items())
    assert _lower_spellings()["S"] == ("s", "ſ")
