"""The bounds of what the state file keeps, apart from the store: the CLI checks its options
against them before it loads SQLite (`config.upper_bound`)."""

#: The largest seed a build may take: it is a column of `build_deals`, and SQLite keeps
#: integers in 64 bits (signed); a larger one would fail the run when its deals are kept.
SEED_LIMIT = 2**63 - 1
