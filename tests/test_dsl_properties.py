"""Property tests: every valid scenario survives format -> parse; no string crashes the parser."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.dsl import Fit, Position, Range, Role, Scenario, ShapeClass, Suit, SuitClass
from bridgeshape_mirror.dsl.deck import MAX_HAND_HCP, MAX_SUIT_HCP, MAX_SUIT_LENGTH as MAX_LENGTH
from bridgeshape_mirror.dsl.format import format_dsl


def ranges(limit: int) -> st.SearchStrategy[Range]:
    @st.composite
    def build(draw):
        low = draw(st.integers(0, limit))
        kind = draw(st.sampled_from(["plus", "exact", "between"]))
        if kind == "plus":
            return Range(low, None)
        if kind == "exact":
            return Range(low, low)
        return Range(low, draw(st.integers(low, limit)))

    return build()


fits_values = st.builds(
    lambda head, minimum: (head, minimum),
    st.sampled_from([None, "S", "H", "D", "C", "M", "m"]),
    st.integers(0, MAX_LENGTH),
)


def make_fit(head, minimum, declared_in: Role | None) -> Fit:
    pair = declared_in.pair if declared_in else dsl.Pair.DECLARER
    suit = Suit(head) if head in ("S", "H", "D", "C") else None
    suit_class = SuitClass.MAJOR if head == "M" else SuitClass.MINOR if head == "m" else None
    return Fit(min=minimum, suit=suit, suit_class=suit_class, pair=pair, declared_in=declared_in)


@st.composite
def positions(draw, role: Role) -> Position:
    suits = draw(st.dictionaries(st.sampled_from(list(Suit)), ranges(MAX_LENGTH), max_size=4))
    suit_hcp = draw(st.dictionaries(st.sampled_from(list(Suit)), ranges(MAX_SUIT_HCP), max_size=4))
    wildcard_allowed = len(set(suits) | set(suit_hcp)) < 4
    return Position(
        role=role,
        suits=suits,
        suit_hcp=suit_hcp,
        hcp=draw(st.none() | ranges(MAX_HAND_HCP)),
        x=draw(st.none() | ranges(MAX_LENGTH)) if wildcard_allowed else None,
        x_hcp=draw(st.none() | ranges(MAX_SUIT_HCP)) if wildcard_allowed else None,
        shape=draw(st.none() | st.sampled_from(list(ShapeClass))),
    )


labels = st.text(
    alphabet=st.characters(blacklist_characters=":/", blacklist_categories=("Cs",)), max_size=12
).map(lambda s: s.strip(" \t\r\n"))


@st.composite
def scenarios(draw) -> Scenario:
    roles = draw(st.permutations(list(Role)))[: draw(st.integers(1, 4))]
    fits = [make_fit(*v, None) for v in draw(st.lists(fits_values, max_size=2))]
    built = []
    for role in roles:
        built.append(draw(positions(role)))
        fits += [make_fit(*v, role) for v in draw(st.lists(fits_values, max_size=2))]
    return Scenario(label=draw(labels), positions=tuple(built), fits=tuple(fits))


@settings(max_examples=300, deadline=None)
@given(st.lists(scenarios(), min_size=1, max_size=3))
def test_format_then_parse_gives_the_same_scenarios(values):
    text = format_dsl(values)
    result = dsl.parse(text)
    assert result.valid, (text, result.errors)
    assert list(result.scenarios) == values
    # And the text form is stable: formatting what was parsed gives the same text.
    assert format_dsl(result.scenarios) == text
    assert json.loads(json.dumps(dsl.validate_document(result)))["validate"]["valid"] is True


def _check_errors_point_into_raw(raw: str) -> None:
    result = dsl.parse(raw)
    assert result.valid == (not result.errors)
    if result.valid:
        again = dsl.parse(format_dsl(result.scenarios))
        assert again.valid and again.scenarios == result.scenarios
        return
    assert result.scenarios == ()
    for error in result.errors:
        assert 0 <= error.offset <= len(raw)
        assert error.offset + error.length <= len(raw)
        assert raw[error.offset : error.offset + error.length] == error.token
        assert error.scenario >= 1 and error.message
        lines = raw.split("\n")
        assert 1 <= error.line <= len(lines)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_or_gives_errors_inside_the_string(raw):
    _check_errors_point_into_raw(raw)


PIECES = [
    "opener", "responder", "opp1", "opp2", "opner", "H:5+", "S:0-1", "D:3", "C:14", "x:0-1",
    "xhcp:0", "hcp:12-21", "Shcp:3+", "hcp:", "H:", "s:4", "shape:balanced", "shape:odd",
    "fit:H8+", "fit:M8+", "fit:8+", "fit:m9", "lbl:", "1H-4C:", ";", "//", "/", ":", " ", " ",
    "\n", "\t", "5+", "7-3", "+", "-", "\u00a0", "é",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=25))
def test_token_soup_parses_or_gives_errors_inside_the_string(pieces):
    _check_errors_point_into_raw("".join(pieces))
