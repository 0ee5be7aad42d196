#!/usr/bin/env bash
# The FGD paper's placement experiment (docs/placement.md): replays the five openb pod lists on
# the 1,213 GPU nodes with bin-pack, spread and the fragmentation strategy, seeds 42 to 51, and
# prints our medians beside the paper's published ones, then where the unallocated GPUs are.
# Curves go to build/fgd/curves.csv, plots to build/fgd/*.svg.
# TRACES names the folder holding alibaba-gpu-v2023-openb/ and fgd-atc23-expected-results/
# (default: the shared reference folder beside the checkout). Extra arguments go to
# `quotient bench fgd` (e.g. --seeds 42-45).
set -euo pipefail
cd "$(dirname "$0")/.."
traces=${TRACES:-../shared/traces}
openb=$traces/alibaba-gpu-v2023-openb
published=$traces/fgd-atc23-expected-results/summary_unallocated_gpu_by_policy.csv
for f in "$openb/openb_node_list_gpu_node.csv" "$published"; do
  if [[ ! -f $f ]]; then
    echo "fgd.sh: $f not found; set TRACES to the folder holding the openb traces" >&2
    exit 1
  fi
done
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target quotient
out=build/fgd
mkdir -p "$out"
pods=()
for list in default cpu100 gpushare60 gpuspec20 multigpu30; do
  pods+=(--pods "$openb/openb_pod_list_$list.csv")
done
./build/release/src/bin/quotient bench fgd --nodes "$openb/openb_node_list_gpu_node.csv" \
  "${pods[@]}" --policies binpack,spread,fragmentation --published "$published" --breakdown \
  --plot "$out" -o "$out/curves.csv" "$@"
