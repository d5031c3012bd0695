#!/usr/bin/env python3
"""Writes the off-policy benchmark's logs (scripts/bench/ope.sh): a bandit
log and a slate log of N impressions each, as Parquet, a target ranking
and a reward model as TREC runs, and the same data as numpy arrays (.npz)
for obp and the numpy reference. Seeded (numpy's PCG64, seed 38): the same
files every time. Needs numpy and pyarrow.

Run:  python3 scripts/bench/ope-logs.py OUT [N]

The world: C contexts, K items. Bandit: context x draws its logged item
from a Dirichlet(1) distribution of its own, reward Bernoulli(mu(x, a)),
mu uniform in [0, 0.3); the target ranks items by mu + noise (its top
item is its action); the reward model predicts mu + noise. Slates: L of
KS items drawn from the Plackett-Luce model of each context's scores
(Gumbel top-L), the slate's probability as the propensity, a reward per
position; the target shows the top L of its ranking.
"""

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

C, K = 1000, 5
KS, L = 8, 3
CHUNK = 1_000_000


def main() -> None:
    out = Path(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(38)
    ids = np.array([f"u{x}" for x in range(C)], dtype=object)
    items = np.array([f"i{a}" for a in range(max(K, KS))], dtype=object)

    # Bandit.
    p0 = rng.dirichlet(np.ones(K), size=C)
    mu = rng.uniform(0.0, 0.3, size=(C, K))
    qhat = mu + rng.normal(0.0, 0.02, size=(C, K))
    order = np.argsort(-(mu + rng.normal(0.0, 0.05, size=(C, K))), axis=1)
    top = order[:, 0]
    with open(out / "target.trec", "w") as f:
        for x in range(C):
            for rank, a in enumerate(order[x], 1):
                f.write(f"u{x} Q0 i{a} {rank} {K - rank + 1} target\n")
    with open(out / "model.trec", "w") as f:
        for x in range(C):
            for a in range(K):
                f.write(f"u{x} Q0 i{a} {a + 1} {float(qhat[x, a])!r} model\n")
    contexts = rng.integers(0, C, size=n)
    u = rng.random(n)
    actions = (u[:, None] > np.cumsum(p0[contexts], axis=1)).sum(axis=1).clip(0, K - 1)
    pscore = p0[contexts, actions]
    rewards = (rng.random(n) < mu[contexts, actions]).astype(np.float64)
    writer = None
    for start in range(0, n, CHUNK):
        s = slice(start, min(n, start + CHUNK))
        table = pa.table(
            {
                "context": pa.array(ids[contexts[s]], pa.string()).dictionary_encode(),
                "impression": pa.array(np.arange(s.start, s.stop, dtype=np.int64)),
                "item": pa.array(items[actions[s]], pa.string()).dictionary_encode(),
                "reward": pa.array(rewards[s]),
                "propensity": pa.array(pscore[s]),
            }
        )
        writer = writer or pq.ParquetWriter(out / "bandit.parquet", table.schema)
        writer.write_table(table)
    writer.close()
    np.savez(
        out / "bandit.npz",
        contexts=contexts,
        actions=actions,
        rewards=rewards,
        pscore=pscore,
        top=top,
        qhat=qhat,
    )

    # Slates: Plackett-Luce over each context's scores, Gumbel top-L.
    scores = rng.normal(0.0, 1.0, size=(C, KS))
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    target_top = np.argsort(-(scores + rng.normal(0.0, 0.5, size=(C, KS))), axis=1)[:, :L]
    with open(out / "slate-target.trec", "w") as f:
        for x in range(C):
            ranked = list(target_top[x]) + [a for a in range(KS) if a not in target_top[x]]
            for rank, a in enumerate(ranked, 1):
                f.write(f"u{x} Q0 i{a} {rank} {KS - rank + 1} target\n")
    contexts = rng.integers(0, C, size=n)
    slates = np.empty((n, L), dtype=np.int64)
    probability = np.empty(n)
    for start in range(0, n, CHUNK):
        s = slice(start, min(n, start + CHUNK))
        w = weights[contexts[s]]
        keys = np.log(w) + rng.gumbel(size=w.shape)
        shown = np.argsort(-keys, axis=1)[:, :L]
        slates[s] = shown
        rest = w.sum(axis=1)
        p = np.ones(shown.shape[0])
        for position in range(L):
            wa = np.take_along_axis(w, shown[:, position : position + 1], axis=1)[:, 0]
            p *= wa / rest
            rest = rest - wa
        probability[s] = p
    position_rewards = (rng.random((n, L)) < 0.2 / np.arange(1, L + 1)).astype(np.float64)
    writer = None
    for start in range(0, n, CHUNK):
        s = slice(start, min(n, start + CHUNK))
        m = s.stop - s.start
        offsets = np.arange(0, (m + 1) * L, L, dtype=np.int32)
        table = pa.table(
            {
                "context": pa.array(ids[contexts[s]], pa.string()).dictionary_encode(),
                "impression": pa.array(np.arange(s.start, s.stop, dtype=np.int64)),
                "item": pa.ListArray.from_arrays(offsets, pa.array(items[slates[s].ravel()], pa.string())),
                "reward": pa.ListArray.from_arrays(offsets, pa.array(position_rewards[s].ravel())),
                "propensity": pa.array(probability[s]),
            }
        )
        writer = writer or pq.ParquetWriter(out / "slate.parquet", table.schema)
        writer.write_table(table)
    writer.close()
    np.savez(
        out / "slate.npz",
        contexts=contexts,
        slates=slates,
        probability=probability,
        rewards=position_rewards,
        target_top=target_top,
    )
    print(f"wrote {out}: {n} bandit and {n} slate impressions")


if __name__ == "__main__":
    main()
