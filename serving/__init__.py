"""Serving the mirror: the extension's `api.php` answered from the mirror's files.

Two servers answer alike because they read the same rules (`api_rules`): the preview server
(`http_server`, what `bridgeshape-mirror serve` runs; `api_answers` and `static_files` are
its halves) and the nginx drop-in (`nginx`, a configuration rendered from
`templates/nginx.conf.j2` that the build writes beside the mirror's files).
"""

import os

#: Where `bridgeshape-mirror serve` listens unless told otherwise (the port also gives way
#: to $PORT); here, not in `http_server`, so the CLI can name them without importing it.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080


def no_mirror_reason(root: str) -> str | None:
    """Why `root` holds no mirror to serve (None: it holds one). A mirror always has
    `api/list.json` (SEMANTICS 4); without it every api.php answer would be a 404, which a
    preview must not pass off as a working server."""
    if not os.path.isdir(root):
        return f"{root} does not exist or is not a folder"
    if not os.path.isfile(os.path.join(root, "api", "list.json")):
        return f"{root} holds no mirror (no api/list.json): run `bridgeshape-mirror build` (or `update`) first"
    return None
