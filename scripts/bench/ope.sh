#!/usr/bin/env bash
# `rankeval ope` against obp's estimators on the same log, in one run: a
# generated bandit log and a generated slate log of N impressions each
# (default 10,000,000; scripts/bench/ope-logs.py, seeded, written under
# target/bench-ope/ and removed after unless KEEP=1), then
#   rankeval ope -e ips -e snips -e dr   (a ranking as the target, a reward model)
#   rankeval ope -e slate_ips            (slates of 3, the slate's propensity)
# each timed with its peak resident memory (/usr/bin/time), and obp's
# IPW, SNIPW, DoublyRobust and SlateStandardIPS (up to OBP_SLATE_MAX
# slates; the numpy definition above) on the same data as numpy
# arrays (scripts/bench/ope-peers.py; PEER_PYTHON, a Python with obp,
# numpy and pyarrow, built by scripts/bench/ope-peer-venv.sh; with
# PEER=numpy, or where obp does not import, the
# plain numpy definitions instead). Prints each side's seconds and peak
# memory and their ratios, and both sides' estimates. Not a timed test:
# run it by hand on an idle machine (release build).
#
#   scripts/bench/ope.sh [N]
# (RANKEVAL_BIN=path uses that binary instead of building one.)
set -euo pipefail
cd "$(dirname "$0")/../.."

n=${1:-10000000}
out=target/bench-ope
python=${PEER_PYTHON:-python3}
if [ -z "${RANKEVAL_BIN:-}" ]; then cargo build --quiet --release -p rankeval-cli --bin rankeval; fi
rankeval=${RANKEVAL_BIN:-${CARGO_TARGET_DIR:-target}/release/rankeval}

# The logs of a previous run with KEEP=1 and the same N are reused.
if [ "$(cat "$out/n.txt" 2>/dev/null)" != "$n" ]; then
    rm -rf "$out"
    mkdir -p "$out"
    "$python" scripts/bench/ope-logs.py "$out" "$n"
    echo "$n" > "$out/n.txt"
fi

# Seconds and peak KiB of `$@` (its output to $out/last.json).
measure() {
    /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > "$out/last.json"
    cat "$out/time.txt"
}

read -r bandit_s bandit_kib < <(measure "$rankeval" ope --log "$out/bandit.parquet" \
    --policy "target=$out/target.trec" --reward-model "$out/model.trec" \
    -e ips -e snips -e dr --allow-low-support --format json)
cp "$out/last.json" "$out/bandit.json"
read -r slate_s slate_kib < <(measure "$rankeval" ope --log "$out/slate.parquet" \
    --form slate --reward-per position --policy "target=$out/slate-target.trec" \
    -e slate_ips --allow-low-support --format json)
cp "$out/last.json" "$out/slate.json"

peer_args=()
if [ "${PEER:-obp}" = numpy ]; then peer_args+=(--numpy); fi
/usr/bin/time -f "%e %M" -o "$out/peer-time.txt" \
    "$python" scripts/bench/ope-peers.py "$out" "${peer_args[@]}" > "$out/peer.json"

python3 - "$out" "$n" "$bandit_s" "$bandit_kib" "$slate_s" "$slate_kib" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
bandit_s, bandit_kib, slate_s, slate_kib = map(float, sys.argv[3:7])
peer = json.load(open(f"{out}/peer.json"))
peer_wall, peer_kib = map(float, open(f"{out}/peer-time.txt").read().split())
ours = {}
for name in ("bandit", "slate"):
    for e in json.load(open(f"{out}/{name}.json"))["policies"][0]["estimates"]:
        ours[e["estimator"]] = e["value"]
s = peer["seconds"]
estimate_s = sum(v for k, v in s.items() if k not in ("load", "arrays"))
mib = lambda kib: kib / 1024
print(f"{n:,} bandit and {n:,} slate impressions; peer: {peer['peer']}"
      + (f"; slate_ips by {peer['slate_peer']}" if "slate_peer" in peer else ""))
print(f"rankeval ope, bandit (ips, snips, dr; reads the Parquet log, joins the run and the model): "
      f"{bandit_s:.1f} s, peak {mib(bandit_kib):.0f} MiB")
print(f"rankeval ope, slates (slate_ips): {slate_s:.1f} s, peak {mib(slate_kib):.0f} MiB")
print(f"peer: arrays loaded {s['load']:.1f} s, built {s['arrays']:.1f} s, estimators "
      + ", ".join(f"{k} {v:.2f} s" for k, v in s.items() if k not in ("load", "arrays"))
      + f"; process {peer_wall:.1f} s, peak {mib(peer_kib):.0f} MiB")
ours_s = bandit_s + slate_s
print(f"time, rankeval / peer's estimators on arrays in memory: {ours_s / estimate_s:.1f}")
print(f"time, rankeval / peer's whole process (load, build arrays, estimate): {ours_s / peer_wall:.2f}")
print(f"peak memory, rankeval (larger of its two runs) / peer: {max(bandit_kib, slate_kib) / peer_kib:.2f}")
for k, v in peer["estimates"].items():
    print(f"  {k:10s} rankeval {ours.get(k)!r:24} peer {v!r}")
PY
if [ -z "${KEEP:-}" ]; then rm -rf "$out"; fi
