#!/usr/bin/env bash
# The dashboard at scale (docs/dashboard.md): the state of one cycle on a generated cluster
# (bench/dashboard_state_benchmark.cc: build and serve times), then the page rendering that state
# in headless Chromium: from navigation to the first drawing laid out, the first render (the
# page's script alone), a refresh with nothing changed and one where a tenth of the nodes changed
# (each timed in the page, layout included), the browser's whole run, and a screenshot.
#
#   ./scripts/bench-dashboard.sh [BUILD_DIR] [PRESET]     default build/release, large
#
# BUILD_DIR must be a configured build; its dashboard_state_benchmark target is built here.
# Output in BUILD_DIR/dashboard-bench: state.json, page.html (the dashboard with the state
# inline), dom.html, dashboard-<preset>.png.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
preset=${2:-large}
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
[[ -n "$chromium" ]] || { echo "no chromium (scripts/setup.sh installs it)" >&2; exit 1; }
cmake --build "$build" --target dashboard_state_benchmark >/dev/null
out=$build/dashboard-bench
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

"$build/bench/dashboard_state_benchmark" --preset "$preset" -o "$out/state.json"

# The page with the state inline (window.QUOTIENT_DASHBOARD_STATE: it renders that and polls
# nothing), and a script after it that times refreshes through the page's own entry point.
{
  printf 'window.QUOTIENT_DASHBOARD_STATE = '
  cat "$out/state.json"
  printf ';\n'
} >"$out/state.js"
cat >"$out/bench.js" <<'EOF'
(function () {
  // From navigation to the first drawing laid out: reading the state, the page's first render
  // and the layout of everything it wrote.
  void document.body.offsetHeight;
  const ready = performance.now();
  const state = window.QUOTIENT_DASHBOARD_STATE;
  const show = window.quotientDashboard.show;
  const timed = (doc) => {
    const t0 = performance.now();
    show(doc);
    void document.body.offsetHeight;  // style and layout now, inside the timing
    return performance.now() - t0;
  };
  const first = Number(document.getElementById("first-render-ms").textContent);
  const same = [];
  for (let i = 0; i < 5; i++) same.push(timed(JSON.parse(JSON.stringify(state))));
  const changed = [];
  for (let i = 0; i < 5; i++) {
    const doc = JSON.parse(JSON.stringify(state));
    doc.state.nodes.forEach((n, k) => {
      if (k % 10 === i && n.gpus.length) n.gpus[0] = n.gpus[0].holders ? {} :
        { holders: [{ pod: "bench/p" + k, queue: doc.state.queues[0].name, milli: 1000 }] };
    });
    changed.push(timed(doc));
  }
  const median = (v) => v.slice().sort((a, b) => a - b)[Math.floor(v.length / 2)].toFixed(1);
  const pre = document.createElement("pre");
  pre.id = "bench";
  pre.textContent = "nodes=" + state.state.nodes.length + " elements=" +
    document.getElementsByTagName("*").length + " load_to_laid_out_ms=" + ready.toFixed(0) +
    " first_render_ms=" + first +
    " refresh_same_ms=" + median(same) + " refresh_10pct_changed_ms=" + median(changed);
  document.body.append(pre);
})();
EOF
sed 's#</head>#<script src="state.js"></script>\n</head>#; s#</body>#<script src="bench.js"></script>\n</body>#' \
  src/service/dashboard.html >"$out/page.html"

browser() {
  timeout 300 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --disable-extensions --hide-scrollbars \
    --allow-file-access-from-files --user-data-dir="$out/profile" "$@"
}
start=$(date +%s%N)
browser --dump-dom "file://$out/page.html" >"$out/dom.html" 2>"$out/dom.log"
dump_ms=$(( ($(date +%s%N) - start) / 1000000 ))
start=$(date +%s%N)
browser --window-size=1600,1000 --screenshot="$out/dashboard-$preset.png" \
  "file://$out/page.html" >/dev/null 2>"$out/screenshot.log"
shot_ms=$(( ($(date +%s%N) - start) / 1000000 ))
figures=$(grep -o 'nodes=[^<]*' "$out/dom.html" || true)
[[ -n "$figures" ]] || { echo "the page did not report its timings (see $out/dom.log)" >&2; exit 1; }
echo "page ($(wc -c <"$out/state.json") bytes of state): $figures"
echo "chromium, start to DOM dump: ${dump_ms} ms; start to screenshot: ${shot_ms} ms"
echo "screenshot: $out/dashboard-$preset.png"
