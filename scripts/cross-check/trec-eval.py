"""Randomized byte-for-byte cross-check of `rankeval trec_eval` against a
trec_eval 10 binary built from its source.

    TREC_EVAL=target/trec_eval-src/trec_eval-O0 \
        python3 scripts/cross-check/trec-eval.py [--trials 200] [--seed 1]

Run by hand, not in CI. Build trec_eval under target/ (never commit its
code): fetch https://github.com/usnistgov/trec_eval into
target/trec_eval-src and run `make CFLAGS='-O0 -g -I. -DVERSIONID=\"10.0\"'`
there. Use a build without optimisation: built with -O3, trec_eval's `rbp`
reads uninitialized memory (m_rbp.c's `min` and `max`) and prints other
numbers than its own test suite expects.

Each trial writes random qrels and a run: exact ties, scores equal as f32
but not f64, graded (0-4) and negative (-1) judgements, unjudged documents,
ids whose byte order matters ("d9" vs "d10"), queries only in the run, and
(for `-c`) queries only in the qrels. It runs `-m all_trec` with each of
the FLAG_SETS below (with and without `-q`; `-c`, `-l2`, `-M`, `-J`, `-n`
and their combinations), a parameter set (`-m P.3,7 -m ndcg_cut.4
-m iprec_at_recall..25,.5 ...`), and `-Z` z-scores, with both programs, and
requires identical stdout, line for line. With --comments, both files get
comment lines as trec_eval 10 skips them (see RUN_COMMENTS and
QRELS_COMMENTS: an ir_metadata header, comments in the middle and at the
end of the run after any whitespace, and in qrels one `#` line at a time,
never the last). It prints, per flag set, the
comparisons and the identical lines.

trec_eval 10 stops with "result qid not found in qrels" on a qrels query
the run lacks unless `-c` is given; rankeval leaves such a query out (with
a warning). So without `-c`, trec_eval gets the qrels of the run's queries
only.

`-Z`: each trial writes a z-score file from trec_eval's own per-query
values: random means and deviations, a deviation of 0 with the value as
the mean (z = 0) or another mean (-1000000), and queries and measures left
out (-1000000). trec_eval's lookups (convert_zscores.c) search one element
past each array, so a query or measure left out that sorts after every
other would read past the query's measures (or the end of the array): each
query gets a last measure `~~` and the file a last query `~~`, which keeps
its searches inside the arrays; see docs/trec_eval.md.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RANKEVAL = os.environ.get("RANKEVAL_BIN") or os.path.join(
    ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "rankeval"
)
TREC_EVAL = os.environ.get("TREC_EVAL")

# Each runs with -m all_trec; "-Z" is replaced by the trial's z-score file.
FLAG_SETS = [
    ["-q"],
    [],
    ["-q", "-c"],
    ["-c"],
    ["-q", "-l2"],
    ["-q", "-M5"],
    ["-q", "-M1", "-l3"],
    ["-q", "-J"],
    ["-q", "-c", "-l2", "-J"],
    ["-q", "-n", "-c", "-M3"],
    ["-q", "-Z"],
    ["-Z"],
    ["-q", "-c", "-Z"],
    ["-q", "-J", "-l2", "-Z"],
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


def zscore_file(rng, trec_eval_output, path):
    """A z-score file for the queries and measures of trec_eval's `-q`
    output (values as printed), with some left out."""
    lines = []
    queries = {}
    for line in trec_eval_output.splitlines():
        name, qid, value = line.split("\t")
        name = name.strip()
        if name in ("runid", "relstring") or name.startswith("relstring"):
            continue
        queries.setdefault(qid, []).append((name, value))
    for qid, values in queries.items():
        if qid == "all" or rng.random() < 0.15:
            continue  # the summary; a query the file lacks
        for name, value in values + [("gm_map", "-3"), ("gm_bpref", "-2.5")]:
            kind = rng.random()
            if kind < 0.1:
                continue  # a measure the file lacks
            elif kind < 0.2:
                lines.append(f"{qid} {name} {value} 0")  # z = 0 if exact
            elif kind < 0.25:
                lines.append(f"{qid} {name} {value}1 0")  # -1000000
            else:
                mean = round(rng.uniform(-1, 2), rng.choice([1, 3, 6]))
                stddev = round(rng.uniform(0.01, 3), rng.choice([2, 5]))
                if rng.random() < 0.1:
                    stddev = -stddev
                lines.append(f"{qid}\t{name}  {mean}   {stddev}")
        lines.append(f"{qid} ~~ 0 1")
    lines.append("~~ map 0 1")
    rng.shuffle(lines)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def execute(program, args):
    result = subprocess.run(program + args, capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


# Comment lines trec_eval 10 skips (--comments). In a run: any line whose
# first byte other than C's isspace is `#` (get_trec_results.c), any number
# in a row, anywhere: an ir_metadata header and comments after whitespace.
RUN_HEADER = ["# ir_metadata.start", "# tag: bm25", "# actor:", "#   team: x",
              "# ir_metadata.end"]
RUN_COMMENTS = ["# a comment", "  # after spaces", "\t# after a tab", "\r# after CR",
                "\x0b\x0c# after VT FF", "#", "# q1 Q0 d1 1 2.0 shaped-like-a-line"]
# In qrels, trec_eval 10 (get_qrels.c) skips only a line whose first byte is
# `#`, one at a time (the line after one is read as data) and not the last
# line (past it, it reads past the file's buffer): so one at a time, never
# last, `#` first.
QRELS_COMMENTS = ["# judged by NIST", "#", "# q1 0 d1 1", "#\tgrades 0-4"]


def with_comments(rng, lines, run):
    """`lines` with comment lines trec_eval 10 skips inserted."""
    out = list(RUN_HEADER) if run else [rng.choice(QRELS_COMMENTS)]
    for line in lines:
        out.append(line)
        if rng.random() < 0.1:
            if run:
                out.extend(rng.choice(RUN_COMMENTS) for _ in range(rng.randint(1, 3)))
            else:
                out.append(rng.choice(QRELS_COMMENTS))
    if not run and out[-1].startswith("#"):
        out.pop()
    elif run:
        out.append("# the end")
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--comments", action="store_true",
                        help="insert comment lines as trec_eval 10 skips them in both files")
    args = parser.parse_args()
    if not TREC_EVAL:
        sys.exit("set TREC_EVAL to a trec_eval 10 binary (see the docstring)")
    if not os.path.exists(RANKEVAL):
        subprocess.run(["cargo", "build", "--release", "-p", "rankeval-cli"], cwd=ROOT, check=True)
    print(f"seed {args.seed}, {args.trials} trials, rankeval {RANKEVAL}, trec_eval {TREC_EVAL}")
    rng = random.Random(args.seed)
    # Comments come from a generator of their own: the trials' files are the
    # same with and without --comments.
    comments = random.Random(args.seed + 0x5EED)
    compared = lines = identical_lines = refused = 0
    per_set = {}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for t in range(args.trials):
            made = trial(rng)
            if made is None:
                continue
            qrels, run, run_queries = made
            paths = {name: os.path.join(tmp, name) for name in ["qrels", "qrels_run", "run"]}
            kept = [l for l in qrels if l.split()[0] in run_queries]
            written_run = run
            if args.comments:
                qrels, kept = with_comments(comments, qrels, False), with_comments(comments, kept, False)
                written_run = with_comments(comments, run, True)
            with open(paths["qrels"], "w") as f:
                f.write("\n".join(qrels) + "\n")
            with open(paths["qrels_run"], "w") as f:
                f.write("\n".join(kept) + "\n")
            with open(paths["run"], "w") as f:
                f.write("\n".join(written_run) + "\n")
            base = execute([TREC_EVAL], ["-q", "-c", "-m", "all_trec", paths["qrels"], paths["run"]])
            if base[0] != 0:
                refused += len(FLAG_SETS) + 1
                continue
            zpath = os.path.join(tmp, "zscores")
            zscore_file(rng, base[1], zpath)
            for flags in FLAG_SETS + [PARAMS]:
                is_params = flags is PARAMS
                key = "params" if is_params else " ".join(flags)
                measures = ["-q"] if is_params else ["-m", "all_trec"]
                flags = [a for f in flags for a in (["-Z", zpath] if f == "-Z" else [f])]
                complete = "-c" in flags
                trec_qrels = paths["qrels"] if complete else paths["qrels_run"]
                args_ = measures + flags
                want = execute([TREC_EVAL], args_ + [trec_qrels, paths["run"]])
                got = execute([RANKEVAL, "trec_eval"], args_ + [paths["qrels"], paths["run"]])
                if want[0] != 0:
                    refused += 1
                    continue
                compared += 1
                stats = per_set.setdefault(key, [0, 0, 0])
                stats[0] += 1
                want_lines, got_lines = want[1].splitlines(), got[1].splitlines()
                same = sum(g == w for g, w in zip(got_lines, want_lines))
                lines += len(want_lines)
                identical_lines += same if len(got_lines) == len(want_lines) else 0
                stats[1] += len(want_lines)
                stats[2] += same if len(got_lines) == len(want_lines) else 0
                if got[1] != want[1] or got[0] != 0:
                    diff = [(g, w) for g, w in zip(got_lines, want_lines) if g != w]
                    failures.append((t, key, got[2], diff[:3]))
                    keep = os.environ.get("KEEP_FAILURES")
                    if keep:
                        os.makedirs(f"{keep}/{t}", exist_ok=True)
                        for name, path in list(paths.items()) + [("zscores", zpath)]:
                            with open(path) as src, open(f"{keep}/{t}/{name}", "w") as dst:
                                dst.write(src.read())
    for key, (n, total, same) in per_set.items():
        print(f"  -m {'all_trec ' if key != 'params' else ''}{key}: {n} comparisons, {same} of {total} lines identical")
    print(f"{compared} comparisons, {lines} lines, {identical_lines} identical; "
          f"{compared - len(failures)} comparisons identical; {refused} refused by trec_eval")
    for t, flags, stderr, diff in failures[:20]:
        print(f"trial {t} {flags}: {stderr.strip()} first differences (rankeval, trec_eval): {diff}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
