"""bridgeshape-mirror: a static mirror of the BridgeShape API, with sample deals and a validation report.

The one installed package. It holds the command-line front end; the work is done by its
sub-packages `dsl`, `deals`, `store`, `sync`, `serving` and `site_builder`, which the
repository keeps as top-level folders beside this one (pyproject's `package-dir` maps them).
"""

import os as _os

# Run from a source tree (a checkout on PYTHONPATH, as the benchmarks run the code of another
# checkout; no install), the sub-packages are found beside this folder, as `package-dir`
# places them in an install. An installed copy holds them inside it and never takes this.
_beside = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if not _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "dsl")) and _os.path.isfile(
    _os.path.join(_beside, "dsl", "__init__.py")
):
    __path__.append(_beside)  # noqa: F821 - a package's own __path__


def __getattr__(name: str) -> str:
    # `__version__` on first use: reading the package metadata is slow (see store.version)
    if name == "__version__":
        from bridgeshape_mirror.store.version import version

        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
