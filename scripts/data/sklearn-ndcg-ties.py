#!/usr/bin/env python3
"""Writes the fixture of scikit-learn's tie-averaged nDCG that rankeval's
`ties = average` is tested against (crates/metrics/tests/ties.rs).

scikit-learn's `ndcg_score(..., ignore_ties=False)` averages the gain of
each group of tied scores (McSherry and Najork 2008), as rankeval's
`ndcg(ties=average)@k` does. Random lists with many ties (scores from a
few values), graded 0-3, seeded (Python's `random.Random`, Mersenne
Twister, the seed printed and stored), each scored at several cutoffs.

Usage (from the repository root; scikit-learn in a virtual environment
under target/):

    python3 -m venv target/sklearn-venv
    target/sklearn-venv/bin/pip install scikit-learn
    target/sklearn-venv/bin/python scripts/data/sklearn-ndcg-ties.py
"""

import json
import random
import sys

import sklearn
from sklearn.metrics import ndcg_score

SEED = 20081
OUT = "crates/metrics/tests/data/sklearn_ndcg_ties.json"


def main() -> None:
    rng = random.Random(SEED)
    cases = []
    for _ in range(60):
        n = rng.randint(2, 12)
        # Few distinct scores, so that many tie; half of them decimals.
        scores = [rng.randint(0, 3) / 2 for _ in range(n)]
        grades = [rng.randint(0, 3) for _ in range(n)]
        for k in (None, 1, 3, 5, 10):
            value = ndcg_score([grades], [scores], k=k, ignore_ties=False)
            cases.append({"grades": grades, "scores": scores, "k": k, "ndcg": float(value)})
    fixture = {
        "source": f"scikit-learn {sklearn.__version__} ndcg_score(ignore_ties=False), "
        f"scripts/data/sklearn-ndcg-ties.py, seed {SEED}",
        "cases": cases,
    }
    with open(OUT, "w") as f:
        json.dump(fixture, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"seed {SEED}: {len(cases)} cases written to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
