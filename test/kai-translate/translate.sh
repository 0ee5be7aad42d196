#!/usr/bin/env bash
# Regenerates test/kai-cases/ from KAI's own test cases (see README.md next to this script).
#
#   test/kai-translate/translate.sh
#
# Environment:
#   KAI_SRC             KAI v0.17.0 source tree (default: /work/shared/kai-scheduler)
#   GO                  go binary (default: go on PATH, else /usr/local/go/bin/go)
#   KAI_TRANSLATE_WORK  work folder for go.work, the overlay and staging (default: a fresh temp
#                       folder, removed at the end)
# KAI's tree is only read: the dump tests are added to its packages with `go test -overlay`.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
kai=${KAI_SRC:-/work/shared/kai-scheduler}
kai=$(cd "$kai" && pwd)
out=$repo/test/kai-cases
if [[ -z "${GO:-}" ]]; then
  if command -v go >/dev/null 2>&1; then GO=go; else GO=/usr/local/go/bin/go; fi
fi

if [[ -n "${KAI_TRANSLATE_WORK:-}" ]]; then
  work=$KAI_TRANSLATE_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d -t kai-translate.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
rm -rf "$work/overlay" "$work/staging"
mkdir -p "$work/staging"

kai_go=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$kai/go.mod" | head -1)
cat >"$work/go.work" <<EOF
go $kai_go

use (
	$kai
	$here
)
EOF

echo "kai-translate: generating the overlay" >&2
(cd "$here" && GOWORK=off "$GO" run ./cmd/genoverlay -kai "$kai" -work "$work")

echo "kai-translate: converting the action test cases" >&2
mapfile -t packages <"$work/packages.txt"
(cd "$kai" && GOWORK="$work/go.work" QUOTIENT_KAI_OUT="$work/staging" \
  "$GO" test -count=1 -overlay "$work/overlay.json" -run '^TestQuotientTranslate$' "${packages[@]}")

echo "kai-translate: converting the resource-division cases" >&2
(cd "$kai" && GOWORK="$work/go.work" QUOTIENT_KAI_OUT="$work/staging" \
  "$GO" test -count=1 -overlay "$work/overlay-rd.json" -run '^TestQuotientTranslateDivision$' \
  ./pkg/scheduler/plugins/proportion/resource_division)
(cd "$here" && GOWORK="$work/go.work" "$GO" run ./cmd/divisioncases -staging "$work/staging")

echo "kai-translate: writing $out" >&2
(cd "$here" && GOWORK=off "$GO" run ./cmd/assemble -staging "$work/staging" -work "$work" -out "$out")
