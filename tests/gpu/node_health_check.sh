#!/usr/bin/env bash
# Does the node health agent see this machine's GPUs as healthy? Runs the built quotient binary's
# `node-agent --dry-run --once` and `validate` against the machine's NVML (and `nvidia-smi -L` to
# compare), and prints one line per check, "PASS|FAIL|SKIP <check> <detail>", then a summary.
# Exits non-zero on any FAIL. Takes well under 3 minutes; builds nothing. README.md beside this
# file lists the checks.
#
#   tests/gpu/node_health_check.sh                on a healthy machine with an NVIDIA GPU
#   tests/gpu/node_health_check.sh --fake DIR     without a GPU, against the fake
#                                                 libnvidia-ml.so.1 in DIR (the ctest
#                                                 node_health_check_fake), with a fault injected
# Options (or environment):
#   --quotient PATH       (QUOTIENT)       the binary (default build/release/src/bin/quotient,
#                                          else build/dev/src/bin/quotient)
#   --expected-gpus N     (EXPECTED_GPUS)  GPUs the machine must have (default: not judged)
#   --dcgm MODE           (DCGM)           validate's --dcgm: auto (default), off, required
#   --kmsg PATH           (KMSG)           the kernel log the agent reads (default /dev/kmsg)
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fake_dir="${FAKE_NVML_DIR:-}"
quotient="${QUOTIENT:-}"
expected_gpus="${EXPECTED_GPUS:-}"
dcgm="${DCGM:-auto}"
kmsg="${KMSG:-/dev/kmsg}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fake) fake_dir="$2"; shift 2 ;;
    --quotient) quotient="$2"; shift 2 ;;
    --expected-gpus) expected_gpus="$2"; shift 2 ;;
    --dcgm) dcgm="$2"; shift 2 ;;
    --kmsg) kmsg="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (--help)" >&2; exit 2 ;;
  esac
done
if [[ -n "$expected_gpus" && ! "$expected_gpus" =~ ^[0-9]+$ ]]; then
  echo "--expected-gpus must be a number" >&2
  exit 2
fi

started=$SECONDS
passed=0 failed=0 skipped=0
work="$(mktemp -d "${TMPDIR:-/tmp}/quotient-node-health-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# One verdict line; the counters feed the summary.
verdict() {
  echo "$1 $2 ${*:3}"
  case "$1" in
    PASS) passed=$((passed + 1)) ;;
    FAIL) failed=$((failed + 1)) ;;
    *) skipped=$((skipped + 1)) ;;
  esac
}
summary() {
  echo "SUMMARY pass=$passed fail=$failed skip=$skipped ($((SECONDS - started)) s)"
  [[ $failed -eq 0 ]]
}

# --- the binary: given, or the release or dev build's.
if [[ -z "$quotient" ]]; then
  for candidate in "$root/build/release/src/bin/quotient" "$root/build/dev/src/bin/quotient"; do
    [[ -x "$candidate" ]] && { quotient="$candidate"; break; }
  done
fi
if [[ -z "$quotient" || ! -x "$quotient" ]]; then
  verdict FAIL quotient "no quotient binary${quotient:+ at $quotient}: cmake --preset release &&" \
    "cmake --build build/release --target quotient, or --quotient PATH"
  summary
  exit 1
fi

# --- NVML: the fake (with an empty sysfs and kernel log, so the machine's own do not count), or
# the machine's.
nvml_library=libnvidia-ml.so.1
sysfs=/sys
if [[ -n "$fake_dir" ]]; then
  nvml_library="$(cd "$fake_dir" && pwd)/libnvidia-ml.so.1"
  if [[ ! -f "$nvml_library" ]]; then
    verdict FAIL fake "no libnvidia-ml.so.1 in $fake_dir"
    summary
    exit 1
  fi
  sysfs="$work/sys"
  mkdir -p "$sysfs"
  kmsg="$work/kmsg"
  : >"$kmsg"
  dcgm=off  # a dcgmi on a CI machine must not decide the fake run
  # The fake's devices: two healthy GPUs unless the caller's environment says otherwise.
  export FAKE_NVML_UUIDS="${FAKE_NVML_UUIDS:-GPU-fake-0,GPU-fake-1}"
  unset FAKE_NVML_SCENARIO FAKE_NVML_INIT_ERROR
fi
echo "INFO quotient $quotient, NVML $nvml_library${fake_dir:+ (fake)}, sysfs $sysfs, kmsg $kmsg"

# agent RUN_NAME: one `node-agent --dry-run --once` with a state file of its own; sets agent_rc and
# agent_json (its one JSON line).
agent() {
  local out="$work/agent-$1.json" err="$work/agent-$1.log"
  agent_rc=0
  timeout 60 "$quotient" node-agent --dry-run --once --nvml-library "$nvml_library" \
    --sysfs-root "$sysfs" --kmsg "$kmsg" --state-file "$work/state-$1.json" \
    ${expected_gpus:+--expected-gpus "$expected_gpus"} >"$out" 2>"$err" || agent_rc=$?
  agent_json="$(grep -m1 '^{' "$out")"
  agent_log="$(tail -3 "$err" | tr '\n' ' ')"
}
# The conditions of agent_json as "Type=Status" words (nlohmann writes keys sorted, so each
# condition object ends with ..."status":"S","type":"T"}).
conditions() {
  grep -o '"status":"[A-Za-z]*","type":"[A-Za-z]*"' <<<"$agent_json" |
    sed -E 's/"status":"([A-Za-z]*)","type":"([A-Za-z]*)"/\2=\1/'
}

# --- the agent on this node: every condition False, exit 0.
agent healthy
echo "INFO node-agent exit $agent_rc: $agent_json"
if [[ -z "$agent_json" ]]; then
  verdict FAIL node-agent "no JSON line (exit $agent_rc): $agent_log"
else
  all="$(conditions | tr '\n' ' ')"
  not_false="$(conditions | grep -v '=False$' | tr '\n' ' ')"
  count="$(conditions | wc -l)"
  if [[ $agent_rc -eq 0 && $count -eq 8 && -z "$not_false" ]]; then
    verdict PASS node-agent "exit 0, all 8 conditions False"
  else
    verdict FAIL node-agent "exit $agent_rc, expected 0 with 8 conditions False; got ${all:-none}"
  fi
  gpus="$(grep -o '"gpus":[0-9]*' <<<"$agent_json" | head -1 | cut -d: -f2)"
  unsupported="$(grep -o '"notSupported":\[[^]]*\]' <<<"$agent_json" | sed -E 's/^"notSupported":\[//; s/\]$//; s/"//g; s/,/, /g')"
  echo "INFO NVML calls not supported here: ${unsupported:-none}"
fi

# --- validate: its check lines passed on; its exit code must agree with them.
validate_out="$work/validate.txt"
validate_rc=0
timeout 120 "$quotient" validate -o text --nvml-library "$nvml_library" --sysfs-root "$sysfs" \
  --dcgm "$dcgm" --dcgm-timeout 90s ${expected_gpus:+--expected-gpus "$expected_gpus"} \
  >"$validate_out" 2>&1 || validate_rc=$?
found=0 validate_failed=0
while read -r word check detail; do
  case "$word" in
    PASS|SKIP) verdict "$word" "validate/$check" "$detail"; found=$((found + 1)) ;;
    FAIL) verdict FAIL "validate/$check" "$detail"; found=$((found + 1))
          validate_failed=$((validate_failed + 1)) ;;
    SUMMARY) echo "INFO validate $check $detail" ;;
  esac
done <"$validate_out"
if [[ $found -eq 0 ]]; then
  verdict FAIL validate "no check lines (exit $validate_rc): $(tail -3 "$validate_out" | tr '\n' ' ')"
elif [[ $validate_rc -eq 0 && $validate_failed -eq 0 ]]; then
  verdict PASS validate "exit 0, $found checks, none failed"
elif [[ $validate_rc -ne 1 || $validate_failed -eq 0 ]]; then
  verdict FAIL validate "exit $validate_rc disagrees with $validate_failed failed checks"
fi  # (exit 1 with failed checks: those lines already FAILed)

# --- nvidia-smi -L: the same GPUs through the driver's own tool.
if [[ -n "$fake_dir" ]]; then
  verdict SKIP nvidia-smi "fake NVML"
elif ! command -v nvidia-smi >/dev/null; then
  verdict SKIP nvidia-smi "no nvidia-smi"
else
  smi="$(timeout 30 nvidia-smi -L 2>&1)"
  smi_gpus="$(grep -c '^GPU [0-9]' <<<"$smi")"
  echo "$smi" | sed 's/^/INFO nvidia-smi: /'
  if [[ -n "${gpus:-}" && "$smi_gpus" == "$gpus" ]]; then
    verdict PASS nvidia-smi "$smi_gpus GPUs listed, as the agent saw"
  else
    verdict FAIL nvidia-smi "$smi_gpus GPUs listed, the agent saw ${gpus:-none}"
  fi
fi

# --- the fake only: a fault injected must turn both around, or a PASS above proves nothing.
if [[ -n "$fake_dir" ]]; then
  cat >"$work/scenario.json" <<'EOF'
{"devices": [{"uuid": "GPU-fake-0"},
             {"uuid": "GPU-fake-1", "remapped_rows": {"unc": 1, "pending": true}}]}
EOF
  export FAKE_NVML_SCENARIO="$work/scenario.json"
  agent fault
  memory="$(conditions | grep '^GpuMemoryDegraded=' | head -1)"
  fault_rc=0
  fault_out="$(timeout 60 "$quotient" validate -o text --nvml-library "$nvml_library" \
    --sysfs-root "$sysfs" --dcgm off 2>&1)" || fault_rc=$?
  if [[ $agent_rc -eq 3 && "$memory" == "GpuMemoryDegraded=True" && $fault_rc -eq 1 ]] &&
      grep -q '^FAIL remap-pending \[gpu=GPU-fake-1 ' <<<"$fault_out"; then
    verdict PASS fault-injected "a pending remap: node-agent exit 3 ($memory), validate exit 1 (FAIL remap-pending on GPU-fake-1)"
  else
    verdict FAIL fault-injected "a pending remap: node-agent exit $agent_rc (${memory:-no GpuMemoryDegraded}), validate exit $fault_rc: $(grep '^FAIL' <<<"$fault_out" | head -2 | tr '\n' ' ')"
  fi
  unset FAKE_NVML_SCENARIO
else
  verdict SKIP fault-injected "a real GPU: no fault is injected"
fi

summary
