"""One script of a page's scenarios: one scenario, or the union of several."""

from __future__ import annotations

from collections.abc import Sequence

from .condition import scenario_condition, union_condition
from .header import ScriptScenario, script_header
from .render import TARGETS


def script(target: str, chosen: Sequence[ScriptScenario], *, title: str = "", tool: str, total: int) -> str:
    """The `target` script (a key of `render.TARGETS`) accepting exactly the deals of the one
    scenario in `chosen`, or of at least one of them; raises `NotExpressible` when a part
    cannot be said exactly."""
    if not chosen:
        raise ValueError("a script needs a scenario")
    write, _ = TARGETS[target]
    condition = scenario_condition(chosen[0].scenario) if len(chosen) == 1 else union_condition([s.scenario for s in chosen])
    return write(condition, script_header(title, chosen, target, tool, total))


def suffix(target: str) -> str:
    return TARGETS[target][1]
