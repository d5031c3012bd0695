"""Randomized cross-check of `rankeval overlap`'s rank-biased overlap
against the `rbo` package from PyPI and, if given, Corsi and Urbano's
reference implementation.

    python3 scripts/cross-check/rbo.py [--queries 500] [--seed 1]
        [--reference sigir2024-rbo/rbo/Python/rbo.py]

Run by hand, not in CI. Needs `pip install rbo numpy` and a build of
rankeval (RANKEVAL_BIN, else target/release/rankeval, else target/debug).

- Against `rbo` (changyaochen/rbo, `RankingSimilarity(S, T).rbo_ext(p)`,
  Webber et al.'s eq. 32): two runs without ties (distinct scores), lists
  of 1 to 60 documents from a shared pool, several p; compares each
  query's `rbo.ext`. That is the one score both define alike: the
  package's `rbo()` is the truncated sum at the shorter list's depth
  (neither Webber's lower bound, which adds the tail term, nor the upper
  bound), and it clamps values to [0, 1] (`_bound_range`), which correct
  values never leave.
- Against Corsi and Urbano's `rbo.py` (github.com/julian-urbano/
  sigir2024-rbo, `rbo/Python/rbo.py`, which needs numpy < 2 for
  `np.in1d`): runs with many tied scores (integer scores from a small
  range), each tie treatment a, b, w; compares ext, min, max and res.

Prints the largest absolute difference of each and fails above 1e-12.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

# This file is named rbo.py too: import the package, not this script.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from rbo import RankingSimilarity  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def binary():
    if os.environ.get("RANKEVAL_BIN"):
        return os.environ["RANKEVAL_BIN"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "rankeval")
        if os.path.exists(path):
            return path
    sys.exit("build rankeval first (cargo build --release) or set RANKEVAL_BIN")


def overlap(a, b, p, ties):
    """rankeval overlap's per-query RBO scores: {query: {ext, min, max, res}}."""
    args = [binary(), "overlap", a, b, "-p", repr(p), "--ties", ties, "--format", "json"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return {q["query"]: q["rbo"] for q in json.loads(out)["queries"]}


def write_run(path, lists, name):
    """lists: {query: [(doc, score), ...]} in rank order."""
    with open(path, "w") as f:
        for q, docs in lists.items():
            for rank, (doc, score) in enumerate(docs, 1):
                f.write(f"{q} Q0 {doc} {rank} {score} {name}\n")


def random_lists(rng, queries, tied):
    """Two runs' lists per query: documents from a shared pool, scores
    distinct (tied=False) or integers from a small range (tied=True),
    listed by score descending and, for equal scores, document id
    descending, as rankeval orders them."""
    first, second = {}, {}
    for q in range(queries):
        pool = [f"d{i}" for i in range(rng.randint(2, 80))]
        for run in (first, second):
            docs = rng.sample(pool, rng.randint(1, min(60, len(pool))))
            if tied:
                top = rng.randint(1, max(1, len(docs) // 2))
                scored = [(d, rng.randint(0, top)) for d in docs]
            else:
                scores = rng.sample(range(10 * len(docs)), len(docs))
                scored = [(d, s) for d, s in zip(docs, scores)]
            scored.sort(key=lambda e: (e[1], e[0]), reverse=True)
            run[f"q{q}"] = scored
    return first, second


def groups(scored):
    """A list of (doc, score) in order as Corsi and Urbano's ranking:
    tied documents in a set."""
    out = []
    for i, (doc, score) in enumerate(scored):
        if i > 0 and score == scored[i - 1][1]:
            if isinstance(out[-1], str):
                out[-1] = {out[-1]}
            out[-1].add(doc)
        else:
            out.append(doc)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reference", help="Corsi and Urbano's rbo/Python/rbo.py")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.trec"), os.path.join(tmp, "b.trec")
        first, second = random_lists(rng, args.queries, tied=False)
        write_run(a, first, "a")
        write_run(b, second, "b")
        worst = 0.0
        for p in (0.5, 0.8, 0.9, 0.95, 0.99):
            got = overlap(a, b, p, "a")
            for q in first:
                S = [d for d, _ in first[q]]
                T = [d for d, _ in second[q]]
                want = RankingSimilarity(S, T).rbo_ext(p=p)
                worst = max(worst, abs(got[q]["ext"] - want))
        print(f"rbo (PyPI) rbo_ext, {args.queries} queries x 5 p: largest difference {worst:.3e}")
        failed |= worst > 1e-12

        if args.reference:
            namespace = {}
            with open(args.reference) as f:
                exec(f.read(), namespace)
            reference = namespace["rbo"]
            first, second = random_lists(rng, args.queries, tied=True)
            write_run(a, first, "a")
            write_run(b, second, "b")
            for ties in ("a", "b", "w"):
                worst = {s: 0.0 for s in ("ext", "min", "max", "res")}
                for p in (0.8, 0.95):
                    got = overlap(a, b, p, ties)
                    for q in first:
                        want = reference(groups(first[q]), groups(second[q]), p, ties=ties)
                        for s in worst:
                            worst[s] = max(worst[s], abs(got[q][s] - want[s]))
                text = ", ".join(f"{s} {v:.3e}" for s, v in worst.items())
                print(f"Corsi and Urbano, ties {ties}, {args.queries} queries x 2 p: {text}")
                failed |= max(worst.values()) > 1e-12
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
