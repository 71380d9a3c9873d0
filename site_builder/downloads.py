"""The deals files a convention page offers for download: one line per format, here only.

Each entry is a label (translated by the templates) and the function of `layout` that
gives the file's path for a page id. A new format of the mirror (LIN, ...) is one more line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from dsl.language import N_

from . import layout

PAGE_DOWNLOADS: tuple[tuple[str, Callable[[int], PurePosixPath]], ...] = (
    (N_("PBN"), layout.deals_pbn),
    (N_("JSON"), layout.deals_json),
    (N_("LIN"), layout.deals_lin),
)


@dataclass(frozen=True)
class Download:
    label: str
    path: str


def page_downloads(page_id: int) -> tuple[Download, ...]:
    """The downloads of a page whose deals are published."""
    return tuple(Download(label, str(path(page_id))) for label, path in PAGE_DOWNLOADS)
