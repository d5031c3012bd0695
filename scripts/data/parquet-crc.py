#!/usr/bin/env python3
"""Writes the Parquet fixtures with page checksums used by the CLI tests of
damaged Parquet inputs (crates/cli/tests/cli/parquet_crc.rs).

    python3 scripts/data/parquet-crc.py   # needs pyarrow

Each file is written with `write_page_checksum=True` (a CRC-32 of every
page in its header), no compression and no dictionary, so that a data
page's values are the plain bytes of the column: a test that overwrites
bytes inside a page changes values, which only the checksum can catch.
The data is fixed (no randomness), so the files are the same on every run
of the same pyarrow.

  run.parquet      query, doc, score: 20 queries x 10 documents
  qrels.parquet    query, doc, grade: 20 queries x 5 judged documents
  groups.parquet   query, segment: the 20 queries in two segments
  results.parquet  query, run, ap: per-query results of runs `a` and `b`
"""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

OUT = Path(__file__).resolve().parents[2] / "crates/cli/tests/data/parquet_crc"
QUERIES = [f"q{i:02d}" for i in range(1, 21)]


def write(table: pa.Table, name: str) -> None:
    pq.write_table(
        table,
        OUT / name,
        write_page_checksum=True,
        compression="none",
        use_dictionary=False,
        write_statistics=False,
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    run = {"query": [], "doc": [], "score": []}
    for q, query in enumerate(QUERIES):
        for rank in range(10):
            run["query"].append(query)
            run["doc"].append(f"d{(q * 3 + rank * 7) % 40:02d}")
            run["score"].append(10.0 - rank - 0.125 * (q % 4))
    write(pa.table(run), "run.parquet")

    qrels = {"query": [], "doc": [], "grade": []}
    for q, query in enumerate(QUERIES):
        for j in range(5):
            qrels["query"].append(query)
            qrels["doc"].append(f"d{(q * 3 + j * 11) % 40:02d}")
            qrels["grade"].append((q + j) % 3)
    write(pa.table(qrels, schema=pa.schema([
        ("query", pa.string()), ("doc", pa.string()), ("grade", pa.int64())])),
        "qrels.parquet")

    groups = {
        "query": QUERIES,
        "segment": ["segment-head" if q < 10 else "segment-tail" for q in range(20)],
    }
    write(pa.table(groups), "groups.parquet")

    results = {"query": [], "run": [], "ap": []}
    for run_name, shift in (("a", 0), ("b", 3)):
        for q, query in enumerate(QUERIES + [f"q{i:02d}" for i in range(21, 31)]):
            results["query"].append(query)
            results["run"].append(run_name)
            results["ap"].append(((q + shift) % 8) / 8.0)
    write(pa.table(results), "results.parquet")


if __name__ == "__main__":
    main()
