"""A page's own files that need no rendering again: they are what they were.

Rendering every convention page (with its hand diagrams), deals document and PBN file is
most of a build's fixed cost, paid again by every cron run although most pages did not
change. Each of these files is made from its page alone: the page (id, title, revision,
status), the revision served and its raw DSL, the page's deals, its wiki link, the site's language, and the code
and templates (catalogues included) that render them. A digest of all that is the file's *key*. The build
remembers, per file, the key and the digest of the bytes it published (in the state file,
beside the deals); the next build that computes the same key for a file, while the
published mirror still holds those bytes, passes `Reused(digest)` to `publish`, which
hard-links the file, instead of rendering it.

The code's part of the key is a digest of the source files of `site_builder`, `dsl` and
`deals` (templates included), of the program's version (which the PBN's `[Generator]` and
the scripts' headers name) and of the jinja2 and markupsafe versions, so any change there
renders everything once, and nothing has to remember to bump a version.
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import metadata, resources
from pathlib import PurePosixPath
from typing import Any

from bridgeshape_mirror.deals.outcome import ScenarioDeals

from .analysis import PageAnalysis

_SOURCES = ("bridgeshape_mirror.site_builder", "bridgeshape_mirror.dsl", "bridgeshape_mirror.deals")
_SUFFIXES = (".py", ".j2", ".css", ".js", ".json", ".lark", ".po")


@functools.cache
def code_digest() -> str:
    """A digest of every source file the per-page files are rendered by, and of the versions
    of the program and of the libraries that render them."""
    from bridgeshape_mirror.store.version import VERSION

    digest = hashlib.sha256()
    # The program's version is in files a page renders ([Generator], the scripts' headers)
    # though no source below need change with it.
    digest.update(f"bridgeshape-mirror={VERSION}\0".encode())
    for library in ("jinja2", "markupsafe"):
        digest.update(f"{library}={metadata.version(library)}\0".encode())
    for package in _SOURCES:
        for entry in sorted(_walk(resources.files(package)), key=lambda e: e[0]):
            name, data = entry
            digest.update(f"{package}/{name}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def _walk(folder, prefix: str = ""):
    for entry in folder.iterdir():
        if entry.is_dir():
            if entry.name != "__pycache__":
                yield from _walk(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(_SUFFIXES):
            yield f"{prefix}{entry.name}", entry.read_bytes()


def page_key(
    a: PageAnalysis, outcomes: list[ScenarioDeals] | None, wiki_url: str | None, lang: str = "", extra: Any = None
) -> str:
    """The key of every file made from this page alone (see the module docstring); `extra`:
    anything else the files show (the deals' double-dummy tables)."""
    inputs = [
        code_digest(),
        a.page.page_id,
        a.page.title,
        a.page.revid,
        a.status.value,
        a.served_revid,
        a.served_timestamp,
        a.served_raw,
        wiki_url,
        None if outcomes is None else [outcome.to_json() for outcome in outcomes],
    ]
    if lang:  # the site's language (kept out of the list when unset, so old keys stay)
        inputs.append(lang)
    if extra is not None:
        inputs.append(extra)
    return hashlib.sha256(json.dumps(inputs, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


class RenderCache:
    """What the last build published per file (key, digest), checked against the mirror."""

    def __init__(self, remembered: dict[str, tuple[str, str]], published: dict[str, str]):
        #: path -> (key, digest) as the last build saved them
        self._remembered = remembered
        #: path -> digest of the published mirror (its manifest)
        self._published = published
        #: path -> (key, digest) of this build, to remember for the next
        self.now: dict[str, tuple[str, str]] = {}
        #: Files reused from the mirror before the build (`next_pass` counts none twice).
        self.reused = 0
        self._rendered: set[str] = set()

    def next_pass(self, published: dict[str, str]) -> RenderCache:
        """The cache of the build's next render, once this one's files are published as
        `published`: a file rendered by either render counts as rendered."""
        after = RenderCache(self.now, published)
        after._rendered = set(self._rendered)
        return after

    def reusable(self, path: PurePosixPath, key: str) -> str | None:
        """The published digest of `path` when its bytes are what `key` renders, else None."""
        remembered = self._remembered.get(str(path))
        if remembered is None or remembered[0] != key or self._published.get(str(path)) != remembered[1]:
            return None
        self.now[str(path)] = remembered
        if str(path) not in self._rendered:
            self.reused += 1
        return remembered[1]

    def rendered(self, path: PurePosixPath, key: str, data: bytes) -> bytes:
        self._rendered.add(str(path))
        self.now[str(path)] = (key, hashlib.sha256(data).hexdigest())
        return data
