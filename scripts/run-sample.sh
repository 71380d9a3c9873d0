#!/usr/bin/env bash
# The main job on the bundled sample wiki (an XML export, so no wiki is needed): sync the
# convention pages into state/sample.sqlite, then build and publish the mirror in output/.
# Against a live wiki the same command takes --api https://wiki.example.org/w/api.php.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/bridgeshape-mirror update --dump examples/sample-wiki.xml --state state/sample.sqlite --out output "$@"
echo "Mirror published in output/ (open output/index.html; the report is output/report/index.html)."
