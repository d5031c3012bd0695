"""Randomized cross-check of rankeval's `auc`, `ndcg(ideal=...)`,
`label_ranking_average_precision` and `average_precision_score` against
scikit-learn.

    python3 scripts/cross-check/scikit-learn.py [--queries 500] [--seed 1]
    python3 scripts/cross-check/scikit-learn.py --fixture   # rewrite the test fixture

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

Then, on a second set whose scores are rounded to one decimal (many ties)
and whose documents are judged or not (grades -1 to 3), it compares per
query, at relevance levels 1 and 2:

- `label_ranking_average_precision` with
  `label_ranking_average_precision_score([labels], [scores])`, the labels
  being the query's ranked documents (ties count as ranked above);
- `average_precision_score` with `average_precision_score(labels, scores)`
  (one threshold per distinct score).

Prints the largest absolute difference of each and fails above 1e-12.
With --fixture it writes the second set and scikit-learn's values to
crates/rankeval/tests/data/peers/scikit-learn/ (qrels, run, expected.json),
which crates/rankeval/tests/peers.rs checks.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import importlib.metadata
import tempfile
import warnings

from sklearn.metrics import (
    average_precision_score,
    label_ranking_average_precision_score,
    ndcg_score,
    roc_auc_score,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "crates", "rankeval", "tests", "data", "peers", "scikit-learn")


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


def tied_scores(rng, queries, fixture):
    """LRAP and average_precision_score on rounded (tied) scores."""
    data = {}
    for q in range(queries):
        n = rng.randint(1, 30)
        docs = [(f"d{i:03d}", round(rng.uniform(0.0, 2.0), 1)) for i in rng.sample(range(500), n)]
        grades = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d, _ in docs if rng.random() < 0.8}
        if q % 17 == 0:
            grades = {d: 1 for d, _ in docs}
        if not grades:
            # A query with no judgement is not evaluated: judge one.
            grades[docs[0][0]] = 0
        data[f"q{q}"] = (docs, grades)
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        with open(qrels, "w") as fq, open(run, "w") as fr:
            for q, (docs, grades) in data.items():
                for d, g in grades.items():
                    fq.write(f"{q} 0 {d} {g}\n")
                for d, s in docs:
                    fr.write(f"{q} Q0 {d} 0 {s} x\n")
        for rel in (1, 2):
            suffix = "" if rel == 1 else f"(rel={rel})"
            names = [f"label_ranking_average_precision{suffix}", f"average_precision_score{suffix}"]
            got = rankeval(qrels, run, names)
            worst = {n: 0.0 for n in names}
            for q, (docs, grades) in data.items():
                labels = [1 if grades.get(d, 0) >= rel else 0 for d, _ in docs]
                scores = [s for _, s in docs]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = [
                        label_ranking_average_precision_score([labels], [scores]),
                        average_precision_score(labels, scores),
                    ]
                for name, value in zip(names, expected):
                    worst[name] = max(worst[name], abs(got[name][q] - value))
                    rows.append([q, name, float(value)])
            for name, diff in worst.items():
                print(f"{name}: {len(data)} queries (tied scores), largest difference {diff:.3g}")
                failed |= diff > 1e-12
        if fixture:
            os.makedirs(FIXTURE, exist_ok=True)
            for name in ("qrels", "run"):
                with open(os.path.join(tmp, name)) as src, open(os.path.join(FIXTURE, name), "w") as dst:
                    dst.write(src.read())
            with open(os.path.join(FIXTURE, "expected.json"), "w") as f:
                json.dump({
                    "generator": "scripts/cross-check/scikit-learn.py --fixture",
                    "peers": [f"scikit-learn {importlib.metadata.version('scikit-learn')}"],
                    "ties": "docid",
                    "rows": rows,
                }, f, indent=0)
                f.write("\n")
    return failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fixture", action="store_true", help="rewrite the test fixture (tied set)")
    args = parser.parse_args()
    if args.fixture:
        sys.exit(1 if tied_scores(random.Random(7), 40, True) else 0)
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
    failed |= tied_scores(rng, args.queries, False)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
