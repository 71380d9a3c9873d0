"""Output formats of deals: one module per format, one entry in `FORMATS`.

Every format writes a document of scenarios through the `DealsWriter` protocol, in one of
two ways: outcomes that hold their deals (a page's, read back from the state file) by
`begin`, one `scenario` call per outcome, then `end`; or scenarios dealt as the document is
written (the `deals` command, `deals.formats.stream`) by one `streamed` call, which holds a
batch of each scenario whatever the count. A new format is a module here with a `Writer`
class, and its name below. Every writer takes the byte stream and the context `title` (the
page's), `tool` (name and version) and `seed` (the seed key of the deals) as keywords, and
uses what its format prints; any of them may be given as a function giving it (`said`),
called only by a format that prints it (the `deals` command's version: reading the package
metadata costs 20 ms). The deals are boards (`deals.boards.board`) whose numbers depend on every
scenario's deals.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, BinaryIO, Protocol

if TYPE_CHECKING:
    from ..outcome import ScenarioDeals
    from .stream import ScenarioStream

#: Format name -> its module in this package. The modules are imported when a writer is
#: opened, so the command line lists the names without importing numpy.
FORMATS: dict[str, str] = {"json": ".json", "pbn": ".pbn", "lin": ".lin"}


class DealsWriter(Protocol):
    def begin(self) -> None: ...

    def scenario(self, outcome: ScenarioDeals) -> None:
        """Scenario `outcome.index` with its deals."""

    def end(self) -> None: ...

    def streamed(self, streams: Sequence[ScenarioStream]) -> None:
        """The whole document of `streams` (`deals.formats.stream.open_streams`), each read
        as the document needs its deals."""


#: A writer's context value (title, tool, seed): the text, or a function that gives it.
Context = str | Callable[[], str]


def said(value: Context) -> str:
    """A context value's text (what a format that prints it calls)."""
    return value if isinstance(value, str) else value()


def open_writer(name: str, out: BinaryIO, **context: object) -> DealsWriter:
    """The writer of format `name` (a key of `FORMATS`) onto the byte stream `out`."""
    return importlib.import_module(FORMATS[name], __name__).Writer(out, **context)


def write_all(writer: DealsWriter, outcomes: Iterable[ScenarioDeals]) -> None:
    """A whole document of outcomes that hold their deals."""
    writer.begin()
    for outcome in outcomes:
        writer.scenario(outcome)
    writer.end()
