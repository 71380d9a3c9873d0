"""Scenarios as dealer and Deal 3.1 scripts (issue 11, step 3): the condition is exactly
SEMANTICS 3 (held to `deals.rules.predicate` on every hand pattern, on sampled deals and on random
ones), the scripts run in Debian's `dealer` and `deal`, every deal they print satisfies the
scenario, and their acceptance rate agrees with the exact probability."""

from __future__ import annotations

import dataclasses
import math
import random
import subprocess
from pathlib import Path

import pytest

from bridgeshape_mirror import dsl
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.deals.boards.cards import Deal
from bridgeshape_mirror.deals.errors import NotExpressible
from bridgeshape_mirror.deals.outcome import deal_outcome
from bridgeshape_mirror.deals.boards.pbn import parse_deal
from bridgeshape_mirror.deals.rules.predicate import satisfies, shape_class
from bridgeshape_mirror.deals.probability import wilson
from bridgeshape_mirror.deals.drawing.rng import make_rng
from bridgeshape_mirror.deals.scripts.condition import (
    All,
    Any,
    negated,
    scenario_condition,
    shape_condition,
)
from bridgeshape_mirror.deals.scripts.export import script
from bridgeshape_mirror.deals.scripts.header import ScriptScenario
from bridgeshape_mirror.dsl.model import Position, Role, Scenario, ShapeClass
from bridgeshape_mirror.store.version import VERSION
from support.cli import run_export
from support.script_conditions import evaluate
from support.scenario_sets import every_pattern, pattern_deal, random_deal, reference_scenarios, sample_wiki_scenarios

ROOT = Path(__file__).resolve().parent.parent
DEALER = Path("/usr/games/dealer")
DEAL = Path("/usr/games/deal")
GOLDEN = Path(__file__).resolve().parent / "golden" / "exports"


#: Scenarios the sample does not have: every shape class, single values (`== n`).
SHAPES = [
    (f"shapes-{i}", dsl.parse_scenarios(text)[0])
    for i, text in enumerate(
        (
            "opener shape:one_suiter hcp:6-10; responder shape:two_suiter",
            "opener shape:three_suiter hcp:12+; opp1 shape:one_suiter S:6+",
            "opener shape:two_suiter H:5 Shcp:0; responder shape:balanced D:3 hcp:10",
        ),
        start=1,
    )
]
SCENARIOS = reference_scenarios() + sample_wiki_scenarios() + SHAPES
assert len(SCENARIOS) > 50  # the sample wiki's scenarios were found


def test_shape_classes_are_the_sorted_rule_on_every_pattern():
    """Every (spades, hearts, diamonds, clubs) of 13 cards: the condition's class, by its
    bounds and by its patterns, is the predicate's (which sorts the lengths, as SEMANTICS 3
    says)."""
    patterns = every_pattern()
    assert len(patterns) == 560
    for lengths in patterns:
        deal = pattern_deal(lengths)
        for shape in (ShapeClass.BALANCED, ShapeClass.ONE_SUITER, ShapeClass.TWO_SUITER, ShapeClass.THREE_SUITER):
            assert evaluate(shape_condition(0, shape), deal) == (shape_class(lengths) is shape), (lengths, shape)
        assert evaluate(shape_condition(0, ShapeClass.ANY), deal)


@pytest.mark.parametrize("name,scenario", SCENARIOS, ids=[n for n, _ in SCENARIOS])
def test_the_condition_is_the_predicate(name, scenario):
    """On the scenario's own sampled deals (all accepted) and on random deals (accepted
    exactly when the predicate says so)."""
    condition = scenario_condition(scenario)
    outcome = deal_outcome(scenario, 1, 60, make_rng(5))
    for pbn in outcome.deals:
        assert evaluate(condition, parse_deal(pbn))
    rng = random.Random(name)
    for _ in range(200):
        deal = random_deal(rng)
        assert evaluate(condition, deal) == satisfies(deal, scenario)
    for lengths in every_pattern():  # each pattern in each seat
        for seat in range(4):
            deal = pattern_deal(lengths, seat)
            assert evaluate(condition, deal) == satisfies(deal, scenario), (lengths, seat)


def test_a_wildcard_without_candidates_is_a_script_that_accepts_nothing():
    # The position names three suits, its pair's fit the fourth: SEMANTICS 3 leaves no candidate.
    scenario = dsl.parse_scenarios("fit:C8+ opener S:5+ H:0-3 D:1+ x:5+")[0]
    assert scenario_condition(scenario).parts[0].parts[-1] == Any(())
    text = script("dealer", [ScriptScenario(1, scenario, deal_outcome(scenario, 1, 0, make_rng(1)).probability)], tool="t", total=1)
    assert "    0 &&\n" in text or "    0\n" in text


def test_a_constraint_the_scripts_do_not_know_is_refused_not_dropped():
    @dataclasses.dataclass(frozen=True)
    class WithControls(Position):
        controls: int | None = None

    scenario = Scenario(positions=(WithControls(Role.OPENER, controls=3),))
    with pytest.raises(NotExpressible, match="controls constraint of opener"):
        scenario_condition(scenario)
    assert scenario_condition(Scenario(positions=(WithControls(Role.OPENER),))) == All((All(()),))


# --- the scripts' form ------------------------------------------------------------------


def _script(target: str, text: str, title: str = "") -> str:
    scenario = dsl.parse_scenarios(text)[0]
    return script(target, [ScriptScenario(1, scenario, _probability(scenario))], title=title, tool="t", total=1)


def test_a_dealer_script_says_how_to_run_it_and_who_deals():
    text = _script("dealer", "opener hcp:15-17 shape:balanced")
    lines = text.splitlines()
    assert lines[1] == "# run it: dealer -s SEED -p N file.dlr (N deals; -g G to try more than dealer's default of 1000000)"
    assert "dealer north" in lines and "vulnerable none" in lines
    assert lines.index("dealer north") < next(i for i, line in enumerate(lines) if line.startswith("condition"))
    assert "  shape(north, any 4333 + any 4432 + any 5332)" in lines


def test_shape_is_used_where_it_is_shorter_and_a_single_value_is_equality():
    dealer = _script("dealer", "opener shape:three_suiter S:4 Dhcp:0; responder shape:two_suiter; opp1 shape:one_suiter")
    assert "shape(north, any 4441 + any 5440)" in dealer and "shape(south, any 5422 + any 5431" in dealer
    assert "spades(north) == 4" in dealer and "hcp(north, diamonds) == 0" in dealer
    # a one-suiter can have ten cards in a suit, which no shape() digit says: its bounds
    assert "shape(east" not in dealer and "spades(east) >= 6" in dealer
    tcl = _script("deal", "opener shape:balanced H:3; opp1 shape:one_suiter")
    assert 'patterncond bsm_balanced {"$l1$l2$l3$l4" in {4333 4432 5332}}' in tcl
    assert "10111" in tcl and "[bsm_balanced north]" in tcl
    assert "[bsm_one_suiter east]" in tcl and "[hearts north] == 3" in tcl
    assert tcl.splitlines()[1] == "# run it: deal -s SEED -i file.tcl N (N deals)"


def test_dealers_limit_of_32_shapes_falls_back_to_bounds():
    scenarios = dsl.parse_scenarios(" // ".join(f"opener shape:balanced hcp:{h}" for h in range(0, 36)))
    chosen = [ScriptScenario(i, s, _probability(s)) for i, s in enumerate(scenarios, start=1)]
    out = script("dealer", chosen, tool="t", total=len(chosen))
    assert out.count("shape(") == 32 and out.count("spades(north) >= 2") == 36 - 32


def test_scripts_are_ascii_with_comments_only_at_a_lines_start():
    """BBO's dealer reads bytes and takes `#` only at the start of a line: a title or label
    is transliterated (its exact text stays in the JSON)."""
    for target in ("dealer", "deal", "bridgechamp"):
        text = _script(target, "Perché ♥ «1NT»: opener H:5+ hcp:12-14", title="Apertura di 1♥ – perché")
        assert text.isascii(), target
        assert all("#" not in line or line.startswith("#") for line in text.splitlines()), target
        assert "# page: Apertura di 1H" in text and "Perche H" in text


# --- the command ----------------------------------------------------------------------




SPLINTER = (ROOT / "examples" / "splinter.dsl").read_text(encoding="utf-8").strip()


def test_the_command_writes_one_scenario_with_its_header(monkeypatch):
    code, out, err = run_export(monkeypatch, SPLINTER, "--to", "dealer", "--scenario", "2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"# dealer script made by bridgeshape-mirror {VERSION}")
    assert "# scenario 2 of 6: 1H-4D" in lines
    assert "# DSL: 1H-4D: opener H:5+ hcp:12-21; responder H:4+ D:0-1 Dhcp:0 hcp:10-15" in lines
    assert any(line.startswith("# accepts exactly the deals of this scenario: exact probability ") for line in lines)
    assert "action printoneline" in lines and "condition (" in lines
    assert not any(word in out for word in ("produce", "generate"))


def test_the_command_without_scenario_writes_the_union(monkeypatch):
    code, out, _ = run_export(monkeypatch, SPLINTER, "--to", "deal")
    assert code == 0
    assert "# the union of the 6 scenarios: a deal satisfying at least one of them is accepted" in out
    assert out.count("DSL: ") == 6 and "main {\n  reject unless {" in out


def test_the_command_refuses_bad_input(monkeypatch):
    assert run_export(monkeypatch, "opener H:5+ hcp:40", "--to", "dealer")[0] == ExitCode.INVALID
    assert run_export(monkeypatch, "   ", "--to", "dealer")[0] == ExitCode.INVALID
    assert run_export(monkeypatch, SPLINTER, "--to", "dealer", "--scenario", "7")[0] == ExitCode.USAGE


def test_the_dealer_script_is_the_golden_one(monkeypatch):
    code, out, _ = run_export(monkeypatch, SPLINTER, "--to", "dealer", "--scenario", "1")
    text = out.replace(f"bridgeshape-mirror {VERSION};", "bridgeshape-mirror {VERSION};")
    golden = GOLDEN / "splinter-1.dlr"
    if __import__("os").environ.get("BSM_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert code == 0 and text == golden.read_text(encoding="utf-8")


# --- the real tools ---------------------------------------------------------------------


def _probability(scenario: Scenario):
    return deal_outcome(scenario, 1, 0, make_rng(1)).probability


def _agrees(produced: int, generated: int, p: float) -> bool:
    """A two-sided test at z = 4.5 of `produced` successes in `generated` draws of rate `p`
    (normal approximation; used only where generated * p >= 30): with ~70 scenarios each
    run once, a correct script fails it with probability about 5e-4."""
    mean = generated * p
    return abs(produced - mean) <= 4.5 * math.sqrt(mean * (1 - p))


def _dealer_deal(line: str) -> Deal:
    # "n AK765.92.KQT.Q82 e ... s ... w ..."
    parts = line.split()
    hands = {parts[i]: parts[i + 1] for i in range(0, 8, 2)}
    return parse_deal("N:" + " ".join(hands[s] for s in "nesw").upper())


#: Draws per scenario: dealer makes about half a million a second here.
GENERATED = 300_000


@pytest.mark.slow
@pytest.mark.skipif(not DEALER.exists(), reason="Debian's dealer is not installed")
@pytest.mark.parametrize("name,scenario", SCENARIOS, ids=[n for n, _ in SCENARIOS])
def test_dealer_accepts_exactly_the_scenario(tmp_path, name, scenario):
    """Every deal dealer prints satisfies the scenario; the acceptance rate agrees with the
    exact probability (with an estimated one: their 95% intervals meet). Scenarios too rare
    for GENERATED draws to test the rate (an expected count under 30) are checked for
    soundness only."""
    p = _probability(scenario)
    path = tmp_path / "s.dlr"
    path.write_text(script("dealer", [ScriptScenario(1, scenario, p)], tool="test", total=1), encoding="utf-8")
    seed = sum(map(ord, name)) % 10_000 + 1
    run = subprocess.run(
        [str(DEALER), "-s", str(seed), "-p", str(GENERATED), "-g", str(GENERATED), str(path)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    lines = run.stdout.splitlines()
    deals = [_dealer_deal(line) for line in lines if line.startswith("n ")]
    generated = int(next(line for line in lines if line.startswith("Generated")).split()[1])
    produced = int(next(line for line in lines if line.startswith("Produced")).split()[1])
    assert produced == len(deals) and generated == GENERATED
    for deal in deals:
        assert satisfies(deal, scenario), (name, deal.pbn())
    if p.exact and GENERATED * p.value >= 30:
        assert _agrees(produced, generated, p.value), (name, produced, generated, p.value)
    elif not p.exact:  # an estimate: dealer's rate and the estimate's 95% interval meet
        low, high = wilson(produced, generated)
        assert low <= p.high and p.low <= high, (name, produced, generated, p)


#: A few of each form: the Deal runs are slower than dealer's.
DEAL_SCENARIOS = [s for s in SCENARIOS if s[0] in ("stayman-1", "preempt-2", "overcall-1", "contro-informativo-1", "splinter-compact-1", "4-1", "13-1")] + SHAPES


def _tcl_deal(line: str) -> Deal:
    # "AKJT5 K 954 A532|93 T64 T872 9874|..." north, east, south, west; a void is empty
    hands = [".".join(hand.split(" ")) for hand in line.split("|")]
    return parse_deal("N:" + " ".join(hands))


@pytest.mark.slow
@pytest.mark.skipif(not DEAL.exists(), reason="Deal 3.1 is not installed")
@pytest.mark.parametrize("name,scenario", DEAL_SCENARIOS, ids=[n for n, _ in DEAL_SCENARIOS])
def test_deal_accepts_exactly_the_scenario(tmp_path, name, scenario):
    """The same for Deal 3.1: `deal -v` says after how many tries each deal was found."""
    p = _probability(scenario)
    path = tmp_path / "s.tcl"
    path.write_text(script("deal", [ScriptScenario(1, scenario, p)], tool="test", total=1), encoding="utf-8")
    wanted = max(50, min(2_000, int(60_000 * p.value)))
    run = subprocess.run(
        [str(DEAL), "-v", "-l", "-s", "17", "-i", str(path), str(wanted)],
        capture_output=True, text=True, timeout=300, check=True, cwd=tmp_path,
    )  # fmt: skip
    deals = [_tcl_deal(line) for line in run.stdout.splitlines() if "|" in line]
    tries = [int(line.split()[-2]) for line in run.stderr.splitlines() if line.startswith("Deal ") and "found after" in line]
    assert len(deals) == wanted == len(tries)
    for deal in deals:
        assert satisfies(deal, scenario), (name, deal.pbn())
    if p.exact and tries[-1] * p.value >= 30:
        assert _agrees(wanted, tries[-1], p.value), (name, wanted, tries[-1], p.value)


@pytest.mark.parametrize("name,scenario", SCENARIOS[::3], ids=[n for n, _ in SCENARIOS[::3]])
def test_a_negated_condition_accepts_exactly_what_the_condition_refuses(name, scenario):
    """`negated` (a levelled class's script says "not an earlier class" with it), on every
    pattern in every seat and on the scenario's own deals."""
    condition = scenario_condition(scenario)
    opposite = negated(condition)
    own = deal_outcome(scenario, 1, 20, make_rng(3)).deals
    deals = [pattern_deal(lengths, seat) for lengths in every_pattern() for seat in range(4)] + [parse_deal(p) for p in own]
    for deal in deals:
        assert evaluate(opposite, deal) != evaluate(condition, deal), deal.pbn()
