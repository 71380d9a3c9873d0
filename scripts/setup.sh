#!/usr/bin/env bash
# Creates .venv with the project (editable) and its test dependencies. Safe to run again:
# pip runs only when pyproject.toml changed since the last install (the install is editable,
# so code changes need none), which keeps scripts/run-sample.sh's start to a second.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
stamp=.venv/.bridgeshape-installed
wanted=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ] || ! .venv/bin/python -c 'import bridgeshape_mirror' 2>/dev/null; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
    echo "$wanted" > "$stamp"
fi
# Bytecode of the project's modules, as pip writes it for an installed copy: an editable
# install has none, and where PYTHONDONTWRITEBYTECODE is set (many container images) every
# run would compile every module again (0.05-0.15 s of each command's start). Only what is
# out of date is compiled: a fraction of a second when nothing changed.
.venv/bin/python -m compileall -q -j 0 bridgeshape_mirror dsl deals sync site_builder serving store >/dev/null
