"""Evaluate a TREC run with a peer tool, for scripts/bench/peers.sh.

    python evaluate.py pytrec_eval|ranx QRELS RUN

Computes MAP, MRR, P@10, recall@10 and nDCG@10 (the benchmark's metric set)
the way a user of the tool would, and prints the means, one per line, so
that they can be compared with rankeval's. Timing is done by the caller,
over the whole process.
"""

import sys


def with_pytrec_eval(qrels_path, run_path):
    import pytrec_eval

    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    measures = {"map", "recip_rank", "P_10", "recall_10", "ndcg_cut_10"}
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    for measure in sorted(measures):
        values = [per_query[measure] for per_query in results.values()]
        print(f"{measure}\t{sum(values) / len(values):.4f}")


def with_ranx(qrels_path, run_path):
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    metrics = ["map", "mrr", "precision@10", "recall@10", "ndcg@10"]
    for name, value in evaluate(qrels, run, metrics).items():
        print(f"{name}\t{value:.4f}")


if __name__ == "__main__":
    tool, qrels_path, run_path = sys.argv[1:4]
    {"pytrec_eval": with_pytrec_eval, "ranx": with_ranx}[tool](qrels_path, run_path)
