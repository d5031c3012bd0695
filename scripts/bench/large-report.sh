#!/usr/bin/env bash
# The HTML report of 100,000 queries (2 runs, 20 documents a query, 5
# metrics): its size, and how long headless Chromium takes to open it and
# paint the first screen (scripts/test/browser/check.mjs prints both; run
# it on an idle machine for the figure in docs/report.md). The data is
# generated under target/browser-test/large/ (about 90 MB) and removed
# after, unless KEEP=1.
#
#   scripts/bench/large-report.sh [QUERIES]
set -euo pipefail
cd "$(dirname "$0")/../.."

queries=${1:-100000}
out=target/browser-test/large
mkdir -p "$out"
cargo build --quiet -p rankeval-cli --bin rankeval
rankeval=${RANKEVAL_BIN:-${CARGO_TARGET_DIR:-target}/debug/rankeval}

python3 - "$queries" "$out" <<'PY'
import random, sys
queries, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(7)  # seed 7: the same files every time
with open(f"{out}/qrels.txt", "w") as qrels, open(f"{out}/a.trec", "w") as a, \
        open(f"{out}/b.trec", "w") as b:
    for q in range(queries):
        for d in range(30):
            if rng.random() < 0.3:
                qrels.write(f"q{q} 0 d{d} {rng.choice([0, 1, 1, 2, 3])}\n")
        for run, docs in ((a, range(20)), (b, range(5, 25))):
            for rank, d in enumerate(docs):
                run.write(f"q{q} Q0 d{d} {rank + 1} {rng.randint(0, 5000) / 100} t\n")
PY

start=$(date +%s%N)
"$rankeval" eval --qrels "$out/qrels.txt" --run "$out/a.trec" --run "$out/b.trec" \
    -m ap -m rr -m p@10 -m recall@20 -m ndcg@10 --per-query \
    --format html -o "$out/report.html"
end=$(date +%s%N)
bytes=$(stat -c %s "$out/report.html")
echo "report of $queries queries: $bytes bytes ($(( bytes / 1024 )) KiB), written in $(( (end - start) / 1000000 )) ms"
node scripts/test/browser/check.mjs "$out/report.html" "$out/shots" \
    distribution=5 difference=5 at-k=3 precision-recall=1 explained=10
[ "${KEEP:-0}" = 1 ] || rm -f "$out/qrels.txt" "$out/a.trec" "$out/b.trec"
