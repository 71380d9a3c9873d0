"""The parser module generated from the grammar (scripts/generate_parser.py) is the grammar's:
made from today's grammar.lark and key table, and reading every string as lark itself does
with that grammar. A grammar or key change without running the script fails here."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from lark import Lark, Token, Tree

from bridgeshape_mirror.dsl import generated_parser
from bridgeshape_mirror.dsl.grammar_source import PARSER_OPTIONS, grammar_text
from bridgeshape_mirror.dsl.keys import KEYS
from bridgeshape_mirror.dsl.parser import _parser

REGENERATE = "out of date: run .venv/bin/python scripts/generate_parser.py"


def _lark() -> Lark:
    return Lark(grammar_text(), **PARSER_OPTIONS)


LARK = _lark()


def shape(node: object) -> object:
    """A tree as plain values, so trees of the two modules' classes compare."""
    if isinstance(node, (Tree, generated_parser.Tree)):
        return (node.data, tuple(shape(child) for child in node.children))
    assert isinstance(node, (Token, generated_parser.Token)), node
    return (node.type, str(node), node.start_pos, node.end_pos, node.line, node.column)


def test_made_from_today_s_grammar_and_options():
    assert generated_parser.GRAMMAR == grammar_text(), REGENERATE
    assert generated_parser.OPTIONS == PARSER_OPTIONS, REGENERATE


def test_a_key_added_to_the_table_would_make_it_out_of_date(monkeypatch):
    from bridgeshape_mirror.dsl import grammar_source

    terminals = grammar_source.terminals()
    name = next(iter(terminals))
    monkeypatch.setattr(grammar_source, "terminals", lambda: {**terminals, name: (*terminals[name], "zz:")})
    assert grammar_source.grammar_text() != generated_parser.GRAMMAR


PIECES = st.sampled_from(
    [k.token for k in KEYS]
    + ["opener", "responder", "opp1", "opp2", "5+", "12-14", "3", "S8+", "M9+", "balanced", "any", "x", "Label:"]
    + [" ", " ", ";", "//", ":", "/", "+", "-", "\t", "\n", "é", "0"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join) | st.text(max_size=30))
def test_reads_every_string_as_lark_does(raw):
    try:
        expected = ("tree", shape(LARK.parse(raw)))
    except Exception as exc:  # noqa: BLE001 - the error must be the same, word for word
        expected = ("error", type(exc).__name__, str(exc))
    try:
        got = ("tree", shape(_parser().parse(raw)))
    except generated_parser.LarkError as exc:
        got = ("error", type(exc).__name__, str(exc))
    assert got == expected


def test_parsing_imports_neither_lark_nor_regex():
    code = "import sys, dsl; assert dsl.parse('opener hcp:12+ S:5+').valid; print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    modules = set(eval(loaded))  # noqa: S307 - our own process's list of names
    assert not {"lark", "regex"} & modules
