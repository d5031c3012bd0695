"""A user-written aggregator plugin (this example's ``trimmed_mean`` and
``share_at_least``, Rust, registered with ``#[aggregator]``) runs on Spark
with the command line's bits, for 1, 3 and 8 partitions: updated in the
evaluation's tasks (``evaluate(..., aggregators=...)``) or in one pass over
the per-query rows (``aggregate`` alone), merged and finished on the
driver."""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path

import pandas as pd
import pytest

from rankeval_rs import spark as rs

from conftest import cli

METRICS = ["ap", "ndcg@10", "rr", "p@5"]
AGGREGATORS = ["trimmed_mean", "trimmed_mean(cut=0.25)", "share_at_least(threshold=0.3)", "mean", "median"]


def bits(x: float) -> bytes:
    return b"nan" if math.isnan(x) else struct.pack("<d", x)


def make_logs(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two runs of scored items per user (scores rounded so that many
    tie), graded judgements; users 0-9 judged only, 10-19 in the runs only."""
    rng = random.Random(seed)
    run, qrels = [], []
    for u in range(240):
        items = rng.sample(range(300), 30)
        if u >= 10:
            for name in ("x", "y"):
                for item in items[: rng.randrange(1, 30)]:
                    run.append((f"u{u}", f"i{item}", round(rng.random(), 1), name))
        if not 10 <= u < 20:
            for item in rng.sample(items, rng.randrange(1, 10)):
                qrels.append((f"u{u}", f"i{item}", rng.choice([0.0, 1.0, 2.0, 0.5])))
    return (
        pd.DataFrame(run, columns=["user", "item", "score", "sys"]),
        pd.DataFrame(qrels, columns=["user", "item", "rating"]),
    )


def write_files(run_df: pd.DataFrame, qrels_df: pd.DataFrame, where: Path) -> list[str]:
    qrels = where / "qrels.txt"
    qrels.write_text("".join(f"{u} 0 {i} {g!r}\n" for u, i, g in qrels_df.itertuples(index=False)))
    args = ["--qrels", str(qrels)]
    for name, rows in run_df.groupby("sys", sort=True):
        path = where / f"{name}.trec"
        path.write_text(
            "".join(f"{u} Q0 {i} {r} {s!r} {name}\n" for r, (u, i, s, _) in enumerate(rows.itertuples(index=False)))
        )
        args += ["--run", str(path)]
    return args


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_a_plugin_aggregator_gives_the_cli_bits_for_any_partitioning(spark, tmp_path, missing):
    run_pd, qrels_pd = make_logs(5)
    args = ["eval", *write_files(run_pd, qrels_pd, tmp_path), "--format", "json", "--missing", missing]
    for m in METRICS:
        args += ["-m", m]
    for a in AGGREGATORS:
        args += ["-a", a]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    expected = {run["name"]: run["metrics"] for run in json.loads(done.stdout)["runs"]}
    run_df, qrels_df = spark.createDataFrame(run_pd), spark.createDataFrame(qrels_pd)
    checked = 0
    for partitions in (1, 3, 8):
        for in_tasks in (True, False):
            result = rs.evaluate(
                run_df, qrels_df, METRICS, query="user", doc="item", grade="rating", run="sys",
                missing=missing, partitions=partitions, aggregators=AGGREGATORS if in_tasks else (),
            )
            got = result.aggregate(AGGREGATORS)
            for run, metrics in expected.items():
                for m in result.metrics:
                    for a in AGGREGATORS:
                        want = metrics[m][a]
                        want = math.nan if want is None else want
                        assert bits(got[run][m][a]) == bits(want), (partitions, in_tasks, run, m, a)
                        checked += 1
            result.unpersist()
    assert checked == 3 * 2 * 2 * len(METRICS) * len(AGGREGATORS)
    # The trimmed mean is not the mean on these values: the plugin's own code ran.
    assert any(expected[r][m]["trimmed_mean"] != expected[r][m]["mean"] for r in expected for m in METRICS)
