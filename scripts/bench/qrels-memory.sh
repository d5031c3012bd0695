#!/usr/bin/env bash
# Peak memory of `rankeval eval` with qrels of many small queries, against
# the size of the qrels file: the issue's case is 1M queries with one
# judgement each, to stay within 4x the file size.
#
#   scripts/bench/qrels-memory.sh            # 1M queries, release build
#   scripts/bench/qrels-memory.sh 200000     # another number of queries
#
# The qrels (`q<i> 0 d<i mod 1000> 1`) are generated under
# target/qrels-memory/ with a run of two queries, so that what is measured
# is reading and holding the qrels; the same command with qrels of one line
# gives the process's own footprint (binary, threads), reported apart.
# Needs GNU time (/usr/bin/time) for the peak resident set size.
set -euo pipefail

queries=${1:-1000000}
root=$(cd "$(dirname "$0")/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
dir=$target/qrels-memory
mkdir -p "$dir"
qrels=$dir/qrels-$queries.txt
if [[ ! -s $qrels ]]; then
    awk -v n="$queries" 'BEGIN { for (i = 0; i < n; i++) printf "q%d 0 d%d 1\n", i, i % 1000 }' >"$qrels"
fi
printf 'q5 Q0 d5 1 2.0 r\nq7 Q0 d1 1 1.0 r\n' >"$dir/run.txt"
printf 'q5 0 d5 1\n' >"$dir/tiny.txt"

cargo build --release --quiet -p rankeval-cli --bin rankeval
bin=$target/release/rankeval

# Peak RSS in KB and wall time in seconds of one run of rankeval on the
# given qrels.
peak() {
    /usr/bin/time -f "%M %e" -o "$dir/time.out" \
        "$bin" eval --qrels "$1" --run "$dir/run.txt" -m ap -m ndcg@10 >/dev/null 2>&1
    tail -n 1 "$dir/time.out"
}

bytes=$(stat -c %s "$qrels")
read -r base _ < <(peak "$dir/tiny.txt")
best=
fastest=
for _ in 1 2 3; do
    read -r kb seconds < <(peak "$qrels")
    if [[ -z $best || $kb -lt $best ]]; then best=$kb; fi
    if [[ -z $fastest ]] || awk -v a="$seconds" -v b="$fastest" 'BEGIN { exit !(a < b) }'; then
        fastest=$seconds
    fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v q="$queries" -v b="$bytes" -v kb="$best" -v base="$base" -v s="$fastest" 'BEGIN {
    mb = b / 1e6; rss = kb * 1024 / 1e6; own = base * 1024 / 1e6
    printf "qrels: %d queries, one judgement each, %.1f MB\n", q, mb
    printf "peak RSS (least of 3): %.1f MB = %.2f x the file; wall time (least of 3): %.2f s\n", rss, rss / mb, s
    printf "process alone (one-line qrels): %.1f MB; above it: %.1f MB = %.2f x the file\n",
        own, rss - own, (rss - own) / mb
}'
