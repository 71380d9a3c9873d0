#!/usr/bin/env bash
# Creates .venv with the project (editable) and its test dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
