#!/usr/bin/env bash
# Sets up everything the tests need on a fresh Debian machine (root), then runs every test,
# the slow real-server ones included. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# A real MediaWiki (Debian's package on PHP's built-in server) for the integration tests;
# the tests start and stop their own servers on 127.0.0.1.
bash scripts/mediawiki/install-deps.sh
bash scripts/install-test-packages.sh
exec .venv/bin/python -m pytest "$@"
