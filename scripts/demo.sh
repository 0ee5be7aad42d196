#!/usr/bin/env bash
# The main job: install dependencies if missing, build the release binary, and schedule the
# bundled example clusters. Extra arguments go to `quotient schedule` (e.g. -o json).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target quotient
echo "== examples/two-departments: fair share, allocation, pending reasons"
./build/release/src/bin/quotient schedule "$@" examples/two-departments
echo
echo "== examples/reclaim: a team takes its quota back (three cycles)"
./build/release/src/bin/quotient schedule --cycles 3 "$@" examples/reclaim
