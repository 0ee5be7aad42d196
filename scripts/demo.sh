#!/usr/bin/env bash
# The main job: install dependencies if missing, build the release binary, and simulate the
# bundled demo: a day of mixed work on 32 nodes of 8 GPUs (two departments, five projects),
# with GPU bin-packing (the default) against spreading, side by side in one HTML report.
# Extra arguments go to `quotient simulate` (e.g. --checkpoint 0.5).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target quotient
quotient=./build/release/src/bin/quotient
out=build/demo
mkdir -p "$out"
"$quotient" generate demo -o "$out/day.yaml"
echo "== examples/simulate-demo: a day on 256 GPUs, bin-pack against spread"
"$quotient" simulate --label binpack --compare-config examples/simulate-demo/spread.yaml \
  --csv "$out/csv" --html "$out/report.html" "$@" "$out/day.yaml"
echo
echo "Open $out/report.html in a browser: allocation, queues against fair share, waits,"
echo "evictions, fragmentation and every node's GPUs, for both runs."
