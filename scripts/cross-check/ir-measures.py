"""Randomized cross-check of rankeval's reading of ir_measures' names
(crates/core/src/ir_measures.rs) against ir_measures itself.

    python3 scripts/cross-check/ir-measures.py [--trials 20] [--seed 1]

Run by hand, not in CI. Needs `pip install ir_measures pytrec-eval-terrier cwl-eval`
and a rankeval binary (RANKEVAL_BIN, else the release build under
CARGO_TARGET_DIR or target/, built if missing).

Each trial generates random qrels and a run (seeded `random.Random`, the
seed printed): grades 0 to 3, queries judged but missing from the run,
queries in the run but not judged, queries with no relevant document,
unjudged documents in the run, lists shorter and longer than the cutoffs.
Scores are distinct multiples of 1/64 below 2^18, exact in f32, since
pytrec_eval (which ir_measures calls for most measures) keeps scores as
f32 and breaks f32 ties by document id where rankeval keeps f64 (see
pytrec-eval.py). Every name in NAMES is evaluated by ir_measures
(`iter_calc` per query, `calc_aggregate`) and by `rankeval eval -m NAME
--missing zero` (ir_measures scores a judged query missing from the run
as 0; rankeval leaves it out unless --missing zero). The per-query values
and the aggregates must agree within 1e-12; ir_measures sums NumRet,
NumRelRet and NumRel over queries, so those aggregates are compared with
rankeval's mean times its number of queries. Any difference fails the
script (exit 1) and is listed, but one: IPrec, whose defined difference
is trec_eval's. ir_measures computes IPrec@x with pytrec_eval (trec_eval
9), which needs (long)(x * |R| + 0.9) relevant documents; rankeval, as
trec_eval 10 (m_iprec_at_recall.c, "change uses of int truncation to
round"), needs lround(x * |R|). A query where the two counts differ is
counted as explained (with its aggregate), not compared; any other
difference fails. ir_measures also scores NumRel of a judged query
missing from the run 0 (every measure of such a query is 0), where
rankeval counts its relevant documents: those queries are counted as
explained when ir_measures gives 0, and the sum is compared over the
queries of the run.

ERR@k and nDCG(dcg='exp-log2')@k are computed by ir_measures with
gdeval.pl, which prints 5 decimals: each per-query value must equal
rankeval's printed the same way ("%.5f"), and the aggregate (a mean of
rounded values) be within 5e-6; they need perl and numeric query ids,
which the generator writes.

Names ir_measures cannot compute here (a provider not installed, e.g. ranx
for nDCG(dcg=exp-log2)) are listed as skipped, not compared.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("RANKEVAL_BIN") or os.path.join(
    ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "rankeval"
)

# Every mapped ir_measures name, spelled as ir_measures spells it, with
# the parameters that change the mapping.
NAMES = [
    "AP", "MAP", "AP@10", "AP(rel=2)", "AP(rel=2)@5", "AP(judged_only=True)",
    "P@1", "P@5", "P@10", "Precision@10", "P(rel=2)@10", "P(judged_only=True)@10",
    "R@5", "R@100", "Recall@10", "R(rel=2)@100",
    "RR", "MRR", "RR@10", "RR(rel=2)", "RR(rel=2)@10", "RR(judged_only=True)",
    "nDCG", "NDCG@10", "nDCG@5", "nDCG@10", "nDCG(dcg='log2')@10",
    "nDCG(judged_only=True)@10", "nDCG(dcg='exp-log2')@10",
    "ERR@5", "ERR@10", "ERR@20",
    "Success@1", "Success@5", "Success(rel=2)@10",
    "Judged", "Judged@5", "Judged@10",
    "Rprec", "RPrec", "Rprec(rel=2)", "Bpref", "BPref", "Bpref(rel=2)",
    "infAP", "infAP(rel=2)",
    "IPrec@0.0", "IPrec@0.2", "IPrec@1.0", "IPrec(rel=2)@0.5",
    "SetP", "SetP(rel=2)", "SetP(relative=True)", "SetRelP", "SetR", "SetR(rel=2)",
    "SetF", "SetF(beta=2.0)", "SetAP",
    "NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRelRet", "NumRel", "NumRel(rel=2)",
    # cwl-eval's C/W/L measures (`pip install cwl-eval`) and Compat.
    "INST(T=1.0,max_rel=1)", "INST(T=2.0,max_rel=3)", "INSQ(T=1.0,max_rel=3)",
    "NERR8(max_rel=3)@10", "NERR9(max_rel=1)@5", "NERR10(p=0.8,max_rel=3)",
    "NERR11(T=2.0,min_rel=1,max_rel=3)", "Compat", "Compat(p=0.8)", "Compat(normalize=False)",
    "BPM(max_rel=1)@10", "BPM(T=1.5,max_rel=3)@5", "BPM(T=1000.0,min_rel=1,max_rel=3)@20",
    "SDCG(max_rel=1)@10", "SDCG(max_rel=3)@5", "SDCG(dcg='log2',min_rel=1,max_rel=2)@20",
]
# ir_measures aggregates these by summing over queries.
SUMMED = ("NumRet", "NumRelRet", "NumRel")
TOLERANCE = 1e-12
# ir_measures computes these with gdeval.pl, which prints 5 decimals.
GDEVAL = ("ERR", "nDCG(dcg='exp-log2')")
GDEVAL_TOLERANCE = 5e-6


def generate(rng):
    """Random qrels {q: {d: grade}} and run {q: {d: score}}."""
    qrels, run = {}, {}
    for q in range(rng.randint(3, 12)):
        query = str(100 + q)  # gdeval.pl (ERR, exp-log2 nDCG) wants numbers
        docs = [f"d{d}" for d in range(rng.randint(1, 40))]
        shape = rng.random()
        if shape > 0.1:  # judged (else: only in the run)
            judged = rng.sample(docs, rng.randint(1, len(docs)))
            no_relevant = rng.random() < 0.1
            qrels[query] = {d: 0 if no_relevant else rng.choice([0, 0, 1, 1, 2, 3]) for d in judged}
        if shape < 0.9 or query not in qrels:  # in the run (else: judged only)
            ranked = rng.sample(docs, rng.randint(1, len(docs)))
            ranked += [f"u{d}" for d in range(rng.randint(0, 5))]  # never judged
            scores = rng.sample(range(1 << 24), len(ranked))
            run[query] = {d: s / 64 for d, s in zip(ranked, scores)}
    if not run:
        run["q0"] = {"d0": 1.0}
    return qrels, run


def write(directory, qrels, run):
    qrels_path = os.path.join(directory, "qrels")
    run_path = os.path.join(directory, "run")
    with open(qrels_path, "w") as f:
        for q, docs in qrels.items():
            for d, g in docs.items():
                f.write(f"{q} 0 {d} {g}\n")
    with open(run_path, "w") as f:
        for q, docs in run.items():
            for rank, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1])):
                f.write(f"{q} Q0 {d} {rank + 1} {s!r} r\n")
    return qrels_path, run_path


def ir_measures_values(ir_measures, name, qrels, run):
    measure = ir_measures.parse_measure(name)
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    aggregate = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    return per_query, aggregate


def rankeval_values(name, qrels_path, run_path):
    args = [BINARY, "eval", "--qrels", qrels_path, "--run", run_path, "-m", name,
            "--missing", "zero", "--format", "json", "--per-query"]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"rankeval -m {name}: {done.stderr.strip()}")
    report = json.loads(done.stdout)["runs"][0]
    [metric] = list(report["metrics"])
    per_query = report.get("per_query", {}).get(metric, {})
    return per_query, report["metrics"][metric]["mean"], metric


def iprec_counts_differ(name, judged):
    """Whether IPrec `name` needs a different count of relevant documents
    under trec_eval 9's (long)(x |R| + 0.9) and trec_eval 10's lround(x |R|)."""
    if not name.startswith("IPrec"):
        return False
    level = float(name.rsplit("@", 1)[1])
    rel = 2 if "rel=2" in name else 1
    relevant = sum(1 for g in judged.values() if g >= rel)
    x = level * relevant
    return int(x + 0.9) != math.floor(x + 0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    try:
        import ir_measures
    except ImportError:
        sys.exit("ir_measures is not installed: pip install ir_measures pytrec-eval-terrier")
    if not os.path.exists(BINARY):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    print(f"seed {options.seed}, {options.trials} trials, ir_measures {ir_measures.__version__}")
    rng = random.Random(options.seed)
    worst = {name: 0.0 for name in NAMES}
    canonical = {}
    skipped = {}
    failures = []
    compared = 0
    explained = 0
    with tempfile.TemporaryDirectory() as directory:
        for trial in range(options.trials):
            qrels, run = generate(rng)
            qrels_path, run_path = write(directory, qrels, run)
            for name in NAMES:
                if name in skipped:
                    continue
                try:
                    theirs, their_aggregate = ir_measures_values(ir_measures, name, qrels, run)
                except Exception as error:  # a provider not installed
                    skipped[name] = str(error).splitlines()[0]
                    continue
                try:
                    ours, our_mean, canonical[name] = rankeval_values(name, qrels_path, run_path)
                except RuntimeError as error:
                    failures.append((trial, name, "(refused)", None, str(error)))
                    continue
                our_aggregate = our_mean
                if name.startswith(SUMMED):
                    our_aggregate = our_mean * len(ours)
                pairs = [(q, theirs.get(q), ours.get(q)) for q in sorted(set(theirs) | set(ours))]
                rounded_apart = [q for q, _, _ in pairs if iprec_counts_differ(name, qrels.get(q, {}))]
                if name.startswith("NumRel") and not name.startswith("NumRelRet"):
                    # ir_measures' 0 for a judged query missing from the run.
                    missing = [q for q in qrels if q not in run]
                    explained_num_rel = sum(1 for q in missing if theirs.get(q) == 0.0)
                    explained += explained_num_rel
                    pairs = [p for p in pairs if p[0] not in missing]
                    our_aggregate = sum(v for q, v in ours.items() if q in run)
                explained += len(rounded_apart)
                pairs = [p for p in pairs if p[0] not in rounded_apart]
                if not rounded_apart:
                    pairs.append(("(aggregate)", their_aggregate, our_aggregate))
                for query, a, b in pairs:
                    compared += 1
                    if a is None or b is None:
                        failures.append((trial, name, query, a, b))
                        continue
                    if name.startswith(GDEVAL) and query != "(aggregate)":
                        # gdeval.pl's printf("%.5f"): Python's rounds the same.
                        b = float(f"{b:.5f}")
                    difference = abs(a - b)
                    worst[name] = max(worst[name], difference)
                    if difference > (GDEVAL_TOLERANCE if name.startswith(GDEVAL) else TOLERANCE):
                        failures.append((trial, name, query, a, b))
    width = max(len(n) for n in NAMES)
    for name in NAMES:
        if name in skipped:
            print(f"{name:<{width}}  skipped: {skipped[name]}")
        else:
            print(f"{name:<{width}}  {canonical.get(name, '?'):<40} max |diff| {worst[name]:.3g}")
    print(f"{compared} values compared, {len(failures)} differences beyond {TOLERANCE}; "
          f"{explained} values left out as defined differences (IPrec's counts under trec_eval 9 "
          f"and 10; NumRel of a query missing from the run)")
    for trial, name, query, a, b in failures[:40]:
        print(f"  trial {trial} {name} {query}: ir_measures {a}, rankeval {b}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
