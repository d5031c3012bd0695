"""Randomized cross-check of rankeval's `accuracy` and `mcc` against
RecTools' classification metrics (`rectools.metrics.Accuracy`, `MCC`).

    python3 scripts/cross-check/rectools-metrics.py [--users 300] [--seed 1]
    python3 scripts/cross-check/rectools-metrics.py --fixture   # rewrite the test fixture

Run by hand, not in CI. Needs `pip install rectools` and a build of
rankeval (RANKEVAL_BIN, else target/release/rankeval, else target/debug).
It writes random interactions (the relevant items, grade 1) and
recommendations (ranks 1 to n, n from 1 to 15, so that some lists are
shorter than k), over a catalogue of 40 items, and compares per user
`accuracy(catalog=40)@k` and `mcc(catalog=40)@k` with RecTools'
`Accuracy(k).calc_per_user(reco, interactions, catalog)` and
`MCC(k).calc_per_user(...)`, k = 1, 3, 10.

RecTools also scores a user with interactions and no recommendation (every
slot a false positive); a TREC run cannot hold an empty list, so such
users are left out here (the metrics crate's test checks them on RecTools'
own example). Prints the largest absolute difference of each and fails
above 1e-12. With --fixture it writes
crates/rankeval/tests/data/peers/rectools/ (qrels, run, expected.json),
which crates/rankeval/tests/peers.rs checks.
"""

import argparse
import importlib.metadata
import json
import os
import random
import subprocess
import sys
import tempfile

import pandas as pd
from rectools import Columns
from rectools.metrics import MCC, Accuracy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "crates", "rankeval", "tests", "data", "peers", "rectools")
CATALOG = 40
CUTOFFS = [1, 3, 10]


def binary():
    if os.environ.get("RANKEVAL_BIN"):
        return os.environ["RANKEVAL_BIN"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "rankeval")
        if os.path.exists(path):
            return path
    sys.exit("build rankeval first (cargo build --release) or set RANKEVAL_BIN")


def rankeval(qrels, run, metrics):
    args = [binary(), "eval", "--qrels", qrels, "--run", run, "--per-query", "--format", "json"]
    for m in metrics:
        args += ["-m", m]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["runs"][0]["per_query"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fixture", action="store_true", help="rewrite the test fixture")
    args = parser.parse_args()
    if args.fixture:
        args.users, args.seed = 40, 7
    rng = random.Random(args.seed)
    reco, interactions = [], []
    for user in range(args.users):
        for item in rng.sample(range(CATALOG), rng.randint(1, 12)):
            interactions.append((user, item))
        for rank, item in enumerate(rng.sample(range(CATALOG), rng.randint(1, 15))):
            reco.append((user, item, rank + 1))
    reco_df = pd.DataFrame(reco, columns=[Columns.User, Columns.Item, Columns.Rank])
    interactions_df = pd.DataFrame(interactions, columns=[Columns.User, Columns.Item])
    catalog = list(range(CATALOG))
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        with open(qrels, "w") as f:
            for user, item in interactions:
                f.write(f"u{user} 0 i{item} 1\n")
        with open(run, "w") as f:
            for user, item, rank in reco:
                f.write(f"u{user} Q0 i{item} {rank} {100 - rank} x\n")
        names = [f"{m}(catalog={CATALOG})@{k}" for k in CUTOFFS for m in ("accuracy", "mcc")]
        got = rankeval(qrels, run, names)
        for k in CUTOFFS:
            for metric, peer in (("accuracy", Accuracy(k=k)), ("mcc", MCC(k=k))):
                name = f"{metric}(catalog={CATALOG})@{k}"
                expected = peer.calc_per_user(reco_df, interactions_df, catalog)
                worst = 0.0
                for user, value in expected.items():
                    worst = max(worst, abs(got[name][f"u{user}"] - value))
                    rows.append([f"u{user}", name, float(value)])
                print(f"{name}: {len(expected)} users, largest difference {worst:.3g}")
                failed |= worst > 1e-12
        if args.fixture:
            os.makedirs(FIXTURE, exist_ok=True)
            for name in ("qrels", "run"):
                with open(os.path.join(tmp, name)) as src, open(os.path.join(FIXTURE, name), "w") as dst:
                    dst.write(src.read())
            with open(os.path.join(FIXTURE, "expected.json"), "w") as f:
                json.dump({
                    "generator": "scripts/cross-check/rectools-metrics.py --fixture",
                    "peers": [f"RecTools {importlib.metadata.version('rectools')}"],
                    "ties": "docid",
                    "rows": rows,
                }, f, indent=0)
                f.write("\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
