#!/bin/sh
# Checks `quotient simulate --html` in a real browser: writes the report for the
# borrow-and-reclaim example, opens it in headless Chromium, checks the rendered DOM has every
# section with its plots and every queue, that the page logged nothing to the console (Chromium
# logs a malformed SVG attribute as a console error), and saves a screenshot.
#
#   test/browser/check_report.sh QUOTIENT_BINARY OUTDIR [EXAMPLE_DIR]
#
# Leaves OUTDIR/report.html, OUTDIR/dom.html, OUTDIR/report.png and Chromium's logs. Fails when
# no Chromium is installed: scripts/setup.sh installs Debian's `chromium`, so a missing browser
# is a broken set-up, not a reason to pass.
# CHROMIUM=path overrides the browser.
set -eu

quotient=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
example=${3:-$(cd "$here/../.." && pwd)/examples/simulate-borrow-and-reclaim}

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
  for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then
      browser=$(command -v "$candidate")
      break
    fi
  done
fi
if [ -z "$browser" ]; then
  echo "check_report: FAIL: no chromium installed (scripts/setup.sh installs it)" >&2
  exit 1
fi

fail() {
  echo "check_report: FAIL: $*" >&2
  exit 1
}

case "$out" in
  "" | /) fail "OUTDIR must be a directory of its own: it is emptied first" ;;
esac
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Headless, as root in a container: no sandbox, no GPU, a throwaway profile.
run_browser() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --disable-extensions \
    --user-data-dir="$out/profile" --enable-logging=stderr --v=0 "$@"
}

# Lines of Chromium's log that are the page's console messages (and uncaught errors).
console_lines() {
  grep -E 'CONSOLE|Uncaught' "$1" || true
}

# 1. The check can see console errors: a canary page that logs one must be caught.
printf '%s\n' '<!DOCTYPE html><title>canary</title><p>canary</p>' \
  '<script>console.error("canary-console-error")</script>' >"$out/canary.html"
run_browser --dump-dom "file://$out/canary.html" >"$out/canary-dom.html" 2>"$out/canary.log" ||
  fail "chromium could not open a page (see $out/canary.log)"
console_lines "$out/canary.log" | grep -q canary-console-error ||
  fail "chromium's log does not show console errors; the console check would see nothing"

# 2. The report.
"$quotient" simulate --html "$out/report.html" "$example" >"$out/simulate.txt" ||
  fail "quotient simulate --html failed"
test -s "$out/report.html" || fail "no report written"
grep -q -E 'https?://|<script|<link' "$out/report.html" &&
  fail "the report fetches or runs something"

# 3. The rendered DOM: every section, its plots, every queue.
run_browser --dump-dom "file://$out/report.html" >"$out/dom.html" 2>"$out/dom.log" ||
  fail "chromium failed on the report (see $out/dom.log)"
test -s "$out/dom.html" || fail "chromium rendered nothing"
for id in summary allocation queues waits evictions pressure occupancy; do
  grep -q "<section id=\"$id\"" "$out/dom.html" || fail "no section $id in the rendered page"
done
# The plots of each section: the text from its opening tag to the next section's.
svgs_in() {
  awk -v id="$1" '
    index($0, "<section id=\"" id "\"") { on = 1 }
    on && index($0, "</section>") { print; exit }
    on { print }' "$out/dom.html" | grep -o '<svg class="[a-z ]*"' | wc -l
}
expect_svgs() {  # section, at least
  n=$(svgs_in "$1")
  [ "$n" -ge "$2" ] || fail "section $1 has $n plots, expected at least $2"
  echo "check_report: section $1: $n plots"
}
expect_svgs allocation 1
expect_svgs queues 2      # one small chart per queue
expect_svgs waits 1
expect_svgs evictions 2   # evictions, GPU-hours destroyed
expect_svgs pressure 3    # pending, fragmentation, fairness
expect_svgs occupancy 1
total=$(grep -o '<svg class="' "$out/dom.html" | wc -l)
[ "$total" -ge 10 ] || fail "$total plots in the page, expected at least 10"
for queue in team-a team-b; do
  grep -q "$queue" "$out/dom.html" || fail "queue $queue not in the rendered page"
done
grep -q '<h1>Simulation of ' "$out/dom.html" || fail "no title"
errors=$(console_lines "$out/dom.log")
[ -z "$errors" ] || fail "the page logged to the console: $errors"

# 4. A screenshot, and that it is an image of something.
run_browser --hide-scrollbars --window-size=1400,4000 --screenshot="$out/report.png" \
  "file://$out/report.html" >"$out/screenshot.txt" 2>"$out/screenshot.log" ||
  fail "chromium could not take the screenshot (see $out/screenshot.log)"
test -f "$out/report.png" || fail "no screenshot"
size=$(wc -c <"$out/report.png")
[ "$size" -gt 40000 ] || fail "the screenshot is $size bytes: a blank page?"
[ "$(head -c 4 "$out/report.png" | tail -c 3)" = "PNG" ] || fail "the screenshot is not a PNG"
errors=$(console_lines "$out/screenshot.log")
[ -z "$errors" ] || fail "the page logged to the console: $errors"

echo "check_report: OK: $total plots, screenshot $out/report.png ($size bytes)"
