#!/usr/bin/env bash
# Every test: install dependencies if missing, check formatting, build and run all tests (unit,
# scenario, command line) in the dev preset, then build with AddressSanitizer +
# UndefinedBehaviorSanitizer and run the tests again.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
jobs="$(nproc)"

cmake --preset dev >/dev/null
cmake --build --preset dev --target format-check
cmake --build --preset dev -j "$jobs"
ctest --preset dev -j "$jobs"

cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --preset asan -j "$jobs"
