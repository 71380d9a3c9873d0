"""Which constraint fields (`dsl.model.written_fields`) each consumer of a scenario handles.

Every consumer (the rules, the predicate, each exact counter and draw, each script export)
declares its fields here, once, by a `Handles`. A scenario that sets a field its consumer
does not declare is never silently read as if the field were not there: the rules and the
predicate refuse it (`UnhandledField`), a script export refuses it (`NotExpressible`), and a
counter or an exact draw declines it (`takes` is False), so another method, or the estimate,
takes over. A new DSL key is then a field of `Position`; each consumer that learns it adds it
to its declaration (`tests/test_deals_handled.py` checks that none takes it before).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import DealsError

if TYPE_CHECKING:
    from bridgeshape_mirror.dsl.model import Role, Scenario

    from .compiled import CompiledScenario

#: The constraint fields of the DSL when this table was made; every consumer handles them. A
#: field added to the model is added to each consumer that learns it
#: (`Handles("...", EVERY_FIELD | {"aces"})`), never here.
EVERY_FIELD = frozenset({"suits", "hcp", "suit_hcp", "x", "x_hcp", "shape", "fits"})


class UnhandledField(DealsError):
    """A scenario sets a constraint that a consumer does not handle (a DSL key added to the
    model and not yet to the deals)."""

    def __init__(self, consumer: str, names: frozenset[str], role: Role | None = None):
        self.consumer, self.names, self.role = consumer, names, role
        self.what = f"the {', '.join(sorted(names))} constraint" + (f" of {role.value}" if role is not None else "")
        super().__init__(f"{self.what} is not handled by {consumer}")


@dataclass(frozen=True)
class Handles:
    consumer: str
    fields: frozenset[str] = EVERY_FIELD

    def __post_init__(self) -> None:
        CONSUMERS.append(self)

    def unhandled(self, written: frozenset[str]) -> frozenset[str]:
        return written - self.fields

    def refuse(self, scenario: Scenario) -> None:
        """Raise `UnhandledField` if `scenario` sets a field this consumer does not handle."""
        from bridgeshape_mirror.dsl.model import set_fields

        for holder in (scenario, *scenario.positions):
            names = self.unhandled(set_fields(holder))
            if names:
                raise UnhandledField(self.consumer, names, getattr(holder, "role", None))

    def takes(self, compiled: CompiledScenario) -> bool:
        """Does this counter or draw handle every field the compiled scenario's source set?"""
        return not self.unhandled(compiled.written)


#: Every declaration made, in import order (the test reads it).
CONSUMERS: list[Handles] = []
