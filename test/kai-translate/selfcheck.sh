#!/usr/bin/env bash
# Runs KAI's own tests behind the translated cases (the Test functions of cmd/genoverlay's
# catalog and the resource-division suite) and lists the cases KAI itself fails, so that a
# failing translated case can be told apart from a case KAI does not pass either.
#
#   test/kai-translate/selfcheck.sh            (KAI_SRC, GO, KAI_TRANSLATE_WORK as translate.sh)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kai=$(cd "${KAI_SRC:-/work/shared/kai-scheduler}" && pwd)
if [[ -z "${GO:-}" ]]; then
  if command -v go >/dev/null 2>&1; then GO=go; else GO=/usr/local/go/bin/go; fi
fi
if [[ -n "${KAI_TRANSLATE_WORK:-}" ]]; then
  work=$KAI_TRANSLATE_WORK; mkdir -p "$work"
else
  work=$(mktemp -d -t kai-selfcheck.XXXXXX); trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
kai_go=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$kai/go.mod" | head -1)
printf 'go %s\n\nuse (\n\t%s\n\t%s\n)\n' "$kai_go" "$kai" "$here" >"$work/go.work"
(cd "$here" && GOWORK=off "$GO" run ./cmd/genoverlay -kai "$kai" -work "$work")
status=0
while read -r pkg; do
  regex=$(awk -v p="$pkg" '$1 == p {printf "%s%s", sep, $2; sep="|"}' "$work/kai-tests.txt")
  overlay=$work/overlay.json
  [[ "$pkg" == *resource_division ]] && overlay=$work/overlay-rd.json
  echo "== $pkg: $regex"
  if ! (cd "$kai" && GOWORK="$work/go.work" "$GO" test -count=1 -overlay "$overlay" -run "^($regex)\$" "$pkg" \
      >"$work/out.txt" 2>&1); then
    status=1
  fi
  grep -E "has failed|^--- FAIL|^(ok|FAIL)\s" "$work/out.txt" | sed -E 's/^\s+//' | sort -u || true
done < <(awk '{print $1}' "$work/kai-tests.txt" | awk '!seen[$0]++')
exit $status
