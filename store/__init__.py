"""The state file every command shares: `state.py` (the SQLite store of convention pages, the
wiki's site information and the sync cursor), `model.py` (the typed values it holds),
`history.py` (what the build remembers, in its own tables of the same file), `lock.py` (one
run at a time), `refusal.py` (the last change a run refused, beside the file) and `errors.py`
(their failures); and `version.py`, the program's version,
which the CLI and the API client's User-Agent share."""
