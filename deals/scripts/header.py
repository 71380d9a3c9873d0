"""The header comment of an exported script: where it comes from, what it accepts, and how
likely that is (the scenario's probability, exact or estimated)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridgeshape_mirror.dsl.format import format_scenario
from bridgeshape_mirror.dsl.model import Scenario

from ..probability import Probability
from .render import Header


@dataclass(frozen=True)
class ScriptScenario:
    """Scenario `index` (from 1) of a page and its probability; or one class of a levelled
    scenario (`part` names it): `scenario` is the class's base, less the deals of `without`
    (the earlier classes that hold them), and `probability` the class's."""

    index: int
    scenario: Scenario
    probability: Probability
    part: str = ""
    without: tuple[Scenario, ...] = ()


#: How to run each target's script, its header's second line.
RUN = {
    "dealer": "run it: dealer -s SEED -p N file.dlr (N deals; -g G to try more than dealer's default of 1000000)",
    "deal": "run it: deal -s SEED -i file.tcl N (N deals)",
    "bridgechamp": "use it as the expression of Bridge Champ's generateBoards or applyBoardExpression",
}


def describe_probability(p: Probability) -> str:
    if p.exact and p.fraction is not None:
        return f"exact probability {p.fraction.numerator}/{p.fraction.denominator} = {p.value:.6g}"
    return f"probability not counted exactly: estimated {p.value:.6g}, 95% interval [{p.low:.6g}, {p.high:.6g}]"


def script_header(title: str, chosen: Sequence[ScriptScenario], target: str, tool: str, total: int) -> Header:
    """`chosen`: one scenario, or (the union) every scenario of the page; `total`: how many
    the page has."""
    lines = [f"{target} script made by {tool}; seats: opener North (dealer), opp1 East, responder South, opp2 West", RUN[target]]
    if title:
        lines.append(f"page: {title}")
    if len(chosen) == 1:
        s = chosen[0]
        lines.append(f"scenario {s.index} of {total}: {s.scenario.label or '(no label)'}")
        if s.part:
            lines.append(f"class {s.part}")
        lines.append(f"DSL: {format_scenario(s.scenario)}")
        lines += [f"  less the deals of: {format_scenario(w)}" for w in s.without]
        what = "class" if s.part else "scenario"
        lines.append(f"accepts exactly the deals of this {what}: {describe_probability(s.probability)}")
    else:
        lines.append(f"the union of the {len(chosen)} scenarios: a deal satisfying at least one of them is accepted")
        for s in chosen:
            lines.append(f"scenario {s.index}: {s.scenario.label or '(no label)'}: {describe_probability(s.probability)}")
            lines.append(f"  DSL: {format_scenario(s.scenario)}")
        low = max(s.probability.value for s in chosen)
        high = min(1.0, sum(s.probability.value for s in chosen))
        lines.append(f"the union's probability is not counted: at least {low:.6g}, at most {high:.6g} (the scenarios may overlap)")
    return Header(tuple(lines))
