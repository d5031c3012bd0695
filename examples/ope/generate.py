#!/usr/bin/env python3
"""Writes an impression log of known ground truth and two target rankings,
for `rankeval ope` (docs/ope.md, examples/ope/README.md).

Run:  python3 examples/ope/generate.py [DIR] [--impressions N] [--seed S]
      (DIR defaults to target/ope-example; needs Python 3 only)

The world: 20 users (contexts), 10 items; user u clicks item i with
probability mu(u, i) = 0.02 + 0.3 * ((i + 3u) % 10 == 0) + 0.05 * ((i + u) % 3 == 0).
The logging policy shows one item per impression, drawn with probabilities
proportional to 1 + ((i + 3u) % 10 < 3) (known: written as the propensity).
Two target policies, as rankings (TREC runs, the query id is the user):
`prod` ranks items by i (item 0 first), `new` puts the item of largest mu
first. Their true values, sum over users (uniform) of mu(u, top item), are
written to truth.txt. SplitMix64 seeded with S draws the log.
"""

import argparse
import pathlib

MASK = (1 << 64) - 1
USERS, ITEMS = 20, 10


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def u(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return ((z ^ (z >> 31)) >> 11) * 2.0**-53


def mu(u, i):
    return 0.02 + 0.3 * ((i + 3 * u) % 10 == 0) + 0.05 * ((i + u) % 3 == 0)


def logging(u):
    w = [1.0 + ((i + 3 * u) % 10 < 3) for i in range(ITEMS)]
    s = sum(w)
    return [x / s for x in w]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default="target/ope-example")
    parser.add_argument("--impressions", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    out = pathlib.Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = SplitMix64(args.seed)
    with open(out / "log.csv", "w") as f:
        f.write("context,impression,item,reward,propensity\n")
        for n in range(args.impressions):
            u = int(rng.u() * USERS)
            p = logging(u)
            v, c, a = rng.u(), 0.0, ITEMS - 1
            for i, x in enumerate(p):
                c += x
                if v < c:
                    a = i
                    break
            r = 1 if rng.u() < mu(u, a) else 0
            f.write(f"u{u},{n + 1},i{a},{r},{p[a]!r}\n")
    truth = {}
    for name, top in [("prod", lambda u: 0), ("new", lambda u: max(range(ITEMS), key=lambda i: mu(u, i)))]:
        with open(out / f"{name}.trec", "w") as f:
            for u in range(USERS):
                first = top(u)
                order = [first] + [i for i in range(ITEMS) if i != first]
                for rank, i in enumerate(order, 1):
                    f.write(f"u{u} Q0 i{i} {rank} {ITEMS - rank + 1} {name}\n")
        truth[name] = sum(mu(u, top(u)) for u in range(USERS)) / USERS
    with open(out / "truth.txt", "w") as f:
        for name, v in truth.items():
            f.write(f"{name} {v:.6f}\n")
    print(f"wrote {out}/log.csv ({args.impressions} impressions), prod.trec, new.trec, truth.txt")
    for name, v in truth.items():
        print(f"  true value of {name}: {v:.6f}")


if __name__ == "__main__":
    main()
