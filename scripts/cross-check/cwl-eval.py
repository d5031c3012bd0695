"""Randomized cross-check of rankeval's C/W/L metrics (`inst`, `insq`,
`nerr8` to `nerr11`, `bpm`, `sdcg`) against cwl-eval, through ir_measures'
`cwl_eval` provider (INST, INSQ, NERR8 to NERR11, BPM, SDCG: the measures
and gain scaling ir_measures users get).

    python3 scripts/cross-check/cwl-eval.py [--queries 300] [--seed 1]
    python3 scripts/cross-check/cwl-eval.py --fixture   # rewrite the test fixture

Run by hand, not in CI. Needs `pip install ir_measures cwl-eval` and a build
of rankeval (RANKEVAL_BIN, else target/release/rankeval, else target/debug).
It writes random qrels (grades -1 to 3, some documents unjudged) and a run
whose scores are rounded to one decimal (many ties), its lines in
ir_measures' order (score descending, then document id descending, as
rankeval orders ties by default), lists from empty to 1100 documents (past
cwl-eval's 1000), and compares per query each measure, under the ir_measures
name rankeval reads (`-m 'INST(T=2,max_rel=3)'`) and under rankeval's own
(`inst(t=2,max_rel=3)`).

Prints the largest absolute difference of each and fails above 1e-12.
With --fixture it writes crates/rankeval/tests/data/peers/cwl/ (qrels, run,
expected.json), which crates/rankeval/tests/peers.rs checks.
"""

import argparse
import importlib.metadata
import json
import logging
import os
import random
import subprocess
import sys
import tempfile

import ir_measures
from ir_measures import BPM, INSQ, INST, NERR8, NERR9, NERR10, NERR11, SDCG

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "crates", "rankeval", "tests", "data", "peers", "cwl")

# (ir_measures measure, its name as rankeval reads it, rankeval's own name)
MEASURES = [
    (INST(T=1.0, max_rel=1), "INST(T=1,max_rel=1)", "inst"),
    (INST(T=2.0, max_rel=3), "INST(T=2,max_rel=3)", "inst(t=2,max_rel=3)"),
    (INST(T=0.5, min_rel=1, max_rel=3), "INST(T=0.5,min_rel=1,max_rel=3)", "inst(t=0.5,min_rel=1,max_rel=3)"),
    (INSQ(T=1.0, max_rel=1), "INSQ(T=1,max_rel=1)", "insq"),
    (INSQ(T=3.0, max_rel=3), "INSQ(T=3,max_rel=3)", "insq(t=3,max_rel=3)"),
    (NERR8(max_rel=1) @ 10, "NERR8(max_rel=1)@10", "nerr8@10"),
    (NERR8(max_rel=3) @ 5, "NERR8(max_rel=3)@5", "nerr8(max_rel=3)@5"),
    (NERR9(max_rel=1) @ 10, "NERR9(max_rel=1)@10", "nerr9@10"),
    (NERR9(max_rel=3) @ 1200, "NERR9(max_rel=3)@1200", "nerr9(max_rel=3)@1200"),
    (NERR10(p=0.8, max_rel=1), "NERR10(p=0.8,max_rel=1)", "nerr10(p=0.8)"),
    (NERR10(p=0.9, max_rel=3), "NERR10(p=0.9,max_rel=3)", "nerr10(max_rel=3)"),
    (NERR11(T=2.0, max_rel=1), "NERR11(T=2,max_rel=1)", "nerr11(t=2)"),
    (NERR11(T=1.0, min_rel=1, max_rel=2), "NERR11(T=1,min_rel=1,max_rel=2)", "nerr11(min_rel=1,max_rel=2)"),
    (BPM(T=1.0, max_rel=1) @ 10, "BPM(T=1,max_rel=1)@10", "bpm@10"),
    (BPM(T=2.5, max_rel=3) @ 20, "BPM(T=2.5,max_rel=3)@20", "bpm(t=2.5,max_rel=3)@20"),
    (BPM(T=1000.0, min_rel=1, max_rel=3) @ 1200, "BPM(T=1000,min_rel=1,max_rel=3)@1200",
     "bpm(t=1000,min_rel=1,max_rel=3)@1200"),
    (SDCG(max_rel=1) @ 10, "SDCG(max_rel=1)@10", "sdcg@10"),
    (SDCG(max_rel=3) @ 5, "SDCG(max_rel=3)@5", "sdcg(max_rel=3)@5"),
    (SDCG(min_rel=1, max_rel=2) @ 1200, "SDCG(min_rel=1,max_rel=2)@1200", "sdcg(min_rel=1,max_rel=2)@1200"),
]


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


def generate(rng, queries):
    """{query: ([(doc, score)] ranked, {doc: grade})}"""
    data = {}
    for q in range(queries):
        n = 1100 if q == 0 else rng.choice([0, 1, 3, 8, 15, 30, 60, 200, 1100]) if q % 10 == 0 else rng.randint(1, 40)
        docs = [f"d{i:04d}" for i in rng.sample(range(3000), n + 10)]
        retrieved = docs[:n]
        scores = {d: round(rng.uniform(0.1, 3.0), 1) for d in retrieved}
        ranked = sorted(retrieved, reverse=True)
        ranked.sort(key=lambda d: scores[d], reverse=True)
        grades = {d: rng.choice([-1, 0, 0, 0, 1, 1, 2, 3]) for d in docs if rng.random() < 0.6}
        if not grades:
            grades[docs[-1]] = 1
        data[f"q{q}"] = ([(d, scores[d]) for d in ranked], grades)
    return data


def write(data, qrels, run):
    with open(qrels, "w") as fq, open(run, "w") as fr:
        for q, (ranked, grades) in data.items():
            for d, g in grades.items():
                fq.write(f"{q} 0 {d} {g}\n")
            for i, (d, s) in enumerate(ranked):
                fr.write(f"{q} Q0 {d} {i + 1} {s} x\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fixture", action="store_true", help="rewrite the test fixture")
    args = parser.parse_args()
    logging.getLogger("ir_measures.cwl_eval").disabled = True
    if args.fixture:
        args.queries, args.seed = 40, 7
    data = generate(random.Random(args.seed), args.queries)
    qrels_list = [ir_measures.Qrel(q, d, g) for q, (_, grades) in data.items() for d, g in grades.items()]
    run_list = [ir_measures.ScoredDoc(q, d, s) for q, (ranked, _) in data.items() for d, s in ranked]
    rows = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        write(data, qrels, run)
        # The same metrics named as ir_measures names them and as rankeval
        # does; the report keys both by rankeval's canonical name, `own`.
        by_irm = rankeval(qrels, run, [irm for _, irm, _ in MEASURES])
        by_own = rankeval(qrels, run, [own for _, _, own in MEASURES])
        for measure, irm, own in MEASURES:
            expected = {m.query_id: m.value for m in ir_measures.cwl_eval.iter_calc([measure], qrels_list, run_list)}
            for name, got in ((irm, by_irm), (own, by_own)):
                values = got[own]
                worst = max(abs(values[q] - v) for q, v in expected.items() if q in values)
                compared = sum(1 for q in expected if q in values)
                print(f"{name}: {compared} queries, largest difference {worst:.3g}")
                failed |= worst > 1e-12
            rows += [[q, own, v] for q, v in expected.items() if q in by_own[own]]
        if args.fixture:
            os.makedirs(FIXTURE, exist_ok=True)
            for name in ("qrels", "run"):
                with open(os.path.join(tmp, name)) as src, open(os.path.join(FIXTURE, name), "w") as dst:
                    dst.write(src.read())
            with open(os.path.join(FIXTURE, "expected.json"), "w") as f:
                json.dump({
                    "generator": "scripts/cross-check/cwl-eval.py --fixture",
                    "peers": [f"cwl-eval {importlib.metadata.version('cwl-eval')}",
                              f"ir_measures {importlib.metadata.version('ir_measures')}"],
                    "ties": "docid",
                    "rows": rows,
                }, f, indent=0)
                f.write("\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
