"""bridgeshape-mirror: a static mirror of the BridgeShape API, with sample deals and a validation report.

This package holds the command-line front end only; the work is done by the `sync`, `store`,
`dsl`, `deals` and `site_builder` packages beside it.
"""


def __getattr__(name: str) -> str:
    # `__version__` on first use: reading the package metadata is slow (see store.version)
    if name == "__version__":
        from bridgeshape_mirror.store.version import version

        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
