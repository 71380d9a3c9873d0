"""The program's own version, read from the installed package's metadata so that
pyproject.toml is the one place it is written. The User-Agent the wiki sees and
`--version` both take it from here."""

from __future__ import annotations

from importlib import metadata

try:
    VERSION = metadata.version("bridgeshape-mirror")
except metadata.PackageNotFoundError:  # a source tree run without installing it
    VERSION = "0+unknown"
