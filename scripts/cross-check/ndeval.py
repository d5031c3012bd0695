"""Randomized cross-check of rankeval's diversity metrics against ndeval, the
TREC Web track's evaluation program, through pyndeval (which compiles
ndeval.c 4.5 into a Python extension).

    python3 scripts/cross-check/ndeval.py [--queries 300] [--seed 1]
    python3 scripts/cross-check/ndeval.py --fixture   # rewrite the test fixture

Run by hand, not in CI. Needs `pip install pyndeval` and a build of rankeval
(RANKEVAL_BIN, else target/release/rankeval, else target/debug). It writes
random subtopic qrels (`query subtopic doc grade`, grades 0-2, some
subtopics never relevant, some queries with no relevant subtopic) and runs
(distinct scores, so that no tie rule plays a part; unjudged documents
too), and compares per query, for several (alpha, beta, rel):

- alpha_dcg, alpha_ndcg, err_ia, nerr_ia, p_ia, strec at every k from 1
  to 20 (ndeval's arrays stop at 20) with ndeval's alpha-DCG@k,
  alpha-nDCG@k, ERR-IA@k, nERR-IA@k, P-IA@k, strec@k;
- nrbp, nnrbp, map_ia with NRBP, nNRBP, MAP-IA.

Two differences are deliberate (docs/diversity.md) and checked as such:
ndeval leaves rank 1 of alpha-DCG and ERR-IA undivided by its normalizer,
so its alpha-DCG@1 and ERR-IA@1 are rankeval's times |S|; and its nNRBP is
0/0 = NaN for a query with no relevant subtopic, where rankeval gives 0.
Prints the largest absolute difference of each measure and fails above
1e-12.

With --fixture it writes crates/rankeval/tests/data/ndeval/: pyndeval's own
test example and a small random set (subtopics.txt, run.trec) and the
values pyndeval gives them (expected.json), which
crates/rankeval/tests/diversity.rs checks.
"""

import argparse
import importlib.metadata
import json
import math
import os
import random
import subprocess
import sys
import tempfile

import pyndeval

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "crates", "rankeval", "tests", "data", "ndeval")

CUTOFF = ["ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec"]
WHOLE = ["NRBP", "nNRBP", "MAP-IA"]
RANKEVAL = {
    "ERR-IA": "err_ia", "nERR-IA": "nerr_ia", "alpha-DCG": "alpha_dcg",
    "alpha-nDCG": "alpha_ndcg", "P-IA": "p_ia", "strec": "strec",
    "NRBP": "nrbp", "nNRBP": "nnrbp", "MAP-IA": "map_ia",
}
# (alpha, beta, relevance level)
SETTINGS = [(0.5, 0.5, 1), (0.3, 0.8, 1), (1.0, 0.25, 1), (0.0, 1.0, 1), (0.5, 0.5, 2)]


def binary():
    if os.environ.get("RANKEVAL_BIN"):
        return os.environ["RANKEVAL_BIN"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "rankeval")
        if os.path.exists(path):
            return path
    sys.exit("build rankeval first (cargo build --release) or set RANKEVAL_BIN")


def number(x):
    """A parameter as rankeval's canonical names write it."""
    return repr(float(x)).removesuffix(".0") if float(x).is_integer() else repr(float(x))


def metric_name(measure, k, alpha, beta, rel):
    """rankeval's canonical name of ndeval's `measure` at cutoff k."""
    params = []
    if rel != 1:
        params.append(f"rel={rel}")
    if measure not in ("P-IA", "strec", "MAP-IA") and alpha != 0.5:
        params.append(f"alpha={number(alpha)}")
    if measure in ("NRBP", "nNRBP") and beta != 0.5:
        params.append(f"beta={number(beta)}")
    name = RANKEVAL[measure] + (f"({','.join(params)})" if params else "")
    return name + (f"@{k}" if k is not None else "")


def generate(rng, queries):
    """Random subtopic qrels (rows in file order) and a run {q: [(doc, score)]}."""
    qrels, run = [], {}
    for q in range(queries):
        qid = f"q{q}"
        subtopics = [f"s{j}" for j in range(rng.randint(1, 6))]
        docs = [f"d{q}-{i}" for i in range(rng.randint(1, 30))]
        for doc in docs:
            for s in subtopics:
                if rng.random() < 0.35:
                    qrels.append((qid, s, doc, rng.choice([0, 0, 1, 1, 2])))
        if rng.random() < 0.1:  # a query with no relevant subtopic
            qrels = [r for r in qrels if r[0] != qid]
            qrels.append((qid, subtopics[0], docs[0], 0))
        if not any(r[0] == qid for r in qrels):
            qrels.append((qid, subtopics[0], docs[0], rng.choice([0, 1])))
        if rng.random() < 0.05:
            continue  # judged, never retrieved
        pool = docs + [f"u{q}-{i}" for i in range(rng.randint(0, 10))]
        chosen = rng.sample(pool, rng.randint(1, len(pool)))
        scores = rng.sample(range(1, 10_000), len(chosen))
        run[qid] = [(d, s / 100.0) for d, s in zip(chosen, scores)]
    return qrels, run


def write(qrels, run, directory):
    sub = os.path.join(directory, "subtopics.txt")
    trec = os.path.join(directory, "run.trec")
    with open(sub, "w") as f:
        for q, s, d, g in qrels:
            f.write(f"{q} {s} {d} {g}\n")
    with open(trec, "w") as f:
        for q, docs in run.items():
            ranked = sorted(docs, key=lambda x: (-x[1], x[0]))
            for rank, (d, score) in enumerate(ranked, 1):
                f.write(f"{q} Q0 {d} {rank} {score} r\n")
    return sub, trec


def peer(qrels, run, alpha, beta, rel):
    """pyndeval's values: {query: {(measure, k): value}}."""
    measures = [f"{m}@{k}" for m in CUTOFF for k in range(1, 21)] + WHOLE
    evaluator = pyndeval.RelevanceEvaluator(
        [pyndeval.SubtopicQrel(*r) for r in qrels], measures, relevance_level=rel,
        alpha=alpha, beta=beta)
    flat = [pyndeval.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs]
    out = {}
    for q, values in evaluator.evaluate(flat).items():
        out[q] = {}
        for name, value in values.items():
            measure, _, k = name.partition("@")
            out[q][(measure, int(k) if k else None)] = value
    return out


def ours(sub, trec, names):
    args = [binary(), "eval", "--subtopic-qrels", sub, "--run", trec, "--per-query",
            "--format", "json"]
    for name in names:
        args += ["-m", name]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    per_query = json.loads(out)["runs"][0]["per_query"]
    by_query = {}
    for name, values in per_query.items():
        for q, value in values.items():
            by_query.setdefault(q, {})[name] = value
    return by_query


def actual_subtopics(qrels, q, rel):
    return len({s for qq, s, _, g in qrels if qq == q and g >= rel})


def expected_of(measure, k, value, actual):
    """ndeval's value as rankeval defines it (the two documented differences)."""
    if k == 1 and measure in ("alpha-DCG", "ERR-IA") and actual > 0:
        return value / actual
    if measure == "nNRBP" and math.isnan(value):
        return 0.0
    return value


def compare(qrels, run, sub, trec):
    worst = {}
    checked = 0
    for alpha, beta, rel in SETTINGS:
        theirs = peer(qrels, run, alpha, beta, rel)
        keys = [(m, k) for m in CUTOFF for k in range(1, 21)] + [(m, None) for m in WHOLE]
        names = {key: metric_name(key[0], key[1], alpha, beta, rel) for key in keys}
        mine = ours(sub, trec, sorted(set(names.values())))
        if set(mine) != set(theirs):
            sys.exit(f"query sets differ: {sorted(set(mine) ^ set(theirs))[:10]}")
        for q, values in theirs.items():
            actual = actual_subtopics(qrels, q, rel)
            for key, value in values.items():
                want = expected_of(key[0], key[1], value, actual)
                got = mine[q][names[key]]
                diff = abs(got - want)
                label = f"{key[0]} (alpha={alpha}, beta={beta}, rel={rel})"
                if diff > worst.get(label, (-1,))[0]:
                    worst[label] = (diff, q, key[1], got, want)
                checked += 1
    return worst, checked


def fixture(args):
    """pyndeval's own test example and a small random set, with its values
    at k = 1, 2, 5, 10, 20 under three settings: rows [query, rankeval
    metric, |S|, ndeval's value (null for NaN)]."""
    os.makedirs(FIXTURE, exist_ok=True)
    example = [("0", "a", "A", 1), ("0", "b", "B", 1), ("0", "b", "D", 1), ("0", "c", "C", 1)]
    example_run = {"0": [("A", 9.3), ("D", 8.4), ("E", 8.1), ("B", 7.6)]}
    qrels, run = generate(random.Random(args.seed), 6)
    qrels = example + qrels
    run = {**example_run, **run}
    write(qrels, run, FIXTURE)
    rows = []
    for alpha, beta, rel in [SETTINGS[0], SETTINGS[1], SETTINGS[4]]:
        theirs = peer(qrels, run, alpha, beta, rel)
        for q in sorted(theirs):
            for (measure, k), value in sorted(theirs[q].items(),
                                              key=lambda x: (x[0][0], x[0][1] or 0)):
                if k not in (None, 1, 2, 5, 10, 20):
                    continue
                rows.append([q, metric_name(measure, k, alpha, beta, rel),
                             actual_subtopics(qrels, q, rel),
                             None if math.isnan(value) else value])
    with open(os.path.join(FIXTURE, "expected.json"), "w") as f:
        f.write(f'{{"source": "pyndeval {importlib.metadata.version("pyndeval")} (ndeval.c 4.5), written by '
                f'scripts/cross-check/ndeval.py --fixture --seed {args.seed}",\n')
        f.write('"columns": ["query", "metric", "subtopics", "ndeval"],\n"rows": [\n')
        f.write(",\n".join(json.dumps(row) for row in rows))
        f.write("\n]}\n")
    print(f"wrote {len(rows)} values to {FIXTURE}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fixture", action="store_true")
    args = parser.parse_args()
    if args.fixture:
        fixture(args)
        return
    rng = random.Random(args.seed)
    qrels, run = generate(rng, args.queries)
    with tempfile.TemporaryDirectory() as directory:
        sub, trec = write(qrels, run, directory)
        worst, checked = compare(qrels, run, sub, trec)
    failed = False
    for label in sorted(worst):
        diff, q, k, got, want = worst[label]
        flag = "FAIL" if diff > 1e-12 else "ok"
        failed |= diff > 1e-12
        at = f"@{k}" if k else ""
        print(f"{flag:4} {label:45} max |diff| = {diff:.3e} (query {q}{at}: {got!r} vs {want!r})")
    print(f"{checked} values compared over {len(run)} queries")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
