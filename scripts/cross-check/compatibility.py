"""Randomized cross-check of rankeval's `compatibility` against Clarke et
al.'s reference script and ir_measures' `Compat`.

    python3 scripts/cross-check/compatibility.py --reference compatibility.py [--queries 300] [--seed 1]
    python3 scripts/cross-check/compatibility.py --reference compatibility.py --fixture

Run by hand, not in CI. Needs `pip install ir_measures`, the reference
script (https://github.com/claclark/Compatibility, `compatibility.py`;
it is not on PyPI: download it and give its path) and a build of rankeval
(RANKEVAL_BIN, else target/release/rankeval, else target/debug).

It writes random graded qrels (grades 0-4, decimals too, some relevant
documents never retrieved, some queries with nothing relevant) and a run
whose scores are rounded to one decimal (many ties), its lines in the order
compatibility.py sorts them (score descending, then document id
ascending), evaluated with `--ties input`. It compares per query:

- `compatibility`, `compatibility(p=0.8)`, `compatibility(normalize=false)`
  with the reference's own functions (`idealize`, `rbo`, `DEPTH`,
  `NORMALIZE`), applied as its `main` applies them; the reference skips a
  query with nothing relevant, which rankeval scores 0: those are counted
  apart;
- `compatibility(p=0.9,depth=0)` with ir_measures' `Compat(p=0.9)` (RBO to
  the longer of the two lists). ir_measures orders equally graded ideal
  documents by run score, then by qrels order: the qrels are written by
  document id so that this is the run's order.

Prints the largest absolute difference of each and fails above 1e-12.
With --fixture it writes crates/rankeval/tests/data/peers/compatibility/
(qrels, run, expected.json), which crates/rankeval/tests/peers.rs checks.
"""

import argparse
import importlib.metadata
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile

import ir_measures

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "crates", "rankeval", "tests", "data", "peers", "compatibility")


def binary():
    if os.environ.get("RANKEVAL_BIN"):
        return os.environ["RANKEVAL_BIN"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "rankeval")
        if os.path.exists(path):
            return path
    sys.exit("build rankeval first (cargo build --release) or set RANKEVAL_BIN")


def rankeval(qrels, run, metrics):
    args = [binary(), "eval", "--qrels", qrels, "--run", run, "--per-query",
            "--format", "json", "--ties", "input"]
    for m in metrics:
        args += ["-m", m]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["runs"][0]["per_query"]


def generate(rng, queries):
    """{query: ([(doc, score)] in compatibility.py's order, {doc: grade})}"""
    data = {}
    for q in range(queries):
        n = rng.randint(0, 60)
        docs = [f"d{i:03d}" for i in rng.sample(range(200), n + 15)]
        retrieved = docs[:n]
        scores = {d: round(rng.uniform(0.1, 3.0), 1) for d in retrieved}
        ranked = sorted(retrieved)
        ranked.sort(key=lambda d: scores[d], reverse=True)
        grades = {}
        nothing_relevant = rng.random() < 0.1
        for d in docs:
            if rng.random() < 0.7:
                g = rng.choice([0, 0, 0, 1, 1, 2, 3, 4, 1.5])
                grades[d] = 0 if nothing_relevant else g
        data[f"q{q}"] = ([(d, scores[d]) for d in ranked], grades)
    return data


def write(data, qrels, run):
    with open(qrels, "w") as fq, open(run, "w") as fr:
        for q, (ranked, grades) in data.items():
            for d in sorted(grades):
                fq.write(f"{q} 0 {d} {grades[d]}\n")
            for i, (d, s) in enumerate(ranked):
                fr.write(f"{q} Q0 {d} {i + 1} {s} x\n")


def reference_values(ref, data, p, normalize):
    """compatibility.py's main, per query: None where it skips the query."""
    out = {}
    for q, (ranked, grades) in data.items():
        run = [d for d, _ in ranked]
        relevant = {d: float(g) for d, g in grades.items() if float(g) > 0.0}
        if not relevant or not run:
            out[q] = None
            continue
        ideal = ref.idealize(run, list(relevant), relevant)
        score = ref.rbo(run, ideal, p)
        if normalize:
            best = ref.rbo(ideal, ideal, p)
            score = score / best if best > 0.0 else best
        out[q] = score
    return out


def ir_measures_values(data, p):
    qrels = [ir_measures.Qrel(q, d, g) for q, (_, grades) in data.items()
             for d, g in sorted(grades.items())]
    run = [ir_measures.ScoredDoc(q, d, s) for q, (ranked, _) in data.items() for d, s in ranked]
    measure = ir_measures.Compat(p=p)
    return {m.query_id: m.value for m in ir_measures.compat.iter_calc([measure], qrels, run)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", required=True, help="path of claclark/Compatibility's compatibility.py")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fixture", action="store_true", help="rewrite the test fixture")
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("compatibility_reference", args.reference)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    if args.fixture:
        args.queries, args.seed = 40, 7
    data = generate(random.Random(args.seed), args.queries)
    checks = [
        ("compatibility", lambda: reference_values(ref, data, 0.95, True)),
        ("compatibility(p=0.8)", lambda: reference_values(ref, data, 0.8, True)),
        ("compatibility(normalize=false)", lambda: reference_values(ref, data, 0.95, False)),
        ("compatibility(p=0.9,depth=0)", lambda: ir_measures_values(data, 0.9)),
    ]
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        write(data, qrels, run)
        got = rankeval(qrels, run, [m for m, _ in checks])
        for metric, peer in checks:
            expected = peer()
            worst, compared, skipped = 0.0, 0, 0
            for q in data:
                value = expected.get(q)
                if value is None:
                    skipped += 1
                    if q in got[metric] and got[metric][q] != 0.0:
                        print(f"{metric} {q}: {got[metric][q]}, expected 0 where the reference skips")
                        failed = True
                    continue
                if q not in got[metric]:
                    # Not in the run: ir_measures scores it 0, rankeval
                    # leaves it out (`--missing zero` scores it 0 too).
                    skipped += 1
                    failed |= value != 0.0
                    continue
                worst = max(worst, abs(got[metric][q] - value))
                compared += 1
                rows.append([q, metric, value])
            print(f"{metric}: {compared} queries, largest difference {worst:.3g}"
                  f" ({skipped} the peer leaves out)")
            failed |= worst > 1e-12
        if args.fixture:
            os.makedirs(FIXTURE, exist_ok=True)
            for name in ("qrels", "run"):
                with open(os.path.join(tmp, name)) as src, open(os.path.join(FIXTURE, name), "w") as dst:
                    dst.write(src.read())
            with open(os.path.join(FIXTURE, "expected.json"), "w") as f:
                json.dump({
                    "generator": "scripts/cross-check/compatibility.py --fixture",
                    "peers": ["claclark/Compatibility compatibility.py",
                              f"ir_measures {importlib.metadata.version('ir_measures')}"],
                    "ties": "input",
                    "rows": rows,
                }, f, indent=0)
                f.write("\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
