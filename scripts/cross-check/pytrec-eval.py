"""Randomized cross-check of rankeval against pytrec_eval (trec_eval's C code).

    python3 scripts/cross-check/pytrec-eval.py [--trials 300] [--seed 1]

Run by hand, not in CI. Needs `pip install pytrec-eval-terrier` and a
release build of rankeval (built here if missing; set RANKEVAL_BIN to
use another binary). Each trial generates
random qrels and a run with exact ties, near-equal scores, graded and
negative judgements, ids whose byte order matters ("d9" vs "d10"), queries
in only one of the two files, and evaluates them with both tools at
relevance levels 1 and 2. For every measure the two share, it reports the
largest difference over all queries and trials, and for gm_map and gm_bpref
(geometric means, trec_eval's convention for zeros) over all trials.

pytrec_eval (trec_eval 9) stores scores as f32: two scores that differ as
f64 but not as f32 are a tie for it, broken by document id, where rankeval
(like trec_eval 10 and the spec) keeps the f64 order. So every trial is
also evaluated by rankeval with the run's scores rounded to f32, which must
give exactly pytrec_eval's values; a difference on the f64 run counts as
explained only then. Any other difference is reported as unexplained.

With TREC_EVAL=/path/to/trec_eval (trec_eval 10, which keeps scores as
f64), every trial is also evaluated by trec_eval itself on the f64 run, and
rankeval's values must equal its printed ones to their 4 decimals; this
shows the f32 scores are the only source of the differences with pytrec_eval.

pytrec_eval-terrier 0.5.11 crashes (segfault) or hangs on some of these
inputs, so each of its evaluations runs in a child process with a timeout;
trials where it fails are counted and listed, not compared. trec_eval
refuses the same inputs (a query judged only with negative grades: "Can't
calculate measure"); those are listed too.
"""

import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# RANKEVAL_BIN overrides the binary; otherwise the release build under
# CARGO_TARGET_DIR (as cargo resolves it, from the workspace root) or target/.
BINARY = os.environ.get("RANKEVAL_BIN") or os.path.join(
    ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "rankeval"
)

# Optional trec_eval 10 binary to compare with as well (see above).
TREC_EVAL = os.environ.get("TREC_EVAL")

# rankeval metric (short syntax) -> pytrec_eval measure.
MEASURES = {
    "ap": "map",
    "ap@5": "map_cut_5",
    "ap@10": "map_cut_10",
    "p@5": "P_5",
    "p@10": "P_10",
    "p": "set_P",
    "recall@5": "recall_5",
    "recall@10": "recall_10",
    "recall": "set_recall",
    "rr": "recip_rank",
    "ndcg": "ndcg",
    "ndcg@5": "ndcg_cut_5",
    "ndcg@10": "ndcg_cut_10",
    "rprec": "Rprec",
    "bpref": "bpref",
    "success@1": "success_1",
    "success@5": "success_5",
    "f1": "set_F",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
}
# rankeval metric -> pytrec_eval measure whose per-query values are logs,
# and whose aggregate is exp(mean): compared with rankeval's `gmean`.
GEOMETRIC = {"ap": "gm_map", "bpref": "gm_bpref"}
FAMILIES = {
    "map", "map_cut", "P", "set_P", "recall", "set_recall", "recip_rank", "ndcg",
    "ndcg_cut", "Rprec", "bpref", "success", "set_F", "num_ret", "num_rel", "num_rel_ret",
    "gm_map", "gm_bpref",
}


def as_f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def generate(rng):
    """Random qrels and run as {query: {doc: grade}}, {query: {doc: score}}."""
    queries = [f"q{i}" for i in range(rng.randint(1, 12))]
    qrels, run = {}, {}
    for q in queries:
        pool = [f"d{i}" for i in rng.sample(range(1, 200), rng.randint(1, 40))]
        pool += rng.sample(["D1", "d1x", "d01", "d10", "d9", "a", "Z"], rng.randint(0, 3))
        pool = sorted(set(pool))
        if rng.random() < 0.9:
            judged = rng.sample(pool, rng.randint(1, len(pool)))
            qrels[q] = {d: rng.choice([-1, 0, 0, 0, 1, 1, 2, 3]) for d in judged}
            for _ in range(rng.randint(0, 5)):  # relevant, never retrieved
                qrels[q][f"x{rng.randint(0, 999)}"] = rng.choice([1, 2])
        if rng.random() < 0.9:
            retrieved = rng.sample(pool, rng.randint(1, len(pool)))
            scores = {}
            for d in retrieved:
                kind = rng.random()
                if kind < 0.4:
                    scores[d] = float(rng.randint(0, 6))  # exact ties
                elif kind < 0.5 and scores:
                    # Near-equal: equal as f32, different as f64.
                    scores[d] = rng.choice(list(scores.values())) + 1e-9
                else:
                    scores[d] = rng.uniform(-5, 5)
            run[q] = scores
    if not any(q in run for q in qrels):
        return generate(rng)
    return qrels, run


def write(qrels, run, directory, name="run.trec"):
    qrels_path = os.path.join(directory, "qrels.txt")
    run_path = os.path.join(directory, name)
    with open(qrels_path, "w") as f:
        for q, docs in qrels.items():
            for d, g in docs.items():
                f.write(f"{q} 0 {d} {g}\n")
    with open(run_path, "w") as f:
        for q, docs in run.items():
            for rank, (d, s) in enumerate(docs.items()):
                f.write(f"{q} Q0 {d} {rank} {s!r} run\n")
    return qrels_path, run_path


PYTREC = """
import json, sys, pytrec_eval
qrels, run, families, level = json.load(sys.stdin)
result = pytrec_eval.RelevanceEvaluator(qrels, set(families), relevance_level=level).evaluate(run)
json.dump(result, sys.stdout)
"""


def pytrec(qrels, run, level):
    """pytrec_eval's per-query values, or None if it crashes or hangs."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", PYTREC],
            input=json.dumps([qrels, run, sorted(FAMILIES), level]),
            capture_output=True, text=True, timeout=60,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        return None
    return json.loads(done.stdout)


def trec_eval(qrels_path, run_path, level):
    """trec_eval's printed per-query values, {measure: {query: value}}, or
    None if it fails."""
    args = [TREC_EVAL, "-q", "-l", str(level)]
    cutoffs = {"map_cut": ".5,10", "P": ".5,10", "recall": ".5,10", "ndcg_cut": ".5,10", "success": ".1,5"}
    for family in sorted(FAMILIES):
        if not family.startswith("gm_"):
            args += ["-m", family + cutoffs.get(family, "")]
    args += [qrels_path, run_path]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        return None
    values = {}
    for line in done.stdout.splitlines():
        measure, query, value = line.split()
        if query != "all":
            values.setdefault(measure, {})[query] = float(value)
    return values


def compare_with_trec_eval(qrels_path, run_path, level, ours, trial, state):
    """Compares rankeval's values `ours` with trec_eval's printed ones:
    the same queries, and every value within the print precision."""
    counts, worst, unexplained, failed = state
    printed = trec_eval(qrels_path, run_path, level)
    if printed is None:
        failed.append((trial, level))
        return
    for metric, measure in MEASURES.items():
        theirs = printed.get(measure, {})
        if set(theirs) != set(ours[metric]):
            counts["unexplained"] += 1
            unexplained.append((trial, level, "queries", metric, sorted(ours[metric]), f"trec_eval {sorted(theirs)}"))
        for q, value in theirs.items():
            if q not in ours[metric]:
                continue
            counts["trec_eval"] += 1
            diff = abs(ours[metric][q] - value)
            worst[metric] = max(worst[metric], diff)
            # Printed to 4 decimals: half a unit of the last one.
            if diff > 5e-5 + 1e-12:
                counts["unexplained"] += 1
                unexplained.append((trial, level, q, metric, ours[metric][q], f"trec_eval {value}"))


def rankeval(qrels_path, run_path, level):
    """rankeval's per-query values, {spec in MEASURES: {query: value}}, and
    geometric means, {spec in GEOMETRIC: value}."""
    args = [BINARY, "eval", "--qrels", qrels_path, "--run", run_path, "--rel", str(level),
            "--format", "json", "--per-query", "-a", "mean", "-a", "gmean"]
    for metric in MEASURES:
        args += ["-m", metric]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    report = json.loads(out)["runs"][0]
    # Metrics come back under their canonical names, in the order given.
    names = list(report["metrics"])
    assert len(names) == len(MEASURES), names
    per_query = report.get("per_query", {})
    by_spec = dict(zip(MEASURES, names))
    geometric = {spec: report["metrics"][by_spec[spec]]["gmean"] for spec in GEOMETRIC}
    return {spec: per_query.get(name, {}) for spec, name in by_spec.items()}, geometric


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    try:
        import pytrec_eval  # noqa: F401  (used in child processes)
    except ImportError:
        sys.exit("pytrec_eval is not installed: pip install pytrec-eval-terrier")
    if not os.path.exists(BINARY):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)

    rng = random.Random(options.seed)
    worst = {m: 0.0 for m in MEASURES}
    worst_f32 = {m: 0.0 for m in MEASURES}
    worst_geometric = {m: 0.0 for m in GEOMETRIC}
    counts = {"compared": 0, "explained": 0, "unexplained": 0, "trec_eval": 0}
    worst_trec_eval = {m: 0.0 for m in MEASURES}
    unexplained = []
    pytrec_failed = []
    trec_eval_failed = []
    state = (counts, worst_trec_eval, unexplained, trec_eval_failed)
    with tempfile.TemporaryDirectory() as directory:
        for trial in range(options.trials):
            qrels, run = generate(rng)
            rounded = {q: {d: as_f32(s) for d, s in docs.items()} for q, docs in run.items()}
            qrels_path, run_path = write(qrels, run, directory)
            _, rounded_path = write(qrels, rounded, directory, "rounded.trec")
            for level in (1, 2):
                ours, _ = rankeval(qrels_path, run_path, level)
                if TREC_EVAL:
                    compare_with_trec_eval(qrels_path, run_path, level, ours, trial, state)
                theirs = pytrec(qrels, run, level)
                if theirs is None:
                    pytrec_failed.append((trial, level))
                    continue
                ours_f32, geometric_f32 = rankeval(qrels_path, rounded_path, level)
                for metric, measure in GEOMETRIC.items():
                    logs = [per_query[measure] for per_query in theirs.values()]
                    if logs:
                        expected = math.exp(sum(logs) / len(logs))
                        diff = abs(geometric_f32[metric] - expected)
                        worst_geometric[metric] = max(worst_geometric[metric], diff)
                        if diff > 1e-9:
                            counts["unexplained"] += 1
                            unexplained.append((trial, level, "all", GEOMETRIC[metric], geometric_f32[metric], expected))
                for metric, measure in MEASURES.items():
                    for q, per_query in theirs.items():
                        counts["compared"] += 1
                        diff = abs(ours[metric][q] - per_query[measure])
                        diff_f32 = abs(ours_f32[metric][q] - per_query[measure])
                        worst[metric] = max(worst[metric], diff)
                        worst_f32[metric] = max(worst_f32[metric], diff_f32)
                        if diff_f32 > 1e-9:
                            counts["unexplained"] += 1
                            unexplained.append((trial, level, q, metric, ours_f32[metric][q], per_query[measure]))
                        elif diff > 1e-9:
                            counts["explained"] += 1
    print(f"{options.trials} trials x 2 relevance levels; {counts['compared']} (metric, query) values compared")
    print(f"differences explained by pytrec_eval's f32 scores: {counts['explained']}; unexplained: {counts['unexplained']}")
    if TREC_EVAL:
        print(f"{counts['trec_eval']} (metric, query) values compared with trec_eval (f64 scores, 4 printed decimals)")
    if trec_eval_failed:
        print(f"trec_eval failed on {len(trec_eval_failed)} (trial, level) pairs, not compared: {trec_eval_failed}")
    if pytrec_failed:
        print(f"pytrec_eval crashed or hung on {len(pytrec_failed)} (trial, level) pairs, not compared: {pytrec_failed}")
    print()
    te = f" {'vs trec_eval':>13}" if TREC_EVAL else ""
    print(f"{'rankeval':<12} {'pytrec_eval':<12} {'largest difference':>20} {'with f32 scores':>16}{te}")
    for metric, measure in MEASURES.items():
        te = f" {worst_trec_eval[metric]:>13.3g}" if TREC_EVAL else ""
        print(f"{metric:<12} {measure:<12} {worst[metric]:>20.3g} {worst_f32[metric]:>16.3g}{te}")
    for metric, measure in GEOMETRIC.items():
        label = f"{metric} gmean"
        print(f"{label:<12} {measure:<12} {'':>20} {worst_geometric[metric]:>16.3g}")
    for case in unexplained[:20]:
        print("unexplained (trial, level, query, metric, rankeval, pytrec_eval):", case)
    return 1 if counts["unexplained"] else 0


if __name__ == "__main__":
    sys.exit(main())
