#!/usr/bin/env bash
# Builds the test control plane (test/k8s-harness, Go) into build/k8s-harness and runs it with
# Quotient's CRDs; extra arguments go to the harness (e.g. --dir /tmp/harness,
# --apiserver-arg=--watch-cache=false). Prints
#   READY <admin kubeconfig> <apiserver port> <control port>
# once the API server, the controllers and the fake kubelet are up.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
# The version stamp that Kubernetes' own build sets: without it /version reports
# gitVersion "v0.0.0-master+$Format:%H$".
version=v1.36.3
ldflags="-X k8s.io/component-base/version.gitVersion=$version"
ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36"
(cd test/k8s-harness && go build -trimpath -ldflags "$ldflags" -o ../../build/k8s-harness .)
exec ./build/k8s-harness --crds deploy/helm/quotient/crds "$@"
