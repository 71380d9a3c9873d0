"""One test per error category of SEMANTICS 1: the code, the scenario, the place, a useful hint."""

from __future__ import annotations

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.dsl import ErrorCode
from bridgeshape_mirror.dsl.messages import MESSAGES


def errors(raw: str) -> list[tuple[str, int, int, str]]:
    result = dsl.parse(raw)
    assert not result.valid and result.scenarios == ()
    return [(e.code.value, e.scenario, e.offset, e.token) for e in result.errors]


def only_error(raw: str) -> dsl.DslError:
    result = dsl.parse(raw)
    assert len(result.errors) == 1, result.errors
    return result.errors[0]


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("opner H:5+", [("unknown-role", 1, 0, "opner")]),
        ("opener H:5+; Opener S:4+", [("unknown-role", 1, 13, "Opener")]),
        ("opener hpc:12", [("unknown-key", 1, 7, "hpc:12")]),
        ("opener s:5+", [("unknown-key", 1, 7, "s:5+")]),
        ("opener H:5++", [("bad-range", 1, 9, "5++")]),
        ("opener H:five", [("bad-range", 1, 9, "five")]),
        ("opener H:-3", [("bad-range", 1, 9, "-3")]),
        ("opener H:14", [("range-out-of-bounds", 1, 9, "14")]),
        ("opener hcp:12-38", [("range-out-of-bounds", 1, 11, "12-38")]),
        ("opener Shcp:11+", [("range-out-of-bounds", 1, 12, "11+")]),
        ("opener xhcp:0-11", [("range-out-of-bounds", 1, 12, "0-11")]),
        ("opener H:99999999999999999999999", [("range-out-of-bounds", 1, 9, "99999999999999999999999")]),
        ("opener hcp:17-15", [("min-greater-than-max", 1, 11, "17-15")]),
        ("opener H:5+ H:6", [("duplicate-key", 1, 12, "H:6")]),
        ("opener hcp:5 hcp:6", [("duplicate-key", 1, 13, "hcp:6")]),
        ("opener H:5+; responder S:4; opener D:3", [("duplicate-role", 1, 28, "opener")]),
        ("H:5+ opener", [("constraint-before-role", 1, 0, "H:5+")]),
        ("fit:H8+", [("constraint-before-role", 1, 0, "fit:H8+")]),
        ("fit:H8+; opener H:5+", [("constraint-before-role", 1, 0, "fit:H8+")]),
        ("opener H:5+ // //", [("empty-scenario", 2, 12, "//"), ("empty-scenario", 3, 15, "//")]),
        ("// opener H:5+", [("empty-scenario", 1, 0, "//")]),
        ("opener H:5+ //", [("empty-scenario", 2, 12, "//")]),
        ("label: // opener H:5+", [("empty-scenario", 1, 0, "label:")]),
        ("opener H:5+;; responder", [("empty-position", 1, 12, ";")]),
        ("opener H:5+;", [("empty-position", 1, 11, ";")]),
        ("opener H:5+ responder H:4+", [("missing-separator", 1, 12, "responder")]),
        ("opener H:5+ 12-14", [("not-key-value", 1, 12, "12-14")]),
        ("opener H:5+ :3", [("not-key-value", 1, 12, ":3")]),
        ("opener S:5 H:4 D:2 C:2 x:0-1", [("wildcard-without-candidate", 1, 23, "x:")]),
        ("opener S:5 H:4 Dhcp:0 C:2 xhcp:0", [("wildcard-without-candidate", 1, 26, "xhcp:")]),
        ("opener shape:balancd", [("unknown-shape", 1, 13, "balancd")]),
        ("opener shape:4333", [("unknown-shape", 1, 13, "4333")]),
        ("opener fit:H8", [("bad-fit", 1, 11, "H8")]),
        ("opener fit:X8+", [("bad-fit", 1, 11, "X8+")]),
        ("opener fit:H8-9", [("bad-fit", 1, 11, "H8-9")]),
        ("opener fit:H14+", [("range-out-of-bounds", 1, 11, "H14+")]),
        ("opener H:", [("missing-value", 1, 7, "H:")]),
        ("opener H:5+; responder S: 4+", [("missing-value", 1, 23, "S:")]),
    ],
)
def test_error_category(raw, expected):
    assert errors(raw) == expected


def test_every_code_has_a_message_and_is_exercised_above():
    assert set(MESSAGES) == set(ErrorCode)


def test_all_errors_of_a_string_are_reported_in_one_pass_in_order():
    raw = "opener H:14 hcp:9-3 shape:round // opp1 S:5+ S:6 ; ; oops // fit:H8 opener"
    found = errors(raw)
    assert [code for code, *_ in found] == [
        "range-out-of-bounds", "min-greater-than-max", "unknown-shape",
        "duplicate-key", "empty-position", "unknown-role", "bad-fit",
    ]
    assert [scenario for _, scenario, *_ in found] == [1, 1, 1, 2, 2, 2, 3]
    offsets = [offset for _, _, offset, _ in found]
    assert offsets == sorted(offsets)
    for _code, _, offset, token in found:
        assert raw[offset : offset + len(token)] == token


def test_offsets_lines_and_columns_on_a_multi_line_value():
    raw = "1H: opener H:5+\n  hcp:12-21;\n  responder Hhcp:11"
    error = only_error(raw)
    assert (error.code, error.line, error.column, error.offset) == (ErrorCode.RANGE_OUT_OF_BOUNDS, 3, 18, 46)
    assert raw[error.offset : error.offset + error.length] == "11"


def test_hints_suggest_the_fix():
    assert only_error("opener s:5+").hint == 'Did you mean "S:5+"?'
    assert only_error("opener HCP:12-14").hint == 'Did you mean "hcp:12-14"?'
    assert only_error("opner H:5+").hint == 'Did you mean "opener"?'
    assert only_error("opener shape:Balanced").hint == 'Did you mean "shape:balanced"?'
    assert only_error("opener fit:H8").hint == 'Did you mean "fit:H8+"?'
    assert only_error("opener fit:h8+").hint == 'Did you mean "fit:H8+"?'
    assert only_error("opener hcp:17-15").hint == 'Did you mean "15-17"?'
    assert only_error("opener H:5+; responder S: 4+").hint == 'Remove the space after the colon: "S:4+".'
    assert "non-breaking space" in only_error("opener\u00a0H:5+").hint


def test_space_after_colon_at_the_start_is_explained_as_a_label():
    error = only_error("opener H: 5+")
    assert error.code is ErrorCode.UNKNOWN_ROLE and error.token == "5+"
    assert '"opener H" was read as a label' in error.hint


def test_non_breaking_space_is_not_white_space():
    # SEMANTICS: white space is spaces, tabs and newlines; anything else is part of a token.
    assert not dsl.parse("opener\u00a0H:5+").valid
    assert dsl.parse("opener\tH:5+\r\n hcp:12+").valid


def test_messages_name_the_token_and_scenario():
    error = only_error("opener H:5+ // responder H:4+; responder S:3")
    assert error.code is ErrorCode.DUPLICATE_ROLE and error.scenario == 2
    assert "responder appears twice in scenario 2" in error.message


def test_parse_scenarios_raises_with_all_errors():
    with pytest.raises(dsl.InvalidDsl) as caught:
        dsl.parse_scenarios("opner H:5+ hcp:40")
    assert [e.code for e in caught.value.errors] == [ErrorCode.UNKNOWN_ROLE, ErrorCode.RANGE_OUT_OF_BOUNDS]
    assert "and 1 more" in str(caught.value)


def test_strings_that_look_close_to_valid_are_still_rejected():
    for raw in ["opener H:5+,", "opener, H:5+", "opener H:5 +", "opener H:+5", "opener H:5+-7",
                "opener fit:H8+ fit:", "opener shape:", "opp3 H:5", "opener H:5+ // opener H:5+ //"]:
        assert not dsl.parse(raw).valid, raw


def test_fit_may_repeat_and_role_may_be_empty():
    (scenario,) = dsl.parse_scenarios("opener fit:H8+ fit:S8+; opp2")
    assert [f.suit.value for f in scenario.fits] == ["H", "S"]
    assert scenario.position(dsl.Role.OPP2).is_empty
