"""Where each public file of the mirror lives (SEMANTICS 4). These paths are promises to
other programs: never change one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath

from bridgeshape_mirror.serving.nginx import MAIN_SNIPPET, POST_SCRIPT, POST_SNIPPET
from bridgeshape_mirror.serving.nginx_errors import ERRORS_DIR
from bridgeshape_mirror.serving.siteinfo import SITEINFO_FILE

LIST = PurePosixPath("api/list.json")
LISTALL = PurePosixPath("api/listall.json")
REPORT_JSON = PurePosixPath("report/report.json")
REPORT_HTML = PurePosixPath("report/index.html")
#: The report's feed (Atom 1.0): the pages that broke or were fixed, newest first.
REPORT_FEED = PurePosixPath("report/feed.atom")
INDEX_HTML = PurePosixPath("index.html")
SCHEMA_DIR = PurePosixPath("api/schema")
#: Freshness: version, source, last sync and build, page counts, the last refusal.
STATUS = PurePosixPath("api/status.json")
#: Every page's files with their SHA-256, scenarios and status, in one request.
MANIFEST = PurePosixPath("api/manifest.json")
#: The nginx snippet that answers api.php URLs from this mirror (include it in a server {}).
NGINX_SNIPPET = PurePosixPath("nginx") / MAIN_SNIPPET
#: Its POST half (needs njs) and the njs script that one imports.
NGINX_POST_SNIPPET = PurePosixPath("nginx") / POST_SNIPPET
NGINX_POST_SCRIPT = PurePosixPath("nginx") / POST_SCRIPT
#: The answer to `action=query&meta=siteinfo` (serving.siteinfo).
SITEINFO = PurePosixPath(SITEINFO_FILE)
#: The snippet's error answers, one file each (serving.nginx_errors names them).
NGINX_ERRORS = PurePosixPath(ERRORS_DIR)

#: The longest file name most file systems take, in bytes.
NAME_MAX = 255
#: Folders a title's file may sit under, and bytes of its path under `TITLE_DIR`: far past
#: any real title (MediaWiki's are at most 255 bytes), far below PATH_MAX (4,096) and the
#: time it takes to make 2,100 nested folders.
MAX_DEPTH = 32
MAX_TITLE_PATH = 1024
TITLE_DIR = PurePosixPath("api/get/title")


class TitleProblem(StrEnum):
    """Why a title has no file of its own (its page is then served by page id only)."""

    #: An empty segment ("A//B", "A/"), or "." / "..".
    UNMAPPABLE = "unmappable"
    #: A segment longer than NAME_MAX bytes, deeper than MAX_DEPTH, or longer than MAX_TITLE_PATH.
    TOO_LONG = "too-long"
    #: Its path would pass through another title's file ("Stayman.json/x" beside "Stayman").
    CLASH = "clash"


class UnmappableTitle(ValueError):
    """A title that has no file path in the layout; `problem` says why."""

    def __init__(self, title: str, problem: TitleProblem):
        super().__init__(title)
        self.problem = problem


def get_by_pageid(page_id: int) -> PurePosixPath:
    return PurePosixPath(f"api/get/pageid/{page_id}.json")


def get_by_title(title: str) -> PurePosixPath:
    """`api/get/title/<Title>.json`: the title in URL form (spaces as `_`), `/` as folders."""
    # Measured before splitting: a hostile title of 100,000 slashes costs one len().
    if len(title.encode("utf-8")) > MAX_TITLE_PATH or title.count("/") > MAX_DEPTH:
        raise UnmappableTitle(title, TitleProblem.TOO_LONG)
    segments = title.replace(" ", "_").split("/")
    segments[-1] += ".json"
    for segment in segments:
        # MediaWiki forbids "." and ".." segments; an empty one ("A//B", "A/") has no folder.
        if segment in ("", ".json", ".", ".."):
            raise UnmappableTitle(title, TitleProblem.UNMAPPABLE)
        if len(segment.encode("utf-8")) > NAME_MAX:
            raise UnmappableTitle(title, TitleProblem.TOO_LONG)
    return TITLE_DIR.joinpath(*segments)


@dataclass(frozen=True)
class TitleFiles:
    """Each served page's title file, and why the others have none."""

    paths: dict[int, PurePosixPath]
    #: Page id -> (the problem, the title it clashes with or None).
    refused: dict[int, tuple[TitleProblem, str | None]]


def title_files(titles: Mapping[int, str]) -> TitleFiles:
    """The title files of pages `titles` (page id -> title), so that none is another's
    folder: a title whose path passes through another's file is refused, whatever the order
    (the deeper one loses: "Stayman" keeps its file). Linear: at most MAX_DEPTH folders each."""
    paths: dict[int, PurePosixPath] = {}
    refused: dict[int, tuple[TitleProblem, str | None]] = {}
    for page_id, title in titles.items():
        try:
            paths[page_id] = get_by_title(title)
        except UnmappableTitle as exc:
            refused[page_id] = (exc.problem, None)
    owner = {path: page_id for page_id, path in paths.items()}
    for page_id, path in list(paths.items()):
        for folder in path.parents:
            if folder == TITLE_DIR:
                break
            other = owner.get(folder)
            if other is not None:
                refused[page_id] = (TitleProblem.CLASH, titles[other])
                del paths[page_id]
                break
    return TitleFiles(paths, refused)


def deals_json(page_id: int) -> PurePosixPath:
    return PurePosixPath(f"api/deals/{page_id}.json")


def deals_pbn(page_id: int) -> PurePosixPath:
    return PurePosixPath(f"deals/{page_id}.pbn")


def deals_lin(page_id: int) -> PurePosixPath:
    """The same boards as the PBN file, in BBO's LIN format."""
    return PurePosixPath(f"deals/{page_id}.lin")


def script(page_id: int, index: int, suffix: str) -> PurePosixPath:
    """Scenario `index` (from 1) of a page as an exact script: `.dlr` for dealer, `.tcl` for Deal 3.1."""
    return PurePosixPath(f"scripts/{page_id}/{index}{suffix}")


def convention_html(page_id: int) -> PurePosixPath:
    """The human page of one convention (our own path, not an API URL)."""
    return PurePosixPath(f"conventions/{page_id}.html")
