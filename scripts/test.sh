#!/usr/bin/env bash
# Sets up everything the tests need on a fresh Debian machine (root), then runs every test,
# the slow real-server ones included. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
