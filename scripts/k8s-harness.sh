#!/usr/bin/env bash
# Builds the test control plane (test/k8s-harness, Go) into build/k8s-harness and runs it with
# Quotient's CRDs; extra arguments go to the harness (e.g. --dir /tmp/harness). Prints
# "READY <admin kubeconfig> <port>" when the API server is up.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
(cd test/k8s-harness && go build -trimpath -o ../../build/k8s-harness .)
exec ./build/k8s-harness --crds deploy/crds "$@"
