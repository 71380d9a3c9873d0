"""The lark parser kept on disk: keyed by the generated grammar, loaded back the same,
rebuilt when damaged, off when asked, and never in the way when the folder is unwritable."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from lark import Lark

from dsl import parser as dsl_parser
from dsl import parser_cache

OPTIONS = repr(sorted(dsl_parser._OPTIONS.items()))
SAMPLE = "opener hcp:12+ S:5+; responder fit:S8+ x:0-1 // opp1 shape:balanced"


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BSM_PARSER_CACHE", raising=False)
    return tmp_path


class Builds:
    """Counts the parsers built (rather than loaded)."""

    def __init__(self, grammar: str) -> None:
        self.grammar, self.count = grammar, 0

    def __call__(self) -> Lark:
        self.count += 1
        return Lark(self.grammar, **dsl_parser._OPTIONS)


def test_saved_once_then_loaded_and_parses_alike(cache_home):
    grammar = dsl_parser.grammar_text()
    build = Builds(grammar)
    first = parser_cache.cached_parser(grammar, OPTIONS, build)
    path = parser_cache.parser_path(grammar, OPTIONS)
    assert build.count == 1 and path.is_file() and path.is_relative_to(cache_home / "bridgeshape-mirror")
    second = parser_cache.cached_parser(grammar, OPTIONS, build)
    assert build.count == 1  # loaded from the file
    assert second.parse(SAMPLE) == first.parse(SAMPLE)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_keyed_by_the_generated_grammar_and_options(cache_home, monkeypatch):
    grammar = dsl_parser.grammar_text()
    path = parser_cache.parser_path(grammar, OPTIONS)
    assert parser_cache.parser_path(grammar + "\n", OPTIONS) != path
    assert parser_cache.parser_path(grammar, OPTIONS + " ") != path
    # A new key in keys.KEYS changes the generated key terminals, hence the file.
    terminals = dsl_parser.terminals()
    name = next(iter(terminals))
    monkeypatch.setattr(dsl_parser, "terminals", lambda: {**terminals, name: (*terminals[name], "zz:")})
    assert parser_cache.parser_path(dsl_parser.grammar_text(), OPTIONS) != path


def test_a_damaged_file_is_rebuilt_and_replaced(cache_home):
    grammar = dsl_parser.grammar_text()
    path = parser_cache.parser_path(grammar, OPTIONS)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a parser")
    build = Builds(grammar)
    parser = parser_cache.cached_parser(grammar, OPTIONS, build)
    assert build.count == 1 and parser.parse(SAMPLE)
    parser_cache.cached_parser(grammar, OPTIONS, build)
    assert build.count == 1  # the file was rewritten whole


def test_switched_off(cache_home, monkeypatch):
    monkeypatch.setenv("BSM_PARSER_CACHE", "0")
    grammar = dsl_parser.grammar_text()
    build = Builds(grammar)
    parser_cache.cached_parser(grammar, OPTIONS, build)
    parser_cache.cached_parser(grammar, OPTIONS, build)
    assert build.count == 2 and not any(cache_home.rglob("*"))


def test_an_unwritable_cache_home_is_a_file(cache_home, monkeypatch):
    """A cache folder that cannot be made (its parent is a file): parsing works all the same."""
    blocker = cache_home / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    grammar = dsl_parser.grammar_text()
    build = Builds(grammar)
    assert parser_cache.cached_parser(grammar, OPTIONS, build).parse(SAMPLE) and build.count == 1


def test_the_validator_uses_it(cache_home):
    """A fresh process parsing a string leaves the parser's file in the cache folder."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache_home))
    code = "import dsl; assert dsl.parse('opener hcp:12+').valid"
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert parser_cache.parser_path(dsl_parser.grammar_text(), OPTIONS).is_file()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)  # and loads it back
