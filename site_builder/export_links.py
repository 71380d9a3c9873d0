"""What a convention page links to for each scenario, beyond its diagrams: each board in
BBO's hand viewer, the page's LIN file, and the scenario's scripts (the template
`exports.html.j2` shows them)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from bridgeshape_mirror.deals.formats.lin import handviewer_url
from bridgeshape_mirror.deals.outcome import ScenarioDeals, outcome_boards

from . import layout


@dataclass(frozen=True)
class BoardLink:
    number: int
    url: str


@dataclass(frozen=True)
class ScenarioLinks:
    """Scenario `index`'s boards in BBO's hand viewer and the page's LIN file (paths from the
    mirror's root)."""

    index: int
    boards: tuple[BoardLink, ...]
    lin_url: str
    #: The scenario's exact scripts, when published.
    dealer_url: str | None = None
    deal_url: str | None = None
    bridgechamp_url: str | None = None


def scenario_links(page_id: int, outcomes: Sequence[ScenarioDeals], published: Collection[PurePosixPath] = ()) -> dict[int, ScenarioLinks]:
    """The links of each scenario of a page, by scenario index; `published`: the page's
    script files."""
    boards: dict[int, list[BoardLink]] = {o.index: [] for o in outcomes}
    for b in outcome_boards(outcomes):
        boards[b.scenario].append(BoardLink(b.board.number, handviewer_url(b)))
    lin = str(layout.deals_lin(page_id))

    def url(index: int, suffix: str) -> str | None:
        path = layout.script(page_id, index, suffix)
        return str(path) if path in published else None

    return {
        index: ScenarioLinks(index, tuple(links), lin, url(index, ".dlr"), url(index, ".tcl"), url(index, ".bridgechamp.txt"))
        for index, links in boards.items()
    }
