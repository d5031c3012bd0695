#!/usr/bin/env bash
# Runs the fuzz targets of fuzz/ (cargo-fuzz, nightly toolchain).
#
#   scripts/test/fuzz.sh TARGET SECONDS   # one target: trec, jsonl, csv, parquet, arrow, labels,
#                                         # metric, toml, spans, results, groups
#   scripts/test/fuzz.sh all SECONDS      # every target, one after the other
#   scripts/test/fuzz.sh list             # the targets
#
# Needs `rustup toolchain install nightly` and `cargo install cargo-fuzz`.
# The growing corpus is kept in fuzz/corpus/TARGET (not committed), seeded
# from fuzz/seeds/TARGET; crashes land in fuzz/artifacts/TARGET. One job
# at a time (-jobs=1): the machine is shared. Prints the number of
# executions of each run (libFuzzer's final "stat::number_of_executed_units").
set -euo pipefail
cd "$(dirname "$0")/../../fuzz"

targets=(trec jsonl csv parquet arrow labels metric toml spans results groups)

usage() {
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

run_one() {
    local target=$1 seconds=$2
    mkdir -p "corpus/$target"
    echo "== $target for ${seconds}s"
    local log
    log=$(mktemp)
    # -rss_limit_mb bounds memory (the readers' line limit is 64 MiB);
    # -max_len keeps inputs small enough to be fast.
    if ! cargo +nightly fuzz run "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        2>&1 | tee "$log" | grep -E '^(#[0-9]+ +(DONE|INITED)|==|SUMMARY|stat::number_of_executed_units|artifact_prefix|Test unit written)'; then
        :
    fi
    # libFuzzer also writes inputs slower than -report_slow_units (10 s)
    # as slow-unit-*: reported, but not a crash.
    if grep -q 'SUMMARY: \|Test unit written to .*/\(crash\|oom\|timeout\|leak\)-' "$log"; then
        echo "!! $target found a crash; see fuzz/artifacts/$target" >&2
        rm -f "$log"
        return 1
    fi
    if grep -q 'Test unit written to .*slow-unit-' "$log"; then
        echo "-- $target wrote a slow input (not a crash); see fuzz/artifacts/$target/slow-unit-*"
    fi
    rm -f "$log"
}

case "${1:-}" in
    list) printf '%s\n' "${targets[@]}" ;;
    all)
        [[ $# -eq 2 ]] || usage
        for target in "${targets[@]}"; do run_one "$target" "$2"; done
        ;;
    "" | -h | --help) usage ;;
    *)
        [[ $# -eq 2 ]] || usage
        [[ " ${targets[*]} " == *" $1 "* ]] || { echo "unknown target: $1" >&2; usage; }
        run_one "$1" "$2"
        ;;
esac
