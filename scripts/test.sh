#!/usr/bin/env bash
# Every test: install dependencies if missing, check formatting, build and run all tests (unit,
# scenario, command line, and the Kubernetes integration tests against the real API server of
# test/k8s-harness, built with Go on first use) in the dev preset; then the same under
# AddressSanitizer + UndefinedBehaviorSanitizer; then the Kubernetes client's unit tests (threads
# sharing caches, queues and clocks), the GPU interposer's ledger, the admission webhook's
# server (worker threads, certificate reloads) and the NVML deadline runner (abandoned workers)
# under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
jobs="$(nproc)"
export PATH="$PATH:/usr/local/go/bin"

cmake --preset dev >/dev/null
cmake --build --preset dev --target format-check
cmake --build --preset dev -j "$jobs"
ctest --preset dev -j "$jobs"

cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --preset asan -j "$jobs"

cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs" --target kubeclient_test telemetry_test \
  interposer_ledger_test webhook_test nvml_test
TSAN_OPTIONS=halt_on_error=1 ./build/tsan/src/kubeclient/kubeclient_test --gtest_brief=1
TSAN_OPTIONS=halt_on_error=1 ./build/tsan/src/telemetry/telemetry_test --gtest_brief=1
TSAN_OPTIONS=halt_on_error=1 ./build/tsan/src/interposer/interposer_ledger_test --gtest_brief=1
TSAN_OPTIONS=halt_on_error=1 ./build/tsan/src/webhook/webhook_test --gtest_brief=1
TSAN_OPTIONS=halt_on_error=1 ./build/tsan/src/nvml/nvml_test --gtest_brief=1
