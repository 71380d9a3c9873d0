"""The program's own version, read from the installed package's metadata so that
pyproject.toml is the one place it is written. The User-Agent the wiki sees and
`--version` both take it from here.

`VERSION` is read on first use (a module `__getattr__`): importing `importlib.metadata`
costs about 50 ms, most of a `validate` run's start-up, and only some commands need it."""

from __future__ import annotations

import functools


@functools.cache
def version() -> str:
    from importlib import metadata

    try:
        return metadata.version("bridgeshape-mirror")
    except metadata.PackageNotFoundError:  # a source tree run without installing it
        return "0+unknown"


def __getattr__(name: str) -> str:
    if name == "VERSION":
        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
