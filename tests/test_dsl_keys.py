"""The key table is the one list of keys: the grammar, parser, renderer, formatter and
messages all follow it."""

from __future__ import annotations

import pickle
import re
from importlib import resources

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.dsl import ErrorCode
from bridgeshape_mirror.dsl.keys import KEYS, POSITION_FIELDS, terminals
from bridgeshape_mirror.dsl.messages import MEASURES
from bridgeshape_mirror.dsl.parser import _parser, tokens
from bridgeshape_mirror.dsl.render import position_json


def _example(key) -> str:
    return f"opener {key.token}{key.measure.example}"


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.name)
def test_each_key_parses_renders_and_formats_back(key):
    raw = _example(key)
    result = dsl.parse(raw)
    assert result.valid, result.errors
    (scenario,) = result.scenarios
    (position,) = scenario.positions
    if key.field is None:  # fit:, the scenario's
        assert len(scenario.fits) == 1 and position_json(position) == {}
    else:
        rendered = position_json(position)
        assert list(rendered) == [key.field]
        if key.suit is not None:
            assert list(rendered[key.field]) == [key.suit.value]
    assert dsl.format_dsl(result.scenarios) == raw
    assert pickle.loads(pickle.dumps(scenario)) == scenario


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.name)
def test_each_key_is_read_by_its_measures_terminal(key):
    tree = _parser().parse(_example(key))
    types = [t.type for t in tokens(tree) if t == key.token]
    assert types == [key.measure.terminal]


def test_grammar_key_terminals_are_the_tables():
    catch_alls = {"OTHER_KEY", "BARE_KEY"}  # any "word:", for the validator to explain
    built = {t.name: t for t in _parser().terminals if t.name.endswith("_KEY") and t.name not in catch_alls}
    assert set(built) == set(terminals())
    for name, spelled in terminals().items():
        pattern = built[name].pattern.to_regexp()
        assert [k.token for k in KEYS if re.fullmatch(pattern, k.token)] == list(spelled)
    # The file spells no key itself, so the table cannot drift from it.
    text = resources.files("bridgeshape_mirror.dsl").joinpath("grammar.lark").read_text(encoding="utf-8")
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    assert not [k.token for k in KEYS if f'"{k.token}"' in code]


def test_a_key_outside_the_table_is_unknown():
    (error,) = dsl.parse("opener Xhcp:3").errors
    assert error.code is ErrorCode.UNKNOWN_KEY
    assert error.message.endswith("Keys are " + " ".join(k.token for k in KEYS))


def test_messages_word_every_bounded_measure_and_suggest_its_example():
    assert {k.measure.id for k in KEYS if k.measure.limit is not None} <= set(MEASURES)
    for key in KEYS:
        (error,) = dsl.parse(f"opener {key.token}").errors
        assert error.code is ErrorCode.MISSING_VALUE
        assert f"{key.token}{key.measure.example}" in error.message


def test_position_fields_are_the_keys_fields():
    assert set(POSITION_FIELDS) == {k.field for k in KEYS if k.field is not None}
    assert set(POSITION_FIELDS) <= set(dsl.Position.__dataclass_fields__)
