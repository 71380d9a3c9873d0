"""The lark parser kept on disk between runs, and the project's cache folder.

Building the LALR tables from `grammar.lark` takes about 60 ms, most of a `validate` run;
loading them back takes about 5 ms. The file is keyed by a SHA-256 of the grammar *as
generated* (its key terminals come from `keys.KEYS`, so a new key gives a new file), of
lark's version and of the parser's options. It is written atomically (temporary file, then
rename), so concurrent builds never read half a file; any failure to read or write it (a
read-only home, a damaged file) means building the parser as before, never another parser.

The cache folder is `$XDG_CACHE_HOME/bridgeshape-mirror/` (default `~/.cache/...`); the
deals cache (`deals.cache`) lives beside this one. `BSM_PARSER_CACHE=0` turns this one off.
The file is a pickle, as lark's own `cache=` option writes: it is read only from the user's
own cache folder.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lark import Lark


def cache_root() -> Path:
    """The project's cache folder (it may not exist yet)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bridgeshape-mirror"


def parser_path(grammar: str, options: str) -> Path | None:
    """Where the parser of `grammar` built with `options` is kept, or None when turned off."""
    if os.environ.get("BSM_PARSER_CACHE", "1") == "0":
        return None
    import lark

    digest = hashlib.sha256(f"{lark.__version__}|{options}|{grammar}".encode()).hexdigest()
    return cache_root() / "dsl" / f"parser-{digest[:32]}.lark"


def cached_parser(grammar: str, options: str, build: Callable[[], Lark]) -> Lark:
    """The parser `build()` makes, loaded from its file when a run already saved it."""
    from lark import Lark

    path = parser_path(grammar, options)
    if path is None:
        return build()
    try:
        with path.open("rb") as file:
            return Lark.load(file)
    except Exception:  # noqa: BLE001 - missing or damaged: build it, as without a cache
        pass
    parser = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as out:
                parser.save(out)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:  # noqa: BLE001 - an unwritable cache costs time, not correctness
        pass
    return parser
