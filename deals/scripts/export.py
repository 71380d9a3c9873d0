"""One script of a page's scenarios: one scenario, or the union of several."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import NotExpressible
from ..rules.handled import Handles, UnhandledField
from .bridgechamp import BRIDGE_CHAMP
from .condition import SCRIPTS, scenario_condition, union_condition
from .header import ScriptScenario, script_header
from .render import TARGETS

#: Each target's declaration of the fields it says (`deals.rules.handled`): a field the
#: condition learns is refused by a language until that language's writer declares it.
DECLARED: dict[str, Handles] = {"dealer": SCRIPTS, "deal": SCRIPTS, "bridgechamp": BRIDGE_CHAMP}


def script(target: str, chosen: Sequence[ScriptScenario], *, title: str = "", tool: str, total: int) -> str:
    """The `target` script (a key of `render.TARGETS`) accepting exactly the deals of the one
    scenario in `chosen`, or of at least one of them; raises `NotExpressible` when a part
    cannot be said exactly."""
    if not chosen:
        raise ValueError("a script needs a scenario")
    write, _ = TARGETS[target]
    for s in chosen:
        try:
            DECLARED[target].refuse(s.scenario)
        except UnhandledField as exc:
            raise NotExpressible(exc.what) from exc
    condition = scenario_condition(chosen[0].scenario) if len(chosen) == 1 else union_condition([s.scenario for s in chosen])
    return write(condition, script_header(title, chosen, target, tool, total))


def suffix(target: str) -> str:
    return TARGETS[target][1]
