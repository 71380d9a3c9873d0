"""Scenarios as scripts for Debian's `dealer` and for Deal 3.1 (SEMANTICS 5): the condition
(`condition.py`) accepts exactly the deals SEMANTICS 3 defines, so a script's acceptance
rate over random deals is the scenario's exact probability; `dealer.py` and `tcl.py` write
it in each language, with a header comment (`header.py`). Nothing is approximated: a part
of a scenario a language cannot say is `NotExpressible`, and no script is written."""
