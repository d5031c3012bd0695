#!/usr/bin/env bash
# The speed-up of `rankeval ope --interval bootstrap` on several threads:
# the same request (IPS, SNIPS and DR of a ranking on the benchmark's
# bandit log of N impressions, R resamples, seed 38) with
# RAYON_NUM_THREADS=1 and with T threads, the wall time of each, their
# ratio, and a check that both print the same bytes (the chunks of
# resamples run in parallel, each from its own stream, their values put
# back by chunk index). Not a timed test: run it by hand, on an idle
# machine for a clean ratio (release build).
#
#   scripts/bench/ope-bootstrap.sh [N] [R] [T]     # defaults 20000 2000 2
# (RANKEVAL_BIN=path uses that binary instead of building one; the log
# comes from scripts/bench/ope-logs.py, so PEER_PYTHON or python3 needs
# numpy and pyarrow; written under target/bench-ope-bootstrap/.)
set -euo pipefail
cd "$(dirname "$0")/../.."

n=${1:-20000}
resamples=${2:-2000}
threads=${3:-2}
out=${CARGO_TARGET_DIR:-target}/bench-ope-bootstrap
python=${PEER_PYTHON:-python3}
if [ -z "${RANKEVAL_BIN:-}" ]; then cargo build --quiet --release -p rankeval-cli --bin rankeval; fi
rankeval=${RANKEVAL_BIN:-${CARGO_TARGET_DIR:-target}/release/rankeval}

if [ "$(cat "$out/n.txt" 2>/dev/null)" != "$n" ]; then
    rm -rf "$out"
    mkdir -p "$out"
    "$python" scripts/bench/ope-logs.py "$out" "$n" > /dev/null
    echo "$n" > "$out/n.txt"
fi

# Wall seconds of the request on `$1` threads (its output to $out/$1.json).
run() {
    local start end
    start=$(date +%s.%N)
    RAYON_NUM_THREADS=$1 "$rankeval" ope --log "$out/bandit.parquet" \
        --policy "target=$out/target.trec" --reward-model "$out/model.trec" \
        -e ips -e snips -e dr --allow-low-support --interval bootstrap \
        --resamples "$resamples" --seed 38 --format json > "$out/$1.json"
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

one=$(run 1)
many=$(run "$threads")
cmp "$out/1.json" "$out/$threads.json"
echo "$n impressions, 3 estimators, $resamples resamples; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "1 thread: ${one} s; $threads threads: ${many} s; ratio $(echo "scale=2; $one / $many" | bc); the same bytes"
