"""Scenarios as Bridge Champ expressions (issue 31, SEMANTICS 9): a reader written here from
the language's specification (`tests/support/bridgechamp_reader.py`) parses every exported
expression, and its verdict is `deals.rules.predicate`'s on a deal of each of the 560 length
patterns (in every seat), on the scenario's own deals and on random deals, for every scenario
of the reference and the sample wiki, and for random valid scenarios."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.boards.pbn import parse_deal
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.errors import NotExpressible
from bridgeshape_mirror.deals.outcome import deal_outcome
from bridgeshape_mirror.deals.rules.handled import CONSUMERS, EVERY_FIELD
from bridgeshape_mirror.deals.rules.predicate import satisfies
from bridgeshape_mirror.deals.scripts.bridgechamp import ALWAYS, NEVER, expression, suit_points, text
from bridgeshape_mirror.deals.scripts.condition import scenario_condition
from bridgeshape_mirror.deals.scripts.export import script
from bridgeshape_mirror.deals.scripts.header import ScriptScenario
from bridgeshape_mirror.dsl.deck import MAX_SUIT_HCP
from bridgeshape_mirror.dsl.model import Position, Role, Scenario, Suit
from bridgeshape_mirror.exit_codes import ExitCode
from support.cli import run_export
from support.bridgechamp_reader import BridgeChampError, read
from support.scenario_sets import ROOT, every_pattern, pattern_deal, random_deal, reference_scenarios, sample_wiki_scenarios

SCENARIOS = reference_scenarios() + sample_wiki_scenarios()
assert len(SCENARIOS) > 50  # the sample wiki's scenarios were found

#: A deal of each length pattern in each seat: 2,240 deals.
PATTERN_DEALS = [pattern_deal(lengths, seat) for lengths in every_pattern() for seat in range(4)]


def exported(scenario: Scenario) -> str:
    p = deal_outcome(scenario, 1, 0, make_rng(1)).probability
    return script("bridgechamp", [ScriptScenario(1, scenario, p)], tool="test", total=1)


def test_the_reader_reads_the_specifications_examples():
    """The reader is the specification's: its examples parse and mean what it says."""
    deal = parse_deal("N:AKQJ.T98.765.432 T98.AKQJ.432.765 765.432.AKQJ.T98 432.765.T98.AKQJ")
    assert read("condition shape(north, any 4333 + any 4432)\nand hcp(north) >= 10 and hcp(north) <= 17\nand not hascard(north, AC)")(deal)
    assert read("hcp(ns) - hcp(ew) >= -1\nand hcp(ns) - hcp(ew) <= 1 # misfit drill")(deal)
    assert not read("hcp(ns) != hcp(ew)")(deal)
    assert read("10 + hcp(ew) <= hcp(ns) + 10 and hcp(ns()) == 20")(deal)
    assert read("shape(north, 4xxx) and shape(north, any 4333 - 3xxx) and shape(n, x3xx)")(deal)
    assert not read("shape(north, any 4333 - 4xxx)")(deal)
    assert not read("shape(south, any 5332 - 5xxx) or shape(east, 5xxx) or shape(west, x5xx + x6xx)")(deal)
    assert read("includeCards(north, spades, AK) and excludeCards(north, c, AKQ) and hascard(east, HA) && !hascard(south, SA)")(deal)
    assert read("hascard(west, TD) || hascard(north, AC)")(deal) and not read("hascard(south, TD) || hascard(north, AC)")(deal)
    assert read("") and read("# a comment only\n")(deal)
    for wrong in (
        "not hcp(north) >= 3", "not (hascard(north, AS))", "not includeCards(north, s, A)",
        "shape(ns, any 4333)", "hascard(ns, AS)", "shape(north, 4442)", "hcp(north) >= 3 and",
        "hcp(north, spades) >= 3", "${Strong NT} and hcp(south) >= 5",
    ):  # fmt: skip
        with pytest.raises(BridgeChampError):
            read(wrong)


@pytest.mark.parametrize("low,high", [(lo, hi) for lo in range(MAX_SUIT_HCP + 1) for hi in range(lo, MAX_SUIT_HCP + 1)])
def test_a_suits_hcp_is_its_honours(low, high):
    """Every range of a suit's HCP, on every holding of its honours (spots count 0)."""
    verdict = read(text(suit_points(0, Suit.H, low, high)))
    for held in range(16):
        honours = [rank for rank in range(4) if held >> rank & 1]
        deal = _north_with_heart_honours(honours)
        points = deal.hands[0].suit_hcp(1)
        assert points == sum(4 - r for r in honours)
        assert verdict(deal) == (low <= points <= high), (low, high, honours)


def _north_with_heart_honours(honours: list[int]) -> Deal:
    """North holds these hearts (0 = ace .. 3 = jack) and the two, filled with clubs; the
    other cards dealt round."""
    owner = [-1] * 52
    north = [13 + r for r in honours] + [13 + 12] + [39 + r for r in range(12 - len(honours))]
    for card in north:
        owner[card] = 0
    rest = [c for c in range(52) if owner[c] < 0]
    for i, card in enumerate(rest):
        owner[card] = 1 + i // 13
    return Deal.from_seat_of_card(owner)


@pytest.mark.parametrize("name,scenario", SCENARIOS, ids=[n for n, _ in SCENARIOS])
def test_the_expression_is_the_predicate(name, scenario):
    """On a deal of each length pattern in each seat, on the scenario's own deals (all
    accepted) and on random deals: the reader's verdict is the predicate's."""
    verdict = read(exported(scenario))
    for deal in PATTERN_DEALS:
        assert verdict(deal) == satisfies(deal, scenario), (name, deal.pbn())
    for pbn in deal_outcome(scenario, 1, 40, make_rng(5)).deals:
        assert verdict(parse_deal(pbn)), (name, pbn)
    rng = random.Random(name)
    for _ in range(200):
        deal = random_deal(rng)
        assert verdict(deal) == satisfies(deal, scenario), (name, deal.pbn())


def test_the_union_accepts_a_deal_of_any_of_its_scenarios():
    text = (ROOT / "examples" / "splinter.dsl").read_text(encoding="utf-8").strip()
    scenarios = dsl.parse_scenarios(text)
    chosen = [ScriptScenario(i, s, deal_outcome(s, i, 0, make_rng(1)).probability) for i, s in enumerate(scenarios, start=1)]
    verdict = read(script("bridgechamp", chosen, tool="t", total=len(scenarios)))
    rng = random.Random(3)
    deals = [random_deal(rng) for _ in range(300)] + [parse_deal(p) for s in scenarios for p in deal_outcome(s, 1, 10, make_rng(2)).deals]
    for deal in deals:
        assert verdict(deal) == any(satisfies(deal, s) for s in scenarios), deal.pbn()


def test_a_wildcard_without_candidates_accepts_nothing_and_no_constraint_everything():
    empty = dsl.parse_scenarios("fit:C8+ opener S:5+ H:0-3 D:1+ x:5+")[0]
    assert expression(scenario_condition(empty)) == NEVER
    assert expression(scenario_condition(dsl.parse_scenarios("opener; opp2")[0])) == ALWAYS
    deal = random_deal(random.Random(1))
    assert not read(NEVER)(deal) and read(ALWAYS)(deal)


def test_fits_are_pair_counts_and_a_single_length_is_equality():
    text = expression(scenario_condition(dsl.parse_scenarios("fit:M8+ opener H:4 x:5+; opp1 fit:D9+")[0]))
    assert "hearts(north) == 4" in text
    assert "spades(ns) >= 8 or\n" in text and "diamonds(ew) >= 9" in text


def test_the_header_says_the_probability_and_that_solutions_are_not_uniform():
    text = exported(dsl.parse_scenarios("1NT: opener hcp:15-17 shape:balanced")[0])
    lines = text.splitlines()
    assert lines[0].startswith("# bridgechamp script made by test; seats: opener North")
    assert any(line.startswith("# accepts exactly the deals of this scenario: exact probability ") for line in lines)
    assert any("not a uniform sample" in line for line in lines)
    assert all(line.startswith("#") for line in lines[: lines.index("")])


def test_a_constraint_the_export_does_not_know_is_refused():
    @dataclasses.dataclass(frozen=True)
    class WithControls(Position):
        controls: int | None = None

    scenario = Scenario(positions=(WithControls(Role.OPENER, controls=3),))
    p = deal_outcome(dsl.parse_scenarios("opener")[0], 1, 0, make_rng(1)).probability
    with pytest.raises(NotExpressible, match="controls constraint of opener"):
        script("bridgechamp", [ScriptScenario(1, scenario, p)], tool="t", total=1)
    assert any(c.consumer == "the Bridge Champ export" and c.fields == EVERY_FIELD for c in CONSUMERS)


# --- the command ----------------------------------------------------------------------




def test_the_command_writes_the_expression(monkeypatch):
    splinter = (ROOT / "examples" / "splinter.dsl").read_text(encoding="utf-8").strip()
    code, out, err = run_export(monkeypatch, splinter, "--to", "bridgechamp", "--scenario", "2")
    assert code == 0 and err == ""
    assert "# scenario 2 of 6: 1H-4D" in out.splitlines()
    read(out)
    code, union, _ = run_export(monkeypatch, splinter, "--to", "bridgechamp")
    assert code == 0 and union.count("DSL: ") == 6
    read(union)


def test_the_command_refuses_what_cannot_be_said(monkeypatch):
    import bridgeshape_mirror.deals.scripts.export as export_module

    def refuse(*args, **kwargs):
        raise NotExpressible("the controls constraint of opener")

    monkeypatch.setattr(export_module, "difference_condition", refuse)
    code, out, err = run_export(monkeypatch, "opener hcp:12+", "--to", "bridgechamp")
    assert code == ExitCode.INVALID and out == ""
    assert "no bridgechamp script: " in err and "controls constraint of opener" in err


# --- random valid scenarios ----------------------------------------------------------------

SUIT_KEYS = ("S", "H", "D", "C")


@st.composite
def ranges(draw, limit: int) -> str:
    lo = draw(st.integers(0, limit))
    kind = draw(st.sampled_from(("plus", "between", "exact")))
    if kind == "plus":
        return f"{lo}+"
    if kind == "exact":
        return str(lo)
    return f"{lo}-{draw(st.integers(lo, limit))}"


@st.composite
def position_texts(draw, role: str) -> str:
    tokens = []
    named = draw(st.lists(st.sampled_from(SUIT_KEYS), max_size=3, unique=True))
    tokens += [f"{s}:{draw(ranges(7))}" for s in named]
    tokens += [f"{s}hcp:{draw(ranges(10))}" for s in draw(st.lists(st.sampled_from([s for s in SUIT_KEYS if s not in named]), max_size=1))]
    if draw(st.booleans()):
        tokens.append(f"hcp:{draw(ranges(25))}")
    if draw(st.booleans()):
        tokens.append(f"x:{draw(ranges(7))}")
        if draw(st.booleans()):
            tokens.append(f"xhcp:{draw(ranges(10))}")
    if draw(st.integers(0, 3)) == 0:
        tokens.append("shape:" + draw(st.sampled_from(("balanced", "one_suiter", "two_suiter", "three_suiter", "any"))))
    if draw(st.integers(0, 3)) == 0:
        tokens.append(f"fit:{draw(st.sampled_from(('S', 'H', 'D', 'C', 'M', 'm', '')))}{draw(st.integers(6, 10))}+")
    return " ".join([role, *tokens])


@st.composite
def scenario_texts(draw) -> str:
    roles = draw(st.permutations([r.value for r in Role]))[: draw(st.integers(1, 4))]
    return "; ".join(draw(position_texts(role)) for role in roles)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=scenario_texts(), seed=st.integers(0, 2**32 - 1))
def test_a_random_scenarios_expression_is_the_predicate(text, seed):
    result = dsl.parse(text)
    assume(result.valid)  # not a wildcard beside four named suits
    (scenario,) = result.scenarios
    verdict = read(expression(scenario_condition(scenario)))
    rng = random.Random(seed)
    for deal in [random_deal(rng) for _ in range(150)] + PATTERN_DEALS[rng.randrange(4) :: 17]:
        assert verdict(deal) == satisfies(deal, scenario), (text, deal.pbn())
