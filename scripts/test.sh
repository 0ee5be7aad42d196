#!/usr/bin/env bash
# Every test (this is what .ci/run runs), in stages, with a table of each stage's wall time at
# the end (printed also when a stage fails, which stops the run):
#   1. set-up: the Debian packages, when missing;
#   2. asan (Debug, AddressSanitizer + UndefinedBehaviorSanitizer): formatting check, build, then
#      every test: unit, scenario and command-line tests, the Kubernetes integration tests against
#      the real API server of test/k8s-harness, the KAI oracle's tests and the differential
#      corpus against KAI's own code (the Go tools are built on first use). One build, not a plain
#      one and a sanitized one: on 2 cores a second build of the tree costs more than all the
#      tests, and every test then runs under the sanitizers;
#   3. tsan (ThreadSanitizer): the libraries whose state threads share — the Kubernetes client
#      (caches, queues, clocks), telemetry, the GPU interposer's ledger, the admission webhook's
#      server (worker threads, certificate reloads), the NVML deadline runner.
# For everyday work the dev preset (plain Debug) builds faster: `cmake --preset dev`,
# `cmake --build --preset dev`, `ctest --preset dev`.
# Budgets (2 cores, cold): docs/benchmarks.md, "CI time".
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
export PATH="$PATH:/usr/local/go/bin"

stage_names=()
stage_seconds=()
current=""
current_started=0
run_started=$SECONDS

print_stages() {
  local status=$?
  if [[ -n "$current" ]]; then
    stage_names+=("$current (FAILED)")
    stage_seconds+=($((SECONDS - current_started)))
  fi
  echo
  echo "STAGE TIMES"
  local i
  for i in "${!stage_names[@]}"; do
    printf '  %-58s %4dm%02ds\n' "${stage_names[$i]}" $((stage_seconds[i] / 60)) \
      $((stage_seconds[i] % 60))
  done
  local total=$((SECONDS - run_started))
  printf '  %-58s %4dm%02ds\n' "total" $((total / 60)) $((total % 60))
  exit "$status"
}
trap print_stages EXIT

# stage NAME COMMAND...: runs the command as one named stage.
stage() {
  current="$1"
  shift
  current_started=$SECONDS
  echo "=== $current"
  "$@"
  stage_names+=("$current")
  stage_seconds+=($((SECONDS - current_started)))
  current=""
}

stage "set-up" ./scripts/setup.sh

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1
stage "asan: configure, format check" \
  sh -c 'cmake --preset asan -DQUOTIENT_K8S_INTEGRATION=ON -DQUOTIENT_KAI_ORACLE=ON >/dev/null &&
         cmake --build --preset asan --target format-check'
stage "asan: build" cmake --build --preset asan -j "$jobs"
stage "asan: unit, scenario, command-line tests" \
  ctest --preset asan -j "$jobs" -LE 'integration|kai-oracle|kai-diff'
stage "asan: Kubernetes integration tests (API server)" \
  ctest --preset asan -j "$jobs" -L integration
stage "asan: KAI oracle and differential corpus" \
  ctest --preset asan -j "$jobs" -L 'kai-oracle|kai-diff'

tsan_tests=(kubeclient/kubeclient_test telemetry/telemetry_test interposer/interposer_ledger_test
  webhook/webhook_test nvml/nvml_test)
stage "tsan: configure, build" \
  sh -c 'cmake --preset tsan -DQUOTIENT_K8S_INTEGRATION=OFF -DQUOTIENT_KAI_ORACLE=OFF >/dev/null &&
         cmake --build --preset tsan -j '"$jobs"' --target kubeclient_test telemetry_test \
           interposer_ledger_test webhook_test nvml_test'
run_tsan() {
  local t
  for t in "${tsan_tests[@]}"; do
    TSAN_OPTIONS=halt_on_error=1 "./build/tsan/src/$t" --gtest_brief=1
  done
}
stage "tsan: threaded libraries' tests" run_tsan
