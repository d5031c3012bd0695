"""Randomized byte-for-byte cross-check of `rankeval trec_eval` against a
trec_eval 10 binary built from its source.

    TREC_EVAL=target/trec_eval-src/trec_eval-O0 \
        python3 scripts/trec_eval_cross_check.py [--trials 200] [--seed 1]

Run by hand, not in CI. Build trec_eval under target/ (never commit its
code): fetch https://github.com/usnistgov/trec_eval into
target/trec_eval-src and run `make CFLAGS='-O0 -g -I. -DVERSIONID=\"10.0\"'`
there. Use a build without optimisation: built with -O3, trec_eval's `rbp`
reads uninitialized memory (m_rbp.c's `min` and `max`) and prints other
numbers than its own test suite expects.

Each trial writes random qrels and a run: exact ties, scores equal as f32
but not f64, graded (0-4) and negative (-1) judgements, unjudged documents,
ids whose byte order matters ("d9" vs "d10"), queries only in the run, and
(for `-c`) queries only in the qrels. It runs `-m all_trec -q` with each of
no flag, `-c`, `-l2`, `-M5`, `-J`, `-c -l2 -J`, plus a
parameter set (`-m P.3,7 -m ndcg_cut.4 -m iprec_at_recall..25,.5 ...`),
with both programs, and requires identical stdout. trec_eval 10 stops with
"result qid not found in qrels" on a qrels query the run lacks unless `-c`
is given; rankeval leaves such a query out (with a warning). So without
`-c`, trec_eval gets the qrels of the run's queries only.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RANKEVAL = os.environ.get("RANKEVAL_BIN") or os.path.join(
    ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "rankeval"
)
TREC_EVAL = os.environ.get("TREC_EVAL")

FLAG_SETS = [
    [],
    ["-c"],
    ["-l2"],
    ["-M5"],
    ["-J"],
    ["-c", "-l2", "-J"],
]
PARAMS = [
    "-m", "P.3,7", "-m", "ndcg_cut.4,12", "-m", "iprec_at_recall..25,.5",
    "-m", "Rprec_mult.0.5,1.5", "-m", "utility.2,-1,-0.5,0", "-m", "relstring.7",
    "-m", "11pt_avg..2,.6", "-m", "ndcg.1=2,2=0.5,3=7", "-m", "success.2", "-m", "unj.3",
    "-m", "rbp.p=0.7", "-m", "recall.8",
]


def trial(rng):
    """Random qrels and run lines; returns (qrels, run, run_queries)."""
    qrels, run = [], []
    run_queries = set()
    for q in range(rng.randint(1, 6)):
        qid = f"q{rng.choice([q, q + 10, q * 7])}"
        docs = [f"d{i}" for i in range(rng.randint(3, 25))]
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        grades = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3, 4]) for d in judged}
        if all(g < 0 for g in grades.values()):
            grades[judged[0]] = rng.choice([0, 1, 2])
        in_qrels = rng.random() < 0.9
        in_run = rng.random() < 0.85 or not in_qrels
        if in_qrels:
            qrels += [f"{qid} 0 {d} {g}" for d, g in grades.items()]
        if in_run:
            run_queries.add(qid)
            retrieved = rng.sample(docs + [f"x{i}" for i in range(5)], rng.randint(1, len(docs)))
            base = rng.choice([0.3, 1.0, 12.5])
            for d in retrieved:
                kind = rng.random()
                if kind < 0.3:
                    score = base  # an exact tie
                elif kind < 0.45:
                    score = base + 1e-9  # a tie as f32, not as f64
                else:
                    score = round(rng.uniform(-2, 20), rng.choice([0, 1, 3, 6]))
                run.append(f"{qid} Q0 {d} 0 {score!r} tag{rng.randint(0, 1)}")
    rng.shuffle(run)
    run.sort(key=lambda line: line.split()[0])  # grouped by query, any order inside
    if not any(line.split()[0] in run_queries for line in qrels):
        return None
    return qrels, run, run_queries


def execute(program, args):
    result = subprocess.run(program + args, capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not TREC_EVAL:
        sys.exit("set TREC_EVAL to a trec_eval 10 binary (see the docstring)")
    if not os.path.exists(RANKEVAL):
        subprocess.run(["cargo", "build", "--release", "-p", "rankeval-runner"], cwd=ROOT, check=True)
    print(f"seed {args.seed}, {args.trials} trials, rankeval {RANKEVAL}, trec_eval {TREC_EVAL}")
    rng = random.Random(args.seed)
    compared = lines = refused = 0
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for t in range(args.trials):
            made = trial(rng)
            if made is None:
                continue
            qrels, run, run_queries = made
            paths = {name: os.path.join(tmp, name) for name in ["qrels", "qrels_run", "run"]}
            with open(paths["qrels"], "w") as f:
                f.write("\n".join(qrels) + "\n")
            with open(paths["qrels_run"], "w") as f:
                kept = [l for l in qrels if l.split()[0] in run_queries]
                f.write("\n".join(kept) + "\n")
            with open(paths["run"], "w") as f:
                f.write("\n".join(run) + "\n")
            for flags in FLAG_SETS + [PARAMS]:
                measures = [] if flags is PARAMS else ["-m", "all_trec"]
                complete = "-c" in flags
                trec_qrels = paths["qrels"] if complete else paths["qrels_run"]
                want = execute([TREC_EVAL], ["-q"] + measures + flags + [trec_qrels, paths["run"]])
                got = execute([RANKEVAL, "trec_eval"], ["-q"] + measures + flags + [paths["qrels"], paths["run"]])
                if want[0] != 0:
                    refused += 1
                    continue
                compared += 1
                lines += want[1].count("\n")
                if got[1] != want[1] or got[0] != 0:
                    diff = [(g, w) for g, w in zip(got[1].splitlines(), want[1].splitlines()) if g != w]
                    failures.append((t, flags, got[2], diff[:3]))
                    keep = os.environ.get("KEEP_FAILURES")
                    if keep:
                        os.makedirs(f"{keep}/{t}", exist_ok=True)
                        for name, path in paths.items():
                            with open(path) as src, open(f"{keep}/{t}/{name}", "w") as dst:
                                dst.write(src.read())
    print(f"{compared} comparisons, {lines} lines, identical in {compared - len(failures)}; "
          f"{refused} refused by trec_eval")
    for t, flags, stderr, diff in failures[:20]:
        print(f"trial {t} {' '.join(flags)}: {stderr.strip()} first differences (rankeval, trec_eval): {diff}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
