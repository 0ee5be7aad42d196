#!/usr/bin/env bash
# The main job: install dependencies if missing, build the release binary, and schedule the
# bundled example cluster. Extra arguments go to `quotient schedule` (e.g. -o json).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target quotient
./build/release/src/bin/quotient schedule "$@" examples/two-departments
