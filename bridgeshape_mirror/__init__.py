"""bridgeshape-mirror: a static mirror of the BridgeShape API, with sample deals and a validation report.

This package holds the command-line front end only; the work is done by the `sync`, `dsl`,
`deals` and `site_builder` packages beside it.
"""

from importlib.metadata import version

#: Declared once, in pyproject.toml; read from the installed package's metadata.
__version__ = version("bridgeshape-mirror")
