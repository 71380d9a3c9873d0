"""Faults of this program in one scenario's or one page's work: caught where that work runs
(in a worker process or here), handed back as data, and logged and counted by the build, so
that one scenario or one page never costs the others their update.

A fault is never kept: the scenario's deals, or the page's files, are made again by the next
run. Each distinct traceback is logged once per run (a bug that breaks 50 scenarios the same
way is one trace), and every fault is counted in the build's summary line.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

log = logging.getLogger(__name__)


class Step(Enum):
    DEALING = "counting and dealing"
    DOUBLE_DUMMY = "double dummy"
    RENDERING = "rendering"


@dataclass(frozen=True)
class Fault:
    """An unexpected exception in `step` of page `page_id` (scenario `scenario`; None: the
    page as a whole): its class's name and its traceback."""

    page_id: int
    scenario: int | None
    step: Step
    error: str
    trace: str

    @property
    def where(self) -> str:
        scenario = "" if self.scenario is None else f", scenario {self.scenario}"
        return f"page {self.page_id}{scenario}"


def caught(exc: BaseException, page_id: int, scenario: int | None, step: Step) -> Fault:
    """The fault `exc` (being handled) is, with its traceback as text (it crosses processes)."""
    return Fault(page_id, scenario, step, type(exc).__name__, "".join(traceback.format_exception(exc)))


def log_faults(faults: Iterable[Fault]) -> None:
    """Each fault as a warning line; each distinct traceback once, as an error."""
    traced: set[str] = set()
    for fault in faults:
        log.warning("%s: %s failed (%s); published without it, tried again next run", fault.where, fault.step.value, fault.error)
        if fault.trace not in traced:
            traced.add(fault.trace)
            log.error("internal error in %s of %s; please report it:\n%s", fault.step.value, fault.where, fault.trace.rstrip())
