#!/usr/bin/env python3
"""Writes a click log of known ground truth under the position-based model
and two target rankings, for `rankeval ope --form examination` (docs/ope.md,
"A worked click example"; examples/ope/README.md).

Run:  python3 examples/ope/clicks.py [DIR] [--impressions N] [--seed S]
      (DIR defaults to target/ope-clicks; needs Python 3 only)

The world (Joachims, Swaminathan & Schnabel, WSDM 2017): 30 queries
(contexts), 8 documents each, `d` relevant to query `q` exactly when
(3d + q) % 8 < 3 (three relevant documents per query). Each impression
draws a query uniformly and shows all 8 documents in a uniformly random
order; the user examines position k with probability p_k = 1/k (the power
law with eta = 1, written as the propensity of each row) and clicks a
document exactly when it is examined and relevant. One row per impression
and position: context, impression, position, item, reward (the click),
propensity.

Two target rankings (TREC runs, the query id is the context): `prod` ranks
the documents by number (d0 first), `new` puts the relevant documents
first. Their true values are the mean over queries of the ranking's
DCG@5 and RBP(p=0.8) with the binary relevance above, what `ips_dcg@5` and
`ips_rbp(p=0.8)` estimate without bias (every relevant document is shown
at a position with p_k > 0), written to truth.txt. SplitMix64 seeded with
S draws the log.
"""

import argparse
import math
import pathlib

MASK = (1 << 64) - 1
QUERIES, DOCS = 30, 8


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def u(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return ((z ^ (z >> 31)) >> 11) * 2.0**-53


def relevant(q, d):
    return (3 * d + q) % DOCS < 3


def examination(k):
    return 1.0 / k


def rankings():
    """Each target's order of the documents of query q."""
    return {
        "prod": lambda q: list(range(DOCS)),
        "new": lambda q: [d for d in range(DOCS) if relevant(q, d)] + [d for d in range(DOCS) if not relevant(q, d)],
    }


def dcg_at_5(order, q):
    return sum(1.0 / math.log2(rank + 1) for rank, d in enumerate(order[:5], 1) if relevant(q, d))


def rbp(order, q, p=0.8):
    return sum((1 - p) * p ** (rank - 1) for rank, d in enumerate(order, 1) if relevant(q, d))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default="target/ope-clicks")
    parser.add_argument("--impressions", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    out = pathlib.Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = SplitMix64(args.seed)
    with open(out / "clicks.csv", "w") as f:
        f.write("context,impression,position,item,reward,propensity\n")
        for n in range(args.impressions):
            q = int(rng.u() * QUERIES)
            shown = list(range(DOCS))
            for i in range(DOCS - 1, 0, -1):  # Fisher-Yates
                j = int(rng.u() * (i + 1))
                shown[i], shown[j] = shown[j], shown[i]
            for k, d in enumerate(shown, 1):
                p = examination(k)
                click = 1 if rng.u() < p and relevant(q, d) else 0
                f.write(f"q{q},{n + 1},{k},d{d},{click},{p!r}\n")
    truth = {}
    for name, order_of in rankings().items():
        with open(out / f"{name}.trec", "w") as f:
            for q in range(QUERIES):
                for rank, d in enumerate(order_of(q), 1):
                    f.write(f"q{q} Q0 d{d} {rank} {DOCS - rank + 1} {name}\n")
        truth[name] = (
            sum(dcg_at_5(order_of(q), q) for q in range(QUERIES)) / QUERIES,
            sum(rbp(order_of(q), q) for q in range(QUERIES)) / QUERIES,
        )
    with open(out / "truth.txt", "w") as f:
        f.write("policy ips_dcg@5 ips_rbp(p=0.8)\n")
        for name, (dcg, r) in truth.items():
            f.write(f"{name} {dcg:.6f} {r:.6f}\n")
    print(f"wrote {out}/clicks.csv ({args.impressions} impressions of {DOCS} positions), prod.trec, new.trec, truth.txt")
    for name, (dcg, r) in truth.items():
        print(f"  true DCG@5 and RBP(0.8) of {name}: {dcg:.6f} {r:.6f}")


if __name__ == "__main__":
    main()
