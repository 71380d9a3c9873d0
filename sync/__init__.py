"""Sync: convention pages from a wiki (Action API, via mwclient) or an XML export into the
state store (`store`). `run_sync` is the one entry point; the pieces are `client.py` (API
client and retry policy), `syncer.py` (full and incremental runs), `dump.py` (XML export),
`reading.py` (what a source hands to the store, and the one writer), `extract.py` (the
template parameter), `titles.py` (title normalisation) and `report.py` (what a run did)."""
