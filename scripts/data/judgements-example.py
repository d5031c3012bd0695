#!/usr/bin/env python3
"""Writes examples/judgements/: a small collection judged twice, by an LLM
(every query) and by people (some queries), and two runs. The data behind
the worked example of docs/judgements.md and the tests of `rankeval ppi`.

    python3 scripts/data/judgements-example.py

Standard library only (random.Random, a fixed seed): the files are the same
on every machine. The model: 40 queries of 12 candidate documents with true
grades 0-3; the LLM's grade is the true one plus 1 with probability 0.3
(capped at 3), so it is biased upwards by about +0.3 grade; people judged
the first 15 queries, exactly. `bm25` ranks by a noisy copy of the true
grade, `dense` by a less noisy one, each list holding 10 of the 12
candidates (documents 11-12 of a query are never retrieved).

`labels.tsv` is the LLM's label distribution (`rankeval expected`): per
document the probabilities p0-p3 of grades 0-3, a discretised normal around
the LLM's grade (standard deviation 0.6, each weight jittered by up to
±20%), rounded to 4 decimals with the LLM's grade taking the rounding so
that each row sums to 1. It comes from a second generator (seed + 1), so
the other files are as they were.

`conversations.jsonl` makes the 40 queries 10 conversations of 4 turns
(q01-q04 are turns 1-4 of conversation c01, ...): the groups file of the
conversation example (`--groups`, `--per-conversation`).
"""

import math

import random
from pathlib import Path

SEED = 20261126
QUERIES = 40
DOCS = 12
HUMAN = 15

OUT = Path(__file__).resolve().parents[2] / "examples" / "judgements"


def main() -> None:
    rng = random.Random(SEED)
    truth = {}
    for q in range(1, QUERIES + 1):
        for d in range(1, DOCS + 1):
            truth[(q, d)] = min(3, max(0, round(rng.gauss(1.0, 1.1))))
    llm = {k: min(3, g + (1 if rng.random() < 0.3 else 0)) for k, g in truth.items()}
    runs = {}
    for name, noise in (("bm25", 1.4), ("dense", 0.8)):
        lines = []
        for q in range(1, QUERIES + 1):
            scored = [(truth[(q, d)] + rng.gauss(0, noise), d) for d in range(1, DOCS + 1)]
            kept = sorted(scored[:10], key=lambda s: (-s[0], s[1]))
            for rank, (score, d) in enumerate(kept, 1):
                lines.append(f"q{q:02} Q0 d{q:02}-{d:02} {rank} {score:.4f} {name}")
        runs[name] = lines
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "llm.qrels").write_text(
        "".join(f"q{q:02} 0 d{q:02}-{d:02} {g}\n" for (q, d), g in sorted(llm.items()))
    )
    (OUT / "human.qrels").write_text(
        "".join(
            f"q{q:02} 0 d{q:02}-{d:02} {g}\n"
            for (q, d), g in sorted(truth.items())
            if q <= HUMAN
        )
    )
    for name, lines in runs.items():
        (OUT / f"{name}.trec").write_text("\n".join(lines) + "\n")
    (OUT / "labels.tsv").write_text(labels(llm))
    (OUT / "conversations.jsonl").write_text(
        "".join(
            f'{{"query": "q{q:02}", "conversation": "c{(q - 1) // 4 + 1:02}", "turn": {(q - 1) % 4 + 1}}}\n'
            for q in range(1, QUERIES + 1)
        )
    )
    print(f"wrote {OUT}: {QUERIES} queries, LLM labels for all, people's for {HUMAN}")


def labels(llm: dict) -> str:
    """The LLM's label distributions, one row per judged document."""
    rng = random.Random(SEED + 1)
    rows = ["query\tdoc\tp0\tp1\tp2\tp3"]
    for (q, d), grade in sorted(llm.items()):
        weights = [
            math.exp(-((g - grade) ** 2) / (2 * 0.6**2)) * rng.uniform(0.8, 1.2)
            for g in range(4)
        ]
        total = sum(weights)
        p = [round(w / total, 4) for w in weights]
        p[grade] = round(1 - sum(p[g] for g in range(4) if g != grade), 4)
        rows.append(f"q{q:02}\td{q:02}-{d:02}\t" + "\t".join(f"{x:.4f}" for x in p))
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    main()
