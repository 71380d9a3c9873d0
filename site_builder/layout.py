"""Where each public file of the mirror lives (SEMANTICS 4). These paths are promises to
other programs: never change one."""

from __future__ import annotations

from pathlib import PurePosixPath

LIST = PurePosixPath("api/list.json")
LISTALL = PurePosixPath("api/listall.json")
REPORT_JSON = PurePosixPath("report/report.json")
REPORT_HTML = PurePosixPath("report/index.html")
INDEX_HTML = PurePosixPath("index.html")
SCHEMA_DIR = PurePosixPath("api/schema")
#: Freshness: version, source, last sync and build, page counts, the last refusal.
STATUS = PurePosixPath("api/status.json")
#: The nginx snippet that answers api.php URLs from this mirror (include it in a server {}).
NGINX_SNIPPET = PurePosixPath("nginx/bridgeshape-api.conf")

#: The longest file name most file systems take, in bytes.
NAME_MAX = 255


class UnmappableTitle(ValueError):
    """A title that has no file path in the layout (an empty `/` segment, or too long)."""


def get_by_pageid(page_id: int) -> PurePosixPath:
    return PurePosixPath(f"api/get/pageid/{page_id}.json")


def get_by_title(title: str) -> PurePosixPath:
    """`api/get/title/<Title>.json`: the title in URL form (spaces as `_`), `/` as folders."""
    segments = title.replace(" ", "_").split("/")
    segments[-1] += ".json"
    for segment in segments:
        # MediaWiki forbids "." and ".." segments; an empty one ("A//B", "A/") has no folder.
        if segment in ("", ".json", ".", "..") or len(segment.encode("utf-8")) > NAME_MAX:
            raise UnmappableTitle(title)
    return PurePosixPath("api/get/title", *segments)


def deals_json(page_id: int) -> PurePosixPath:
    return PurePosixPath(f"api/deals/{page_id}.json")


def deals_pbn(page_id: int) -> PurePosixPath:
    return PurePosixPath(f"deals/{page_id}.pbn")


def convention_html(page_id: int) -> PurePosixPath:
    """The human page of one convention (our own path, not an API URL)."""
    return PurePosixPath(f"conventions/{page_id}.html")
