#!/usr/bin/env bash
# Long differential runs of Quotient against KAI v0.17.0's own code (test/kai-diff/README.md):
# builds quotient, kai_diff and the kai-oracle (Go) in build/kai-diff (a Release build of its own,
# without the Kubernetes integration tests), runs N generated cases of seed S through both, and
# prints the agreement table. With --repro-dir, the first divergence of each class is shrunk into
# a scenario folder there. Other arguments go to `kai_diff corpus` (e.g. --runs 3,
# --divergences FILE, --shrink-per-class 3, --threshold 90).
#   scripts/kai-diff.sh --count 20000 --seed 7 --repro-dir build/kai-diff/repros
set -euo pipefail
cd "$(dirname "$0")/.."
count=2000
seed=20260301
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --count) count="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --repro-dir) mkdir -p "$2"; args+=(--repro-dir "$(cd "$2" && pwd)"); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
export PATH="$PATH:/usr/local/go/bin"
build=build/kai-diff
jobs="$(nproc)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQUOTIENT_K8S_INTEGRATION=OFF \
  -DQUOTIENT_BUILD_BENCHMARKS=OFF >/dev/null
oracle=$(sed -n 's/^QUOTIENT_KAI_ORACLE_BINARY:[A-Z]*=//p' "$build/CMakeCache.txt")
if [[ -z "$oracle" ]]; then
  echo "kai-diff.sh: this build has no kai-oracle (test/kai-oracle, needs Go)" >&2
  exit 1
fi
# The oracle is a Go build (KAI's dependencies from the module proxy on a fresh machine).
cmake --build "$build" -j "$jobs" --target quotient kai_diff kai_oracle
"$build/test/kai-diff/kai_diff" corpus --oracle "$oracle" --count "$count" --seed "$seed" \
  "${args[@]}"
