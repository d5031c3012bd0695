"""Every measure of the benchmark card against ir_measures.

    python3 scripts/cross-check/benchmark-card.py [--trials 50] [--seed 1]

Run by hand, not in CI. Needs Python 3.11+ (tomllib), `pip install
ir_measures pytrec-eval-terrier`, and a rankeval binary (RANKEVAL_BIN, else
the release build under CARGO_TARGET_DIR or target/).

For each distinct pair of the card (crates/rankeval/src/benchmarks/card.toml)
of a measure as the benchmark reports it, in ir_measures' syntax
(`AP(rel=2)`, `nDCG@10`, `Success@5`), and the rankeval metric the card maps
it to (`ap(rel=2)`), every trial generates qrels with grades 0-3 and a run
with distinct scores (exact in f32, since pytrec_eval keeps scores as f32)
down to 1200 documents, evaluates both, and compares the values query by
query. It prints the largest difference of each pair and exits 1 if one
passes 1e-9. A measure ir_measures computes with gdeval.pl (ERR,
nDCG(dcg='exp-log2')) is printed by gdeval with 5 decimals: rankeval's value
is rounded the same way ("%.5f") and must then be equal (as in
ir-measures.py); gdeval needs numeric query ids, which the generator writes
and perl.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import tomllib

import ir_measures

# ir_measures computes these with gdeval.pl, which prints 5 decimals.
GDEVAL = ("ERR", "nDCG(dcg='exp-log2')")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("RANKEVAL_BIN") or os.path.join(
    ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "rankeval"
)
CARD = os.path.join(ROOT, "crates", "rankeval", "src", "benchmarks", "card.toml")


def trial(rng):
    """Qrels and a run: 20 queries, grades 0-3, lists of 1 to 1200."""
    qrels, run = [], []
    for q in range(20):
        # Numeric ids: gdeval.pl (nDCG(dcg='exp-log2')) reads no other.
        query = str(q + 1)
        pool = rng.randint(5, 80)
        for d in range(pool):
            if rng.random() < 0.5:
                qrels.append((query, f"d{d}", rng.randint(0, 3)))
        if not any(r[0] == query and r[2] > 0 for r in qrels):
            qrels.append((query, "d0", rng.randint(1, 3)))
        docs = [f"d{d}" for d in range(pool + 10)] + [f"u{u}" for u in range(1200)]
        rng.shuffle(docs)
        for rank, doc in enumerate(docs[: rng.randint(1, 1200)]):
            run.append((query, doc, float(2000 - rank)))
    return qrels, run


def rankeval_values(qrels, run, metrics, directory):
    qrels_path = os.path.join(directory, "qrels.txt")
    run_path = os.path.join(directory, "run.trec")
    with open(qrels_path, "w") as f:
        f.writelines(f"{q} 0 {d} {g}\n" for q, d, g in qrels)
    with open(run_path, "w") as f:
        f.writelines(f"{q} Q0 {d} {i + 1} {s} t\n" for i, (q, d, s) in enumerate(run))
    args = [BINARY, "eval", "--qrels", qrels_path, "--run", run_path, "--per-query",
            "--format", "json"]
    for metric in metrics:
        args += ["-m", metric]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    per_query = json.loads(out)["runs"][0]["per_query"]
    # The report keys each metric by its canonical name, in the order asked.
    return dict(zip(metrics, per_query.values()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    with open(CARD, "rb") as f:
        card = tomllib.load(f)
    pairs = sorted({(m["reported"], m["metric"]) for b in card["benchmark"] for m in b["measures"]})
    rng = random.Random(options.seed)
    worst = {pair: 0.0 for pair in pairs}
    compared = 0
    with tempfile.TemporaryDirectory() as directory:
        for _ in range(options.trials):
            qrels, run = trial(rng)
            ours = rankeval_values(qrels, run, sorted({m for _, m in pairs}), directory)
            ir_qrels = [ir_measures.Qrel(q, d, g) for q, d, g in qrels]
            ir_run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run]
            for reported, metric in pairs:
                measure = ir_measures.parse_measure(reported)
                for value in measure.iter_calc(ir_qrels, ir_run):
                    mine = ours[metric][value.query_id]
                    if reported.startswith(GDEVAL):
                        # gdeval.pl's printf("%.5f"): Python's rounds the same.
                        mine = float(f"{mine:.5f}")
                    worst[(reported, metric)] = max(worst[(reported, metric)],
                                                    abs(mine - value.value))
                    compared += 1
    failed = False
    for (reported, metric), difference in worst.items():
        mark = "ok" if difference <= 1e-9 else "DIFFERS"
        failed |= difference > 1e-9
        print(f"{reported:16} = {metric:22} largest difference {difference:.3g}  {mark}")
    print(f"{compared} per-query values compared over {options.trials} trials (seed {options.seed})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
