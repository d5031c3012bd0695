"""Benchmark: `rankeval trec_eval -m all_trec` against trec_eval 10 on the
same files, whole process, one after the other, and their outputs compared.
Prints wall and CPU time (user + system over all threads, from wait4) of
each: on a shared machine the wall time depends on the load, the CPU time
much less.

    TREC_EVAL=target/trec_eval-src/trec_eval-O3 \
        python3 scripts/bench/trec-eval.py [--queries 100000] [--docs 100] [--seed 1]

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
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
    """Runs `command`; returns its wall time, its CPU time (user + system,
    all threads) and its stdout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            err.seek(0)
            sys.exit(f"{command[0]} failed: {err.read()[:500].decode(errors='replace')}")
        out.seek(0)
        return elapsed, usage.ru_utime + usage.ru_stime, out.read().decode()


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
    print(f"seed {args.seed}: {args.queries} queries x {args.docs} documents, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    ours, ours_cpu, out_ours = timed([RANKEVAL, "trec_eval", "-m", "all_trec", qrels, run])
    theirs, theirs_cpu, out_theirs = timed([TREC_EVAL, "-m", "all_trec", qrels, run])
    strip = lambda text: [l for l in text.splitlines() if not l.startswith("rbp ")]
    same = strip(out_ours) == strip(out_theirs)
    print(f"wall: rankeval trec_eval {ours:.2f} s, trec_eval {theirs:.2f} s, "
          f"trec_eval / rankeval = {theirs / ours:.1f}x")
    print(f"CPU (user + system, all threads): rankeval trec_eval {ours_cpu:.2f} s, "
          f"trec_eval {theirs_cpu:.2f} s, trec_eval / rankeval = {theirs_cpu / ours_cpu:.1f}x")
    print(f"outputs identical (rbp aside): {same}; load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
