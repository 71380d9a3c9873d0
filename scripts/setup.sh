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
