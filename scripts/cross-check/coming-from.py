"""Measures where the defaults of BEIR (pytrec_eval), ranx, ir_measures,
Kaggle's MAP@K and trec_eval give other numbers than rankeval's on the same
files: the numbers of docs/coming-from/*.md, reproducible.

    python3 scripts/cross-check/coming-from.py [--queries 200] [--seed 7]

Run by hand, not in CI. Needs, from PyPI: `pip install ir_measures
pytrec-eval-terrier ranx numpy` and `pip install --no-deps beir` (its
`beir.retrieval.evaluation` imports pytrec_eval and nothing heavy), and a
build of rankeval (RANKEVAL_BIN, else target/release/rankeval, else
target/debug).

Three measurements, each printed as a table:

1. Missing queries. Random graded qrels (grades 0-2) for `--queries`
   queries and a run with distinct scores that lacks every tenth judged
   query: nDCG@10 as each tool averages it by default (ir_measures: a
   judged query missing from the run scores 0; BEIR/pytrec_eval: the
   run's queries only; ranx; rankeval: skipped unless `--missing zero`).
2. Identical ids. beir-cellar/beir#187's toy (query `0`, relevant `0`..`9`,
   a run retrieving exactly them): nDCG@10 under BEIR's
   `EvaluateRetrieval.evaluate` (`ignore_identical_ids` on by default) and
   off, and rankeval with and without `--drop-identical-ids`.
3. Ties and MAP@10 on rounded scores. The same qrels, a run whose scores
   are rounded to one decimal (many ties) and whose lines are in a random
   order: MAP@10 as trec_eval/pytrec_eval (`map_cut_10`: ties by document
   id descending, divided by |R|), ir_measures `AP@10`, ranx `map@10`,
   Kaggle's `apk` (benhamner/Metrics `ml_metrics/average_precision.py`,
   written out below: the list as sorted by score, ties in input order,
   divided by min(|R|, k)), and rankeval's `ap@10` and
   `ap(norm=truncated)@10` under `--ties docid`, `input` and `average`;
   then the same run with the scores unrounded (no ties), which separates
   what ties do from what the denominator does.

Asserts the equalities the pages state (rankeval equals each tool once its
convention is given: `--missing zero` = ir_measures, `--ties docid` ap@10
= pytrec_eval's map_cut_10, `ap(norm=truncated)@10 --ties input` =
Kaggle's apk, `--drop-identical-ids` = BEIR) within 1e-9 (ir_measures and
BEIR round nothing; pytrec_eval reads scores as f32, harmless at one
decimal), and exits 1 on a difference.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

import ir_measures
import pytrec_eval
from ir_measures import AP, nDCG
from ranx import Qrels, Run, evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def binary():
    if os.environ.get("RANKEVAL_BIN"):
        return os.environ["RANKEVAL_BIN"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "rankeval")
        if os.path.exists(path):
            return path
    sys.exit("build rankeval first (cargo build --release) or set RANKEVAL_BIN")


def rankeval(qrels_path, run_path, metrics, *extra):
    """Each metric's mean, as `rankeval eval` prints it in JSON."""
    args = [binary(), "eval", "--qrels", qrels_path, "--run", run_path, "--format", "json"]
    for m in metrics:
        args += ["-m", m]
    out = subprocess.run(args + list(extra), check=True, capture_output=True, text=True).stdout
    return {m: v["mean"] for m, v in json.loads(out)["runs"][0]["metrics"].items()}


def write_qrels(path, qrels):
    with open(path, "w") as f:
        for q, grades in qrels.items():
            for d, g in grades.items():
                f.write(f"{q} 0 {d} {g}\n")


def write_run(path, run, order):
    """`order[q]`: the documents in the order their lines are written."""
    with open(path, "w") as f:
        for q in run:
            for rank, d in enumerate(order[q], 1):
                f.write(f"{q} Q0 {d} {rank} {run[q][d]} r\n")


def apk(actual, predicted, k=10):
    """Kaggle's MAP@K: ml_metrics.average_precision.apk (benhamner/Metrics),
    as written there."""
    if len(predicted) > k:
        predicted = predicted[:k]
    score = 0.0
    num_hits = 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            num_hits += 1.0
            score += num_hits / (i + 1.0)
    if not actual:
        return 0.0
    return score / min(len(actual), k)


def generate(rng, queries):
    pool = [f"d{i:04d}" for i in range(3000)]
    qrels, run = {}, {}
    for q in range(queries):
        qid = f"q{q:03d}"
        judged = rng.sample(pool, rng.randint(3, 40))
        grades = {d: rng.choice([0, 0, 1, 2]) for d in judged}
        grades[judged[0]] = rng.choice([1, 2])
        qrels[qid] = grades
        own = rng.sample(judged, rng.randint(0, len(judged)))
        others = [d for d in rng.sample(pool, rng.randint(5, 60)) if d not in grades]
        retrieved = own + others
        scores = rng.sample(range(1, 100000), len(retrieved))
        run[qid] = {d: s / 100000.0 for d, s in zip(retrieved, scores)}
    return qrels, run


def check(failed, what, got, want, tolerance=1e-9):
    ok = abs(got - want) <= tolerance
    print(f"  {'ok ' if ok else 'DIFF'} {what}: {got:.6f} vs {want:.6f}")
    return failed or not ok


def missing_queries(tmp, qrels, full_run):
    print("1. Missing queries: nDCG@10, every tenth judged query absent from the run")
    run = {q: docs for i, (q, docs) in enumerate(full_run.items()) if i % 10 != 3}
    qrels_path, run_path = os.path.join(tmp, "qrels"), os.path.join(tmp, "run-missing")
    write_qrels(qrels_path, qrels)
    write_run(run_path, run, {q: sorted(run[q], key=lambda d: -run[q][d]) for q in run})
    irm = ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    beir = sum(v["ndcg_cut_10"] for v in per_query.values()) / len(per_query)
    try:
        evaluate(Qrels.from_dict(qrels), Run.from_dict(run), "ndcg@10")
        print("  ranx evaluate accepted a run without every judged query")
    except AssertionError as error:
        print(f"  ranx evaluate (default) refuses: {str(error).split('.')[0]}")
    ranx = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), "ndcg@10", make_comparable=True)
    skip = rankeval(qrels_path, run_path, ["ndcg@10"])["ndcg@10"]
    zero = rankeval(qrels_path, run_path, ["ndcg@10"], "--missing", "zero")["ndcg@10"]
    print(f"  judged queries {len(qrels)}, in the run {len(run)}")
    for name, value in [
        ("ir_measures calc_aggregate", irm),
        ("BEIR (pytrec_eval, mean over the run's queries)", beir),
        ("ranx evaluate(make_comparable=True)", ranx),
        ("rankeval (default: --missing skip)", skip),
        ("rankeval --missing zero", zero),
    ]:
        print(f"  {name:50} {value:.4f}")
    failed = check(False, "rankeval --missing zero = ir_measures", zero, irm)
    failed = check(failed, "rankeval default = BEIR's mean", skip, beir)
    return check(failed, "rankeval --missing zero = ranx make_comparable", zero, ranx)


def identical_ids(tmp):
    print("2. Identical ids: beir-cellar/beir#187's toy, nDCG@10")
    qrels = {"0": {str(d): 1 for d in range(10)}}
    run = {"0": {str(d): float(10 - d) for d in range(10)}}
    qrels_path, run_path = os.path.join(tmp, "qrels-toy"), os.path.join(tmp, "run-toy")
    write_qrels(qrels_path, qrels)
    write_run(run_path, run, {"0": [str(d) for d in range(10)]})
    try:
        from beir.retrieval.evaluation import EvaluateRetrieval

        # BEIR drops the identical ids from the dict it is given: a copy each.
        copy = lambda: {q: dict(docs) for q, docs in run.items()}  # noqa: E731
        dropped = EvaluateRetrieval.evaluate(qrels, copy(), [10])[0]["NDCG@10"]
        kept = EvaluateRetrieval.evaluate(qrels, copy(), [10], ignore_identical_ids=False)[0][
            "NDCG@10"
        ]
        source = "BEIR EvaluateRetrieval.evaluate"
    except ImportError as error:
        print(f"  (BEIR not importable: {error}; its rule applied by hand to pytrec_eval)")
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
        without = {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}
        dropped = round(evaluator.evaluate(without)["0"]["ndcg_cut_10"], 5)
        kept = round(evaluator.evaluate(run)["0"]["ndcg_cut_10"], 5)
        source = "pytrec_eval, identical ids dropped by hand"
    ours = rankeval(qrels_path, run_path, ["ndcg@10"], "--drop-identical-ids")["ndcg@10"]
    plain = rankeval(qrels_path, run_path, ["ndcg@10"])["ndcg@10"]
    for name, value in [
        (f"{source} (default)", dropped),
        (f"{source}, ignore_identical_ids=False", kept),
        ("rankeval --drop-identical-ids", ours),
        ("rankeval (default)", plain),
    ]:
        print(f"  {name:58} {value:.6f}")
    # BEIR rounds to 5 decimals.
    failed = check(False, "rankeval --drop-identical-ids = BEIR", ours, dropped, 5e-6)
    return check(failed, "rankeval default = BEIR ignore_identical_ids=False", plain, kept, 5e-6)


def ties(tmp, qrels, full_run, rng, rounded):
    label = "rounded to 0.1" if rounded else "unrounded (no ties)"
    print(f"3. MAP@10, scores {label}, lines in a random order")
    run = {
        q: {d: (round(s * 10) / 10 if rounded else s) for d, s in docs.items()}
        for q, docs in full_run.items()
    }
    order = {}
    for q, docs in run.items():
        shuffled = list(docs)
        rng.shuffle(shuffled)
        order[q] = shuffled
    qrels_path = os.path.join(tmp, "qrels")
    run_path = os.path.join(tmp, f"run-ties-{rounded}")
    write_qrels(qrels_path, qrels)
    write_run(run_path, run, order)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut.10"}).evaluate(run)
    trec = sum(trec[q]["map_cut_10"] for q in qrels) / len(qrels)
    irm = ir_measures.calc_aggregate([AP @ 10], qrels, run)[AP @ 10]
    ranx = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), "map@10")
    kaggle = []
    for q in qrels:
        # As a Kaggle kernel does: the lines as read, sorted by score
        # (Python's sort is stable: ties keep the file's order).
        ranked = sorted(order[q], key=lambda d: -run[q][d])
        relevant = [d for d, g in qrels[q].items() if g > 0]
        kaggle.append(apk(relevant, ranked, 10))
    kaggle = sum(kaggle) / len(kaggle)
    ours = {}
    for ties_rule in ("docid", "input", "average"):
        ours[ties_rule] = rankeval(
            qrels_path, run_path, ["ap@10", "ap(norm=truncated)@10"], "--ties", ties_rule
        )
    rows = [
        ("trec_eval/pytrec_eval map_cut_10 (ties: doc id desc, /|R|)", trec),
        ("ir_measures AP@10", irm),
        ("ranx map@10", ranx),
        ("Kaggle apk@10 (ties: input order, /min(|R|,10))", kaggle),
    ]
    for ties_rule, values in ours.items():
        rows.append((f"rankeval ap@10 --ties {ties_rule}", values["ap@10"]))
        rows.append(
            (f"rankeval ap(norm=truncated)@10 --ties {ties_rule}", values["ap(norm=truncated)@10"])
        )
    for name, value in rows:
        print(f"  {name:62} {value:.4f}")
    failed = check(False, "rankeval ap@10 --ties docid = pytrec_eval", ours["docid"]["ap@10"], trec)
    failed = check(failed, "rankeval ap@10 --ties docid = ir_measures", ours["docid"]["ap@10"], irm)
    return check(
        failed,
        "rankeval ap(norm=truncated)@10 --ties input = Kaggle apk",
        ours["input"]["ap(norm=truncated)@10"],
        kaggle,
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    qrels, run = generate(rng, args.queries)
    from importlib.metadata import PackageNotFoundError, version

    def installed(name):
        try:
            return version(name)
        except PackageNotFoundError:
            return "not installed"

    print(
        ", ".join(f"{n} {installed(n)}" for n in ("ir_measures", "pytrec_eval-terrier", "ranx", "beir"))
        + f"; seed {args.seed}, {args.queries} queries"
    )
    with tempfile.TemporaryDirectory() as tmp:
        failed = missing_queries(tmp, qrels, run)
        failed |= identical_ids(tmp)
        failed |= ties(tmp, qrels, run, rng, rounded=True)
        failed |= ties(tmp, qrels, run, rng, rounded=False)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
