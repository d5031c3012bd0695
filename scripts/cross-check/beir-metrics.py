"""Randomized cross-check of rankeval's `r_cap@k` and `hole@k` against
BEIR's `recall_cap` and `hole`, and a measurement of how BEIR's `Hole@k`
differs from rankeval's `unjudged@k`.

    python3 scripts/cross-check/beir-metrics.py [--queries 300] [--seed 1]

Run by hand, not in CI. Needs `pip install --no-deps beir` (its
`beir.retrieval.custom_metrics` imports nothing else) and a build of
rankeval (RANKEVAL_BIN, else target/release/rankeval, else target/debug).

Random qrels (grades 0-2, every query with a relevant document, since BEIR
divides by zero otherwise) and a run with distinct scores over every
qrels query, from a document pool shared by the queries (so that a
document judged for one query is retrieved for another).

- `r_cap@k` per query against BEIR's formula written out
  (`len(hits) / min(len(relevant), k)`, relevant = grade > 0), and the
  mean against BEIR's `recall_cap` itself, which rounds to 5 decimals.
- `hole@k` (BEIR's `hole`: the share of the top k not judged for *any*
  query, the qrels taken as one "annotated corpus") per query against
  BEIR's formula written out, and the mean against BEIR's `hole`; and
  `unjudged@k` (not judged for *this* query) printed beside it. They
  differ whenever a document judged for another query is retrieved.

Fails when `r_cap` or `hole` differs by more than 1e-12 per query (5e-6
for BEIR's rounded means).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

from beir.retrieval.custom_metrics import hole, recall_cap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KS = [1, 3, 5, 10, 100]


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
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pool = [f"d{i}" for i in range(4000)]
    qrels, results = {}, {}
    for q in range(args.queries):
        qid = f"q{q}"
        judged = rng.sample(pool, rng.randint(1, 40))
        grades = {d: rng.choice([0, 0, 1, 2]) for d in judged}
        grades[judged[0]] = rng.choice([1, 2])
        qrels[qid] = grades
        # Half of a list from the query's own judged documents, the rest
        # from the pool (some judged for other queries, most for none).
        own = rng.sample(judged, rng.randint(0, len(judged)))
        others = [d for d in rng.sample(pool, rng.randint(1, 150)) if d not in grades]
        retrieved = own + others
        scores = rng.sample(range(100000), len(retrieved))
        results[qid] = {d: s / 100.0 for d, s in zip(retrieved, scores)}
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        with open(qrels_path, "w") as f:
            for q, grades in qrels.items():
                for d, g in grades.items():
                    f.write(f"{q} 0 {d} {g}\n")
        with open(run_path, "w") as f:
            for q, scores in results.items():
                for rank, (d, s) in enumerate(sorted(scores.items(), key=lambda e: -e[1]), 1):
                    f.write(f"{q} Q0 {d} {rank} {s} r\n")
        metrics = (
            [f"r_cap@{k}" for k in KS] + [f"unjudged@{k}" for k in KS] + [f"hole@{k}" for k in KS]
        )
        got = rankeval(qrels_path, run_path, metrics)
        beir_cap = recall_cap(qrels, results, KS)
        beir_hole = hole(qrels, results, KS)
        annotated = {d for grades in qrels.values() for d in grades}
        for k in KS:
            worst = 0.0
            for q, scores in results.items():
                top = [d for d, _ in sorted(scores.items(), key=lambda e: -e[1])[:k]]
                relevant = [d for d, g in qrels[q].items() if g > 0]
                want = len([d for d in top if qrels[q].get(d, 0) > 0]) / min(len(relevant), k)
                worst = max(worst, abs(got[f"r_cap@{k}"][q] - want))
            mean = sum(got[f"r_cap@{k}"][q] for q in results) / len(results)
            rounded = abs(mean - beir_cap[f"R_cap@{k}"])
            print(
                f"r_cap@{k}: per query largest difference {worst:.3e}; "
                f"mean {mean:.6f}, BEIR {beir_cap[f'R_cap@{k}']:.5f}"
            )
            failed |= worst > 1e-12 or rounded > 5e-6
            unjudged = sum(got[f"unjudged@{k}"][q] for q in results) / len(results)
            worst_hole = 0.0
            for q, scores in results.items():
                top = [d for d, _ in sorted(scores.items(), key=lambda e: -e[1])[:k]]
                want = len([d for d in top if d not in annotated]) / k
                worst_hole = max(worst_hole, abs(got[f"hole@{k}"][q] - want))
            holes = sum(got[f"hole@{k}"][q] for q in results) / len(results)
            print(
                f"  hole@{k}: per query largest difference {worst_hole:.3e}; mean {holes:.6f}, "
                f"BEIR {beir_hole[f'Hole@{k}']:.5f}; unjudged@{k} {unjudged:.6f}"
            )
            failed |= worst_hole > 1e-12 or abs(holes - beir_hole[f"Hole@{k}"]) > 5e-6
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
