"""A request path mapped onto a file of the mirror: percent-decoded UTF-8, `index.html` for
a folder, and no way out of the mirror (a `..` segment is refused and symlinks are followed
only when they stay inside).

The output folder is usually a symlink that the build flips atomically: it is resolved on
every request, never cached.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote

from .file_types import media_type

def content_type(path: Path) -> str:
    return media_type(path.name)


class StaticResult:
    """What a static path maps to: a file, a redirect to the folder's slash form, or nothing."""

    def __init__(self, file: Path | None = None, redirect: str | None = None, status: int = 200):
        self.file = file
        self.redirect = redirect
        self.status = status


def resolve_static(root_dir: str | os.PathLike[str], raw_path: str) -> StaticResult:
    """Map a request path (still percent-encoded) onto a file of the mirror."""
    try:
        path = unquote(raw_path, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        return StaticResult(status=404)
    segments = path.split("/")
    if any(s in ("..", ".") for s in segments) or "\x00" in path or "\\" in path:
        return StaticResult(status=400)
    try:
        root = Path(root_dir).resolve(strict=True)  # per request: the build flips a symlink
    except OSError:
        return StaticResult(status=404)
    relative = [s for s in segments if s]
    candidate = root.joinpath(*relative) if relative else root
    try:
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return StaticResult(status=404)
    if real != root and not real.is_relative_to(root):
        return StaticResult(status=404)
    if real.is_dir():
        if not path.endswith("/"):
            return StaticResult(redirect=raw_path + "/", status=301)
        index = real / "index.html"
        if index.is_file():
            return StaticResult(file=index)
        return StaticResult(status=404)
    if real.is_file():
        return StaticResult(file=real)
    return StaticResult(status=404)
