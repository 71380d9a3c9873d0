"""The media type of each kind of file the mirror holds, by its suffix: the one table that
`serve`, the upload to object storage and the nginx snippet (a `types {}` for the mirror's
suffixes) type the files from, so that a file is the same type wherever it is read. A new
kind of file is one row here.
"""

from __future__ import annotations

import mimetypes
from pathlib import PurePath

#: Text is UTF-8 everywhere in the mirror (PBN and the scripts are ASCII, a subset).
CHARSET = "; charset=utf-8"

#: suffix -> (media type, is text). The deals files and scripts are plain text: a browser
#: shows them, and the convention page's links download them.
FILE_TYPES: dict[str, tuple[str, bool]] = {
    ".html": ("text/html", True),
    ".json": ("application/json", True),
    ".css": ("text/css", True),
    ".js": ("text/javascript", True),
    # the drop-in's error templates (`nginx/errors/`): JSON once nginx fills them in
    ".ssi": ("application/json", True),
    ".pbn": ("text/plain", True),
    ".lin": ("text/plain", True),
    ".dlr": ("text/plain", True),
    ".tcl": ("text/plain", True),
    ".conf": ("text/plain", True),
    ".txt": ("text/plain", True),
    ".xml": ("application/xml", True),
    ".atom": ("application/atom+xml", True),
    ".svg": ("image/svg+xml", False),
    ".png": ("image/png", False),
    ".ico": ("image/x-icon", False),
}


def media_type(path: str | PurePath) -> str:
    """The `Content-Type` of a mirror file at `path` (a suffix not in the table: the
    platform's guess, else `application/octet-stream`)."""
    name = str(path)
    found = FILE_TYPES.get(PurePath(name).suffix.lower())
    if found is not None:
        kind, text = found
        return kind + CHARSET if text else kind
    return mimetypes.guess_type(name)[0] or "application/octet-stream"
