#!/usr/bin/env bash
# The Kubernetes client benchmark: builds the release preset and the Go test harness, then lists
# and caches pods from a real API server (default 100,000 pods; e.g. --pods 20000 for a quick
# run). Prints wall time, client and API-server CPU time and client memory growth.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target k8s_harness k8s_list_benchmark
./build/release/bench/k8s_list_benchmark "$@"
