#!/usr/bin/env bash
# The scheduler's benchmark suite (bench/scheduler_benchmark.cc) on generated clusters: release
# build, then one process per preset so each preset's peak memory is its own.
#
#   ./scripts/bench.sh                       small, large and reclaim-1000
#   ./scripts/bench.sh small large xlarge    the presets named
#   ./scripts/bench.sh large -- --benchmark_filter=cycle --reference
#                                            after `--`: scheduler_benchmark / Google Benchmark flags
#
# Each row is one measurement of one preset; `digest` labels identify decisions and reasons
# (cycle and cycle_reference must agree). Figures and the machine: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
presets=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  presets+=("$1")
  shift
done
[[ $# -gt 0 ]] && shift  # the --
if [[ ${#presets[@]} -eq 0 ]]; then presets=(small large reclaim-1000); fi
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target scheduler_benchmark
for preset in "${presets[@]}"; do
  ./build/release/bench/scheduler_benchmark --preset "$preset" --benchmark_min_time=0.5 \
    --benchmark_counters_tabular=true "$@"
done
