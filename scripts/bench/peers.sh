#!/usr/bin/env bash
# Times rankeval next to the tools users compare it with, on the same
# generated files and the same metrics (MAP, MRR, P@10, recall@10, nDCG@10):
# whole process, median of several runs, with ratios against rankeval and
# against `wc -l` on the same file, measured in the same run.
#
#   scripts/bench/peers.sh [SHAPE ...]      SHAPE = QUERIESxDOCS, default: 1000x100 7000x1000 100000x100
#
# Peers are used where installed and skipped, with a word, where not:
#   trec_eval      a `trec_eval` on the PATH, or TREC_EVAL=/path/to/trec_eval
#   pytrec_eval    `pip install pytrec-eval-terrier` for $PYTHON (default python3)
#   ranx           `pip install ranx` for $PYTHON; timed warm (numba's cache filled
#                  by a first run); RANX_COLD=1 also times a run with the cache cleared
# Other settings: RUNS (default 5) rounds after a warm-up round; in each round
# every tool runs once, so that a change in the machine's load hits all alike.
# Inputs are generated (seeded) under target/bench-data/ and never committed.
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-5}
PYTHON=${PYTHON:-python3}
TREC_EVAL=${TREC_EVAL:-trec_eval}
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(1000x100 7000x1000 100000x100)

cargo build --release -q -p rankeval-cli
rankeval=target/release/rankeval

have_trec_eval=0; have_pytrec=0; have_ranx=0; skipped=()
if command -v "$TREC_EVAL" >/dev/null 2>&1; then have_trec_eval=1; else skipped+=("trec_eval (not found: put it on the PATH or set TREC_EVAL)"); fi
if "$PYTHON" -c 'import pytrec_eval' >/dev/null 2>&1; then have_pytrec=1; else skipped+=("pytrec_eval (not importable by $PYTHON: pip install pytrec-eval-terrier)"); fi
if "$PYTHON" -c 'import ranx' >/dev/null 2>&1; then have_ranx=1; else skipped+=("ranx (not importable by $PYTHON: pip install ranx)"); fi
time_tool=""
[ -x /usr/bin/time ] && time_tool=/usr/bin/time

# Runs "$@" once; prints "seconds peak_rss_kb" (rss "-" without GNU time).
measure() {
    local start end rss="-"
    start=$(date +%s%N)
    if [ -n "$time_tool" ]; then
        "$time_tool" -f "%M" -o /tmp/rankeval-bench-rss "$@" >/dev/null 2>/dev/null
        rss=$(tail -n 1 /tmp/rankeval-bench-rss)
    else
        "$@" >/dev/null 2>/dev/null
    fi
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 )) $rss"
}

# Median wall time (ms) and largest RSS (KB) of a list of "ms rss" lines.
summarize() {
    awk '{ms[NR]=$1; if ($2 != "-" && $2 > rss) rss=$2} END {
        n = asort_ms(ms, NR); print ms[int((NR + 1) / 2)], (rss == "" ? "-" : rss)
    }
    function asort_ms(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n
    }'
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(date -u +%Y-%m-%d)"
echo "metrics: MAP, MRR, P@10, recall@10, nDCG@10; whole process; median of $RUNS rounds (every tool once per round) after a warm-up round"
printf '\n%-12s %-20s %10s %10s %12s %12s\n' shape tool seconds "peak MB" "x rankeval" "x wc -l"
for shape in "${shapes[@]}"; do
    read -r qrels run < <(cargo bench -q -p rankeval-cli --bench end_to_end -- generate "$shape" 2>/dev/null | tail -n 1)
    # Each command is a string of shell-quoted words (paths may hold spaces).
    q() { printf '%q ' "$@"; }
    names=("wc -l" "rankeval")
    commands=("$(q wc -l "$run")"
              "$(q "$rankeval" eval --qrels "$qrels" --run "$run" -m ap -m rr -m p@10 -m recall@10 -m ndcg@10 --format json)")
    if [ $have_trec_eval = 1 ]; then
        names+=("trec_eval"); commands+=("$(q "$TREC_EVAL" -m map -m recip_rank -m P.10 -m recall.10 -m ndcg_cut.10 "$qrels" "$run")")
    fi
    if [ $have_pytrec = 1 ]; then
        names+=("pytrec_eval"); commands+=("$(q "$PYTHON" scripts/bench/peer-evaluate.py pytrec_eval "$qrels" "$run")")
    fi
    if [ $have_ranx = 1 ]; then
        names+=("ranx (warm)"); commands+=("$(q "$PYTHON" scripts/bench/peer-evaluate.py ranx "$qrels" "$run")")
    fi
    # Every tool once per round, round after round (round 0 warms up), so
    # that a change in the machine's load hits every tool alike.
    results=()
    for round in $(seq 0 "$RUNS"); do
        for i in "${!commands[@]}"; do
            line=$(eval "measure ${commands[$i]}")
            [ "$round" -gt 0 ] && results[$i]+="$line"$'\n'
        done
    done
    rows=()
    for i in "${!names[@]}"; do
        rows+=("${names[$i]}|$(printf '%s' "${results[$i]}" | summarize)")
    done
    if [ $have_ranx = 1 ] && [ "${RANX_COLD:-0}" = 1 ]; then
        cache=$("$PYTHON" -c 'import os, ranx; print(os.path.dirname(ranx.__file__))')
        find "$cache" \( -name '*.nbi' -o -name '*.nbc' \) -delete
        rows+=("ranx (cold)|$(measure "$PYTHON" scripts/bench/peer-evaluate.py ranx "$qrels" "$run")")
    fi
    base=$(printf '%s\n' "${rows[@]}" | awk -F'|' '$1=="rankeval" {split($2, a, " "); print a[1]}')
    floor=$(printf '%s\n' "${rows[@]}" | awk -F'|' '$1=="wc -l" {split($2, a, " "); print a[1]}')
    for row in "${rows[@]}"; do
        tool=${row%%|*}; read -r ms rss <<<"${row#*|}"
        awk -v s="$shape" -v t="$tool" -v ms="$ms" -v rss="$rss" -v base="$base" -v floor="$floor" 'BEGIN {
            mb = (rss == "-" || rss == 0) ? "-" : sprintf("%.0f", rss / 1024)
            printf "%-12s %-20s %10.3f %10s %12.2f %12.1f\n", s, t, ms / 1000, mb, ms / (base > 0 ? base : 1), ms / (floor > 0 ? floor : 1)
        }'
    done
done
if [ ${#skipped[@]} -gt 0 ]; then
    echo
    for s in "${skipped[@]}"; do echo "skipped: $s"; done
fi
