#!/usr/bin/env bash
# The results history's cost against the evaluation itself: a history of
# RECORDS records of QUERIES queries each (default 10,000 of 10,000, one
# metric: about 0.8 GB), built by `rankeval eval --record` with BATCH runs
# per call (copies of one run; 20 by default), then read back. Prints the
# time of one plain evaluation, the time recording adds per record, and
# the times of `history` (the list and trends), `history diff`, `history
# export --format parquet` and `eval --baseline db:DB` against `eval
# --baseline FILE.json`, each also as a ratio of the plain evaluation, and
# each one's peak memory (the exports stream: it stays flat as the history
# grows; `history --format html` too). Not
# a timed test: run it by hand on an idle machine (release build). The
# data is generated under target/bench-history/ and removed after, unless
# KEEP=1.
#
#   scripts/bench/history.sh [RECORDS] [QUERIES] [BATCH]
# (RANKEVAL_BIN=path uses that binary instead of building one.)
set -euo pipefail
cd "$(dirname "$0")/../.."

records=${1:-10000}
queries=${2:-10000}
batch=${3:-20}
out=target/bench-history
rm -rf "$out"
mkdir -p "$out"
if [ -z "${RANKEVAL_BIN:-}" ]; then cargo build --quiet --release -p rankeval-cli --bin rankeval; fi
rankeval=${RANKEVAL_BIN:-${CARGO_TARGET_DIR:-target}/release/rankeval}

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
        for run in (a, b):
            for rank, d in enumerate(rng.sample(range(40), 20)):
                run.write(f"q{q} Q0 d{d} {rank + 1} {rng.randint(0, 5000) / 100} t\n")
PY

# Milliseconds `$@` takes (its output discarded).
ms() {
    local start end
    start=$(date +%s%N)
    "$@" > /dev/null 2>&1 || true
    end=$(date +%s%N)
    echo $(( (end - start) / 1000000 ))
}
ratio() { python3 -c "print(f'{$1 / max($2, 1):.2f}')"; }
# Milliseconds and peak resident memory in MB of one run of `$@` (GNU
# time's elapsed time and maximum RSS), as `MS MB`.
timed() {
    /usr/bin/time -f "%e %M" -o "$out/rss" "$@" > /dev/null 2>&1 || true
    python3 -c "e, m = open('$out/rss').read().split()[-2:]; print(round(float(e) * 1000), round(int(m) / 1024))"
}

eval_args=(eval --qrels "$out/qrels.txt" -m ndcg@10)
plain=$(ms "$rankeval" "${eval_args[@]}" --run "$out/a.trec")
echo "one evaluation of $queries queries: $plain ms"

# One file per run of a call (a file given twice is refused).
runs=()
for i in $(seq 1 "$batch"); do
    cp "$out/a.trec" "$out/r$i.trec"
    runs+=(--run "$out/r$i.trec")
done
batch_plain=$(ms "$rankeval" "${eval_args[@]}" "${runs[@]}")
recording=0
for _ in $(seq 1 $(( records / batch ))); do
    t=$(ms "$rankeval" "${eval_args[@]}" "${runs[@]}" --record "$out/h.sqlite")
    recording=$(( recording + t - batch_plain ))
done
per_record=$(python3 -c "print(f'{$recording / $records:.2f}')")
echo "recording adds $per_record ms a record ($(ratio "$per_record" "$plain") x one evaluation); database: $(du -h "$out/h.sqlite" | cut -f1)"

"$rankeval" history "$out/h.sqlite" --accept 1 > /dev/null 2>&1
"$rankeval" "${eval_args[@]}" --run "$out/r1.trec" --format json --per-query -o "$out/accepted.json"
for what in "history:history $out/h.sqlite --format json" \
            "diff:history diff $out/h.sqlite 1 $records" \
            "export parquet:history export $out/h.sqlite --format parquet -o /dev/null" \
            "export csv:history export $out/h.sqlite --format csv -o /dev/null" \
            "export jsonl:history export $out/h.sqlite --format jsonl -o /dev/null" \
            "html:history $out/h.sqlite --format html -o $out/h.html" \
            "baseline db:eval --qrels $out/qrels.txt -m ndcg@10 --run $out/b.trec --baseline db:$out/h.sqlite" \
            "baseline file:eval --qrels $out/qrels.txt -m ndcg@10 --run $out/b.trec --baseline $out/accepted.json"; do
    name=${what%%:*}
    # shellcheck disable=SC2086
    read -r t mb < <(timed "$rankeval" ${what#*:})
    echo "$name: $t ms ($(ratio "$t" "$plain") x one evaluation), peak memory $mb MB"
done
read -r t mb < <(timed "$rankeval" "${eval_args[@]}" --run "$out/a.trec")
echo "one evaluation again: $t ms, peak memory $mb MB"
# (The exports go to /dev/null: 10,000 x 10,000 rows of CSV are ~10 GB.)

if [ "${KEEP:-0}" != 1 ]; then rm -rf "$out"; fi
