"""bridgeshape-mirror: a static mirror of the BridgeShape API, with sample deals and a validation report.

This package holds the command-line front end only; the work is done by the `sync`, `store`,
`dsl`, `deals` and `site_builder` packages beside it.
"""

from store.version import VERSION

__version__ = VERSION
