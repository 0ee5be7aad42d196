#!/usr/bin/env bash
# Does the GPU memory limit hold on this machine? Builds the interposer and a small CUDA
# driver-API program with g++ alone (no CUDA toolkit needed), runs the program under the
# interposer and prints one line per check, "PASS|FAIL|SKIP <check> <detail>", then a summary.
# Exits non-zero on any FAIL. README.md beside this file lists the checks.
#
#   tests/gpu/check.sh                     on a machine with an NVIDIA GPU and its driver
#   tests/gpu/check.sh --fake DIR          without a GPU, against the fake libcuda.so.1 and
#                                          libnvidia-ml.so.1 in DIR (the ctest gpu_check_fake)
# Options (or environment):
#   --interposer PATH  (INTERPOSER)  test this libquotient_gpu_interposer.so instead of building
#   --limit MIB        (LIMIT_MIB)   the limit, 512 or more (default 1024)
#   --cudart PATH      (CUDART)      the CUDA runtime to check (default: searched for)
#   CXX                              the compiler (default g++)
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fake_dir="${FAKE_DRIVER_DIR:-}"
interposer="${INTERPOSER:-}"
limit="${LIMIT_MIB:-1024}"
cudart="${CUDART:-}"
cxx="${CXX:-g++}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fake) fake_dir="$2"; shift 2 ;;
    --interposer) interposer="$2"; shift 2 ;;
    --limit) limit="$2"; shift 2 ;;
    --cudart) cudart="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (--help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$limit" =~ ^[0-9]+$ ]] || (( limit < 512 )); then
  echo "--limit must be a number of MiB, 512 or more" >&2
  exit 2
fi

started=$SECONDS
passed=0 failed=0 skipped=0
work="$(mktemp -d "${TMPDIR:-/tmp}/quotient-gpu-check.XXXXXX")"
ledger="/quotient-gpu-check-$$"
holder=""
cleanup() {
  if [[ -n "$holder" ]]; then kill -9 "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; fi
  rm -rf "$work"
  rm -f /dev/shm"$ledger"-* 2>/dev/null
}
trap cleanup EXIT

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

# --- the interposer: given, or built from src/interposer with g++ alone. (Not through CMake:
# configuring the project needs the scheduler's libraries, which a GPU test box may lack; the
# interposer needs only libc and libstdc++.)
if [[ -z "$interposer" ]]; then
  interposer="$work/libquotient_gpu_interposer.so"
  if ! "$cxx" -std=c++20 -O2 -fPIC -shared -fvisibility=hidden -fvisibility-inlines-hidden \
      -I"$root/src" "$root"/src/interposer/*.cc -o "$interposer" -Wl,--no-undefined \
      -Wl,--version-script="$root/src/interposer/exports.map" -ldl -pthread \
      >"$work/build-interposer.log" 2>&1; then
    verdict FAIL build-interposer "$(tail -5 "$work/build-interposer.log" | tr '\n' ' ')"
    summary
    exit 1
  fi
fi
if [[ ! -f "$interposer" ]]; then
  verdict FAIL build-interposer "no interposer at $interposer"
  summary
  exit 1
fi
interposer="$(cd "$(dirname "$interposer")" && pwd)/$(basename "$interposer")"

# --- the driver the program links against: the fake, or the machine's libcuda.so.1.
find_driver_dir() {
  local dir
  local IFS=:
  for dir in ${LD_LIBRARY_PATH:-} /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu \
      /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib/wsl/lib; do
    if [[ -n "$dir" && -e "$dir/libcuda.so.1" ]]; then echo "$dir"; return; fi
  done
  ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{sub(/\/libcuda\.so\.1$/, "", $NF); print $NF; exit}'
}
if [[ -n "$fake_dir" ]]; then
  driver_dir="$(cd "$fake_dir" && pwd)"
  export LD_LIBRARY_PATH="$driver_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  driver_dir="$(find_driver_dir)"
  if [[ -z "$driver_dir" ]]; then
    verdict FAIL driver "no libcuda.so.1 on this machine (without a GPU: --fake DIR)"
    summary
    exit 1
  fi
fi

program="$work/gpu_check"
if ! "$cxx" -std=c++20 -O1 -Wall -Wextra -Werror -o "$program" "$here/gpu_check.cc" \
    "$here/gpu_check_libraries.cc" "$here/gpu_check_memory_kinds.cc" "$here/check_support.cc" \
    -L"$driver_dir" -l:libcuda.so.1 \
    -Wl,-rpath-link,"$driver_dir" -ldl -pthread >"$work/build-program.log" 2>&1; then
  verdict FAIL build-program "$(tail -5 "$work/build-program.log" | tr '\n' ' ')"
  summary
  exit 1
fi
echo "INFO driver $driver_dir${fake_dir:+ (fake)}, interposer $interposer, limit $limit MiB"

# The environment of a run: limits or preloads inherited from the caller are dropped.
clean_env=(env -u LD_PRELOAD -u QUOTIENT_GPU_MEMORY_LIMIT -u CUDA_DEVICE_MEMORY_LIMIT
           -u QUOTIENT_GPU_CONTEXT_RESERVE -u QUOTIENT_GPU_LEDGER CUDA_DEVICE_ORDER=PCI_BUS_ID)
runs=0
# limited LEDGER_SUFFIX COMMAND...: COMMAND under the interposer with the limit and a ledger.
limited() {
  local suffix="$1"
  shift
  "${clean_env[@]}" LD_PRELOAD="$interposer" QUOTIENT_GPU_MEMORY_LIMIT="${limit}m" \
    QUOTIENT_GPU_LEDGER="$ledger-$suffix" "$@"
}
# run_check NAME PRELOAD(yes|no) ARGS...: one run of the program; its verdict lines are passed on.
# A run that prints no verdict (crash, hang) is a FAIL of NAME.
run_check() {
  local name="$1" preload="$2"
  shift 2
  runs=$((runs + 1))
  local out="$work/run-$runs.log" status=0
  if [[ "$preload" == yes ]]; then
    limited "$runs" timeout 60 "$program" "$@" >"$out" 2>&1 || status=$?
  else
    "${clean_env[@]}" timeout 60 "$program" "$@" >"$out" 2>&1 || status=$?
  fi
  local found=0 word check detail
  while read -r word check detail; do
    case "$word" in PASS|FAIL|SKIP) verdict "$word" "$check" "$detail"; found=1 ;; esac
  done <"$out"
  if [[ $found -eq 0 ]]; then
    verdict FAIL "$name" "no verdict (exit $status): $(tail -3 "$out" | tr '\n' ' ')"
  fi
}

run_check control no control "$limit"
run_check direct-calls yes direct "$limit"
run_check queries yes queries "$limit"
run_check proc-address yes proc-address "$limit" "$(basename "$interposer")"
run_check graph-memory yes graph "$limit"
run_check pool-retention yes pool "$limit"

# --- the CUDA runtime: the library given, else one from a CUDA toolkit or a pip wheel.
find_cudart() {
  local candidate
  for candidate in /usr/local/cuda/lib64/libcudart.so* /usr/local/cuda/targets/*/lib/libcudart.so*; do
    [[ -e "$candidate" ]] && { echo "$candidate"; return; }
  done
  local site
  for site in $(python3 -c 'import site, sys; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null); do
    for candidate in "$site"/nvidia/cuda_runtime/lib/libcudart.so* "$site"/nvidia/cu*/lib/libcudart.so*; do
      [[ -e "$candidate" ]] && { echo "$candidate"; return; }
    done
  done
  ldconfig -p 2>/dev/null | awk '/libcudart\.so/{print $NF; exit}'
}
if [[ -n "$fake_dir" ]]; then
  verdict SKIP runtime-api "the fake driver cannot serve the CUDA runtime"
else
  [[ -z "$cudart" ]] && cudart="$(find_cudart)"
  if [[ -z "$cudart" ]]; then
    verdict SKIP runtime-api "no libcudart.so found (--cudart PATH)"
  else
    run_check runtime-api yes runtime "$limit" "$cudart"
  fi
fi

# --- two processes on one ledger: a holder keeps 3/8 of the limit until its stdin closes. It
# is exec'd (subshell, then env) without `timeout`, so that $! is the program itself, the process
# killed below; it also ends by itself when this script ends and its stdin closes.
held=$((limit / 8 * 3))
mkfifo "$work/holder.in"
(exec "${clean_env[@]}" LD_PRELOAD="$interposer" QUOTIENT_GPU_MEMORY_LIMIT="${limit}m" \
  QUOTIENT_GPU_LEDGER="$ledger-shared" "$program" hold "$limit" "$held" \
  <"$work/holder.in" >"$work/holder.log" 2>&1) &
holder=$!
exec 3>"$work/holder.in"  # keeps the holder's stdin open
for _ in $(seq 1 300); do
  grep -q '^holding' "$work/holder.log" 2>/dev/null && break
  kill -0 "$holder" 2>/dev/null || break
  sleep 0.1
done
if ! grep -q '^holding' "$work/holder.log"; then
  verdict FAIL two-processes "the holder did not start: $(tail -3 "$work/holder.log" | tr '\n' ' ')"
else
  run_shared() {  # a check on the holder's ledger
    local name="$1"
    shift
    runs=$((runs + 1))
    local out="$work/run-$runs.log" found=0 word check detail
    limited shared timeout 60 "$program" "$@" >"$out" 2>&1
    while read -r word check detail; do
      case "$word" in PASS|FAIL|SKIP) verdict "$word" "$check" "$detail"; found=1 ;; esac
    done <"$out"
    [[ $found -eq 1 ]] || verdict FAIL "$name" "no verdict: $(tail -3 "$out" | tr '\n' ' ')"
  }
  run_shared two-processes share "$limit" "$held"
  run_shared nvml nvml "$limit" "$held"
  if [[ -n "$fake_dir" ]]; then
    verdict SKIP nvidia-smi "fake driver"
  elif ! command -v nvidia-smi >/dev/null; then
    verdict SKIP nvidia-smi "no nvidia-smi"
  else
    smi="$(limited shared timeout 30 nvidia-smi -i 0 --format=csv,noheader,nounits \
      --query-gpu=memory.total,memory.used 2>&1 | head -1)"
    total="${smi%%,*}"
    used="${smi##*, }"
    if [[ "$total" == "$limit" && "$used" =~ ^[0-9]+$ ]] && (( used >= held - 1 && used <= held + 1 )); then
      verdict PASS nvidia-smi "memory.total $total MiB, memory.used $used MiB with $held MiB held"
    else
      verdict FAIL nvidia-smi "expected total $limit MiB and used $held MiB, got: $smi"
    fi
  fi
  kill -9 "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
  holder=""
  run_shared killed-process-reclaimed reclaim "$limit"
fi
exec 3>&-

summary
