#!/usr/bin/env bash
# Installs the Debian packages Quotient builds and tests with. Idempotent: when every package is
# already present it does nothing (no apt-get update, no network), so the README commands can call
# it on every run.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  clang-format
  libcurl4-openssl-dev libssl-dev
  libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev
  libspdlog-dev libfmt-dev libcli11-dev
  prometheus-cpp-dev libcivetweb-dev libcpp-httplib-dev
  libjemalloc-dev libfccp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
