"""One script of a page's scenarios: one scenario, or the union of several."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import NotExpressible
from ..rules.handled import Handles, UnhandledField
from .bridgechamp import BRIDGE_CHAMP
from .condition import SCRIPTS, difference_condition, union_condition
from .header import ScriptScenario, script_header
from .render import TARGETS

#: Each target's declaration of the fields it says (`deals.rules.handled`): a field the
#: condition learns is refused by a language until that language's writer declares it.
DECLARED: dict[str, Handles] = {"dealer": SCRIPTS, "deal": SCRIPTS, "bridgechamp": BRIDGE_CHAMP}


def script(target: str, chosen: Sequence[ScriptScenario], *, title: str = "", tool: str, total: int) -> str:
    """The `target` script (a key of `render.TARGETS`) accepting exactly the deals of the one
    scenario (or levelled class) in `chosen`, or of at least one of the scenarios; raises `NotExpressible` when a part
    cannot be said exactly."""
    if not chosen:
        raise ValueError("a script needs a scenario")
    write, _ = TARGETS[target]
    for s in chosen:
        for scenario in (s.scenario, *s.without):
            try:
                DECLARED[target].refuse(scenario)
            except UnhandledField as exc:
                raise NotExpressible(exc.what) from exc
    if len(chosen) == 1:
        condition = difference_condition(chosen[0].scenario, chosen[0].without)
    else:
        if any(s.without for s in chosen):
            raise ValueError("a union of classes is not a script this tool writes")
        condition = union_condition([s.scenario for s in chosen])
    return write(condition, script_header(title, chosen, target, tool, total))


def suffix(target: str) -> str:
    return TARGETS[target][1]
