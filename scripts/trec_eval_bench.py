"""Benchmark: `rankeval trec_eval -m all_trec` against trec_eval 10 on the
same files, whole process, one after the other, and their outputs compared.

    TREC_EVAL=target/trec_eval-src/trec_eval-O3 \
        python3 scripts/trec_eval_bench.py [--queries 100000] [--docs 100] [--seed 1]

Inputs are generated (seeded, random.Random) under target/bench-data/trec_eval/
in the end-to-end benchmark's shape: N queries x D documents, graded
judgements 0-3 for about a third of the retrieved documents plus some
unretrieved ones, scores with ties. Prints each time and the ratio. Not a
test: run by hand. trec_eval -O3 misprints `rbp` (uninitialized memory, see
docs/trec_eval.md), so the outputs are compared without the `rbp` lines.
"""

import argparse
import os
import random
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RANKEVAL = os.environ.get("RANKEVAL_BIN") or os.path.join(ROOT, "target", "release", "rankeval")
TREC_EVAL = os.environ.get("TREC_EVAL")


def generate(queries, docs, seed, directory):
    os.makedirs(directory, exist_ok=True)
    qrels_path = os.path.join(directory, f"qrels-{queries}x{docs}-{seed}")
    run_path = os.path.join(directory, f"run-{queries}x{docs}-{seed}")
    if os.path.exists(qrels_path) and os.path.exists(run_path):
        return qrels_path, run_path
    rng = random.Random(seed)
    with open(qrels_path, "w") as qrels, open(run_path, "w") as run:
        for q in range(queries):
            qid = f"q{q}"
            for d in range(docs):
                score = rng.randint(0, 5000) / 100.0
                run.write(f"{qid} Q0 d{d} {d + 1} {score} bench\n")
                if rng.random() < 0.33:
                    qrels.write(f"{qid} 0 d{d} {rng.choice([0, 0, 1, 2, 3])}\n")
            for u in range(rng.randint(0, 5)):
                qrels.write(f"{qid} 0 u{u} {rng.choice([0, 1, 2])}\n")
    return qrels_path, run_path


def timed(command):
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed: {result.stderr[:500]}")
    return elapsed, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not TREC_EVAL:
        sys.exit("set TREC_EVAL to a trec_eval 10 binary")
    qrels, run = generate(args.queries, args.docs, args.seed,
                          os.path.join(ROOT, "target", "bench-data", "trec_eval"))
    print(f"seed {args.seed}: {args.queries} queries x {args.docs} documents")
    ours, out_ours = timed([RANKEVAL, "trec_eval", "-m", "all_trec", qrels, run])
    theirs, out_theirs = timed([TREC_EVAL, "-m", "all_trec", qrels, run])
    strip = lambda text: [l for l in text.splitlines() if not l.startswith("rbp ")]
    same = strip(out_ours) == strip(out_theirs)
    print(f"rankeval trec_eval: {ours:.2f} s; trec_eval: {theirs:.2f} s; "
          f"trec_eval / rankeval = {theirs / ours:.0f}x; outputs identical (rbp aside): {same}")


if __name__ == "__main__":
    main()
