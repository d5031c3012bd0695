"""Shared fixtures: seeded data written as TREC, JSON Lines and CSV files,
and the `rankeval` binary to compare with."""

from __future__ import annotations

import json
import os
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SEED = 20261123


def rankeval_binary() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = Path(os.environ.get("RANKEVAL_BIN", target / "debug" / "rankeval"))
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build it with `cargo build -p rankeval-cli` (or set RANKEVAL_BIN)")
    return binary


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(rankeval_binary()), *args], capture_output=True, text=True, check=False)


def cli_json(qrels: Path, run: Path, metrics: list[str], *extra: str) -> dict:
    args = ["eval", "--qrels", str(qrels), "--run", str(run), "--format", "json", "--per-query", *extra]
    for metric in metrics:
        args += ["-m", metric]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@dataclass
class Data:
    """One seeded data set: judgements and one scored run, as rows."""

    qrels: list[tuple[str, str, int]]
    run: list[tuple[str, str, float]]

    def ranked(self) -> dict[str, list[str]]:
        """Each query's documents in the spec's order: score descending, ties
        by document id descending in byte order."""
        lists: dict[str, list[tuple[float, str]]] = {}
        for q, d, s in self.run:
            lists.setdefault(q, []).append((s, d))
        return {
            q: [d for _, d in sorted(entries, key=lambda e: (-e[0], [-b for b in e[1].encode()] + [1]))]
            for q, entries in lists.items()
        }


def make_data(seed: int = SEED, queries: int = 40, depth: int = 30) -> Data:
    """Graded judgements (-1 to 3), unjudged documents, tied scores, queries
    only in the run and only in the qrels."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        query = f"q{q}"
        docs = [f"d{rng.randrange(200)}" for _ in range(depth * 2)]
        docs = list(dict.fromkeys(docs))
        if q % 13 != 5:  # some queries have no judgements: run only
            for doc in docs[: rng.randrange(1, len(docs))]:
                if rng.random() < 0.6:
                    qrels.append((query, doc, rng.choice([-1, 0, 0, 1, 1, 2, 3])))
        if q % 11 != 3:  # some judged queries are not in the run
            for doc in docs[: rng.randrange(1, depth)]:
                run.append((query, doc, round(rng.choice([rng.random(), 0.5, 0.25]), 3)))
    # A query whose judgements are all non-relevant, one with no relevant retrieved.
    qrels.append(("qzero", "d1", 0))
    run.append(("qzero", "d1", 1.0))
    return Data(qrels, run)


@pytest.fixture(scope="session")
def data() -> Data:
    return make_data()


@dataclass
class Files:
    qrels_trec: Path
    run_trec: Path
    qrels_csv: Path
    run_csv: Path
    run_jsonl: Path


@pytest.fixture(scope="session")
def files(data: Data, tmp_path_factory: pytest.TempPathFactory) -> Files:
    root = tmp_path_factory.mktemp("data")
    files = Files(
        root / "qrels.txt", root / "run.trec", root / "qrels.csv", root / "run.csv", root / "run.jsonl"
    )
    files.qrels_trec.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in data.qrels))
    files.run_trec.write_text(
        "".join(f"{q} Q0 {d} {i + 1} {s} tag\n" for i, (q, d, s) in enumerate(data.run))
    )
    files.qrels_csv.write_text("user,item,grade\n" + "".join(f"{q},{d},{g}\n" for q, d, g in data.qrels))
    files.run_csv.write_text("user,item,score\n" + "".join(f"{q},{d},{s}\n" for q, d, s in data.run))
    files.run_jsonl.write_text(
        "".join(json.dumps({"query": q, "predicted": docs}) + "\n" for q, docs in data.ranked().items())
    )
    return files
