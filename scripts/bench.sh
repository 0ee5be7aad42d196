#!/usr/bin/env bash
# Benchmarks: release build, then the allocate-cycle benchmarks on synthetic clusters of 100 and
# 1,000 nodes (8 GPUs each, 10 running pods and 2 pending pod groups per node, 100 queues).
# Extra arguments go to Google Benchmark (e.g. --benchmark_filter=Cycle).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target allocate_benchmark
./build/release/bench/allocate_benchmark "$@"
