"""Randomized cross-check of rankeval's `auc` and `ndcg(ideal=...)` against
scikit-learn.

    python3 scripts/cross-check/scikit-learn.py [--queries 500] [--seed 1]

Run by hand, not in CI. Needs `pip install scikit-learn` and a build of
rankeval (RANKEVAL_BIN, else target/release/rankeval, else target/debug).
It writes random queries (distinct scores, so that no tie rule plays a
part; every judged document retrieved, so that scikit-learn's ideal, which
only sees the given documents, is rankeval's), and compares per query:

- `auc` with `roc_auc_score(labels, scores)` (queries with both classes);
- `ndcg@k` with `ndcg_score([grades], [scores], k=k)` (grades 0-3, every
  document judged);
- `ndcg(ideal=k)@k` with RecTools' definition written out (binary grades,
  IDCG = sum of the k discounts), since scikit-learn has no such option.

Prints the largest absolute difference of each and fails above 1e-12.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

from sklearn.metrics import ndcg_score, roc_auc_score

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    queries = {}
    for q in range(args.queries):
        n = rng.randint(2, 30)
        scores = rng.sample(range(1, 100000), n)
        grades = [rng.choice([0, 0, 0, 1, 1, 2, 3]) for _ in range(n)]
        queries[f"q{q}"] = [(f"d{i}", s / 1000.0, g) for i, (s, g) in enumerate(zip(scores, grades))]
    k = 5
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run, bqrels = (os.path.join(tmp, f) for f in ("qrels", "run", "bqrels"))
        with open(qrels, "w") as fq, open(run, "w") as fr, open(bqrels, "w") as fb:
            for q, docs in queries.items():
                for d, s, g in docs:
                    fq.write(f"{q} 0 {d} {g}\n")
                    fb.write(f"{q} 0 {d} {min(g, 1)}\n")
                    fr.write(f"{q} Q0 {d} 0 {s} x\n")
        graded = rankeval(qrels, run, ["auc", f"ndcg@{k}"])
        binary_pq = rankeval(bqrels, run, [f"ndcg(ideal=k)@{k}"])
    worst = {"auc": 0.0, "ndcg": 0.0, "ndcg_ideal_k": 0.0}
    compared = {"auc": 0, "ndcg": 0, "ndcg_ideal_k": 0}
    for q, docs in queries.items():
        labels = [1 if g >= 1 else 0 for _, _, g in docs]
        scores = [s for _, s, _ in docs]
        grades = [g for _, _, g in docs]
        if 0 < sum(labels) < len(labels):
            expected = roc_auc_score(labels, scores)
            worst["auc"] = max(worst["auc"], abs(graded["auc"][q] - expected))
            compared["auc"] += 1
        if sum(grades) > 0:
            expected = ndcg_score([grades], [scores], k=k)
            worst["ndcg"] = max(worst["ndcg"], abs(graded[f"ndcg@{k}"][q] - expected))
            compared["ndcg"] += 1
        order = sorted(range(len(docs)), key=lambda i: -scores[i])
        dcg = sum(labels[i] / math.log2(r + 2) for r, i in enumerate(order[:k]))
        idcg = sum(1 / math.log2(r + 2) for r in range(k)) if sum(labels) else 0.0
        expected = dcg / idcg if idcg else 0.0
        worst["ndcg_ideal_k"] = max(
            worst["ndcg_ideal_k"], abs(binary_pq[f"ndcg(ideal=k)@{k}"][q] - expected)
        )
        compared["ndcg_ideal_k"] += 1
    failed = False
    for name, diff in worst.items():
        print(f"{name}: {compared[name]} queries, largest difference {diff:.3g}")
        failed |= diff > 1e-12
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
