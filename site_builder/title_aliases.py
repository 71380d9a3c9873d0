"""The other titles a `get` document is found by (SEMANTICS 6): the spellings MediaWiki
upper-cases into a served title (`splinter` for `Splinter`) and the titles of redirects to
it. Each is a file of its own under `api/get/title/`, holding the same document, so the
nginx drop-in, which cannot upper-case or follow a redirect, finds them as files; `serve`
normalises first and needs only the redirects.

A spelling never takes a served title's file, nor a path through one (the layout's rule):
the served titles come first and a spelling that would clash is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from bridgeshape_mirror.serving.title_lookup import case_spellings
from bridgeshape_mirror.store.model import SiteInfo

from . import layout


@dataclass(frozen=True)
class TitleTarget:
    """A served page's title file and what it holds."""

    title: str
    namespace: int
    document: bytes


def alias_files(
    served: dict[PurePosixPath, TitleTarget], site: SiteInfo, redirects: Iterable[tuple[str, int, PurePosixPath]] = ()
) -> dict[PurePosixPath, bytes]:
    """Files for the spellings of the served titles (path -> target), and for `redirects`
    ((redirect title, its namespace, the target's title file))."""
    taken: set[PurePosixPath] = set(served)
    folders: set[PurePosixPath] = {folder for path in served for folder in path.parents}
    files: dict[PurePosixPath, bytes] = {}

    def add(title: str, document: bytes) -> None:
        try:
            path = layout.get_by_title(title)
        except layout.UnmappableTitle:
            return
        if path in taken or path in folders or any(folder in taken for folder in path.parents):
            return
        taken.add(path)
        folders.update(path.parents)
        files[path] = document

    aliases = [(title, namespace, path) for title, namespace, path in redirects if path in served]
    for title, namespace, path in aliases:
        add(title, served[path].document)
    for target in served.values():
        for spelling in case_spellings(target.title, target.namespace, site):
            add(spelling, target.document)
    for title, namespace, path in aliases:
        for spelling in case_spellings(title, namespace, site):
            add(spelling, served[path].document)
    return files
