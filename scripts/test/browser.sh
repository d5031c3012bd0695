#!/usr/bin/env bash
# Renders the quickstart example's HTML report in headless Chromium and
# checks it (scripts/test/browser/check.mjs): no console or page error, no
# request beyond the file, every chart present and drawn, JavaScript off.
# Screenshots go to target/browser-test/ (look at them).
#
#   scripts/install-prerequisites.sh browser   # once: Debian's chromium, playwright-core
#   scripts/test/browser.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

out=target/browser-test
mkdir -p "$out"
cargo build --quiet -p rankeval-cli --bin rankeval
rankeval="${CARGO_TARGET_DIR:-target}/debug/rankeval"

# The quickstart: 2 runs, 6 metrics.
"$rankeval" run examples/quickstart/experiment.toml --format html --per-query \
    -o "$out/quickstart.html"
node scripts/test/browser/check.mjs "$out/quickstart.html" "$out/quickstart" \
    distribution=6 difference=6 at-k=3 precision-recall=1 explained=6

# One run (no comparison), from flags.
"$rankeval" eval --qrels examples/quickstart/qrels.txt \
    --run examples/quickstart/runs/baseline.trec -m ndcg@5 -m ap \
    --format html -o "$out/one-run.html"
node scripts/test/browser/check.mjs "$out/one-run.html" "$out/one-run" \
    distribution=2 difference=0 at-k=3 precision-recall=1 explained=0

# A comparison with gates (examples/compare: its baseline is a results
# file, so no explain tables; one gate fails, exit code 1 by design).
status=0
"$rankeval" run examples/compare/experiment.toml --format html \
    -o "$out/compare.html" 2>/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "browser test: examples/compare exited $status, not 1" >&2; exit 1; }
node scripts/test/browser/check.mjs "$out/compare.html" "$out/compare" \
    distribution=4 difference=4 at-k=3 precision-recall=1 explained=6

# The check itself must fail on a page that fetches something, and on one
# that lacks a chart.
sed 's#</main>#<img src="https://example.invalid/x.png"></main>#' \
    "$out/quickstart.html" > "$out/broken.html"
if node scripts/test/browser/check.mjs "$out/broken.html" "$out/broken" >/dev/null 2>&1; then
    echo "browser test: the check passed a page that fetches an image" >&2
    exit 1
fi
if node scripts/test/browser/check.mjs "$out/quickstart.html" "$out/broken" \
    distribution=7 >/dev/null 2>&1; then
    echo "browser test: the check passed a page with a chart missing" >&2
    exit 1
fi
echo "browser test: all pages ok; screenshots in $out/"
