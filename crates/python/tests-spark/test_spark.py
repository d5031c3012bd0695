"""rankeval on Spark (``local[2]``) gives the command line's numbers bit for
bit, per query and aggregated, for any partitioning: on synthetic logs with
tied scores, graded and decimal labels, users missing on either side,
string and integer ids, and one skewed user with 100,000 items."""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path

import pandas as pd
import pytest

from rankeval_rs import InputError
from rankeval_rs import spark as rs

from conftest import cli

METRICS = ["ap", "ndcg@10", "p@5", "rr", "ndcg", "recall@100"]
AGGREGATORS = ["mean", "sum", "min", "max", "gmean", "std", "median"]
SKEWED_ITEMS = 100_000


def bits(x: float) -> bytes:
    """The value's bits, NaN made one value (NaN == NaN here)."""
    return b"nan" if math.isnan(x) else struct.pack("<d", x)


def make_logs(seed: int, int_ids: bool, queries: int = 300) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A recommender's log: two runs (``sys`` = x, y) of scored items per
    user, and graded, partly decimal judgements. Users 0-19 have
    judgements only, 20-39 are in the runs only; scores are rounded to one
    decimal so that many tie; the last user has 100,000 items."""
    rng = random.Random(seed)
    qrels: list[tuple] = []
    run: list[tuple] = []

    def ident(prefix: str, i: int):
        return i if int_ids else f"{prefix}{i}"

    for u in range(queries):
        items = rng.sample(range(500), 40)
        if u >= 20:
            for sys_name in ("x", "y"):
                for item in items[: rng.randrange(1, 40)]:
                    run.append((ident("u", u), ident("i", item), round(rng.random(), 1), sys_name))
        if not 20 <= u < 40:
            for item in rng.sample(items, rng.randrange(1, 15)) + rng.sample(range(500, 600), 2):
                qrels.append((ident("u", u), ident("i", item), rng.choice([0.0, 1.0, 2.0, 0.5, 1.5, 3.0])))
    skewed = ident("u", queries)
    for item in range(SKEWED_ITEMS):
        run.append((skewed, ident("i", item), round(rng.random(), 3), "x"))
    for item in rng.sample(range(SKEWED_ITEMS), 50):
        qrels.append((skewed, ident("i", item), rng.choice([1.0, 2.0])))
    run_df = pd.DataFrame(run, columns=["user", "item", "score", "sys"])
    qrels_df = pd.DataFrame(qrels, columns=["user", "item", "rating"])
    return run_df, qrels_df


def write_files(run_df: pd.DataFrame, qrels_df: pd.DataFrame, where: Path) -> tuple[Path, list[Path]]:
    """The same log as TREC files, for the command line (ids as their text,
    scores and grades as Python writes them, which reads back to the same
    doubles)."""
    qrels_path = where / "qrels.txt"
    with qrels_path.open("w") as f:
        for u, i, g in qrels_df.itertuples(index=False):
            f.write(f"{u} 0 {i} {g!r}\n")
    runs = []
    for name, rows in run_df.groupby("sys", sort=True):
        path = where / f"{name}.trec"
        with path.open("w") as f:
            for rank, (u, i, s, _) in enumerate(rows.itertuples(index=False)):
                f.write(f"{u} Q0 {i} {rank} {s!r} {name}\n")
        runs.append(path)
    return qrels_path, runs


def cli_results(qrels: Path, runs: list[Path], *extra: str) -> dict:
    args = ["eval", "--qrels", str(qrels), "--format", "json", "--per-query", *extra]
    for run in runs:
        args += ["--run", str(run)]
    for m in METRICS:
        args += ["-m", m]
    for a in AGGREGATORS:
        args += ["-a", a]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def spark_per_query(result: rs.SparkEvaluation) -> dict[tuple[str, str, str], float]:
    out = {}
    for row in result.per_query.collect():
        for m in result.metrics:
            out[(row["run"], m, row["query"])] = row[m]
    return out


def cli_per_query(report: dict) -> dict[tuple[str, str, str], float]:
    out = {}
    for run in report["runs"]:
        for m, values in run["per_query"].items():
            for q, v in values.items():
                out[(run["name"], m, q)] = math.nan if v is None else v
    return out


@pytest.fixture(scope="module", params=[False, True], ids=["string-ids", "integer-ids"])
def logs(request, tmp_path_factory):
    run_df, qrels_df = make_logs(7 if request.param else 3, request.param)
    where = tmp_path_factory.mktemp("logs")
    return run_df, qrels_df, write_files(run_df, qrels_df, where)


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_per_query_and_aggregates_equal_the_cli_for_any_partitioning(spark, logs, missing):
    run_pd, qrels_pd, (qrels_path, run_paths) = logs
    expected = cli_results(qrels_path, run_paths, "--missing", missing)
    expected_per_query = cli_per_query(expected)
    run_df = spark.createDataFrame(run_pd)
    qrels_df = spark.createDataFrame(qrels_pd)
    seen = None
    for partitions in (1, 3, 8):
        result = rs.evaluate(
            run_df,
            qrels_df,
            METRICS,
            query="user",
            doc="item",
            grade="rating",
            run="sys",
            missing=missing,
            partitions=partitions,
            # With 3 partitions the aggregators' states are updated by the
            # evaluation's own tasks; otherwise by a pass over the per-query
            # rows at aggregate(): the same bits either way (checked below
            # against the binary, and across the partitionings).
            aggregators=AGGREGATORS if partitions == 3 else (),
        )
        per_query = spark_per_query(result)
        assert per_query.keys() == expected_per_query.keys()
        wrong = [k for k, v in per_query.items() if bits(v) != bits(expected_per_query[k])]
        assert not wrong, f"{len(wrong)} per-query values differ, e.g. {wrong[:3]}"
        aggregates = result.aggregate(AGGREGATORS)
        for run in expected["runs"]:
            for m in result.metrics:
                for a in AGGREGATORS:
                    want = run["metrics"][m][a]
                    got = aggregates[run["name"]][m][a]
                    assert bits(got) == bits(math.nan if want is None else want), (partitions, run["name"], m, a)
        if partitions == 3:
            # The median from the tasks' states alone, asked for alone: the
            # same bits (the radix selection this once forced is gone: every
            # median is now exact from the count of each value, in Rust).
            medians = result.aggregate("median")
            for run in expected["runs"]:
                for m in result.metrics:
                    want = run["metrics"][m]["median"]
                    got = medians[run["name"]][m]["median"]
                    assert bits(got) == bits(math.nan if want is None else want), ("tasks", run["name"], m)
        flat = {(r, m, a): bits(v) for r, ms in aggregates.items() for m, aa in ms.items() for a, v in aa.items()}
        if seen is not None:
            assert flat == seen, f"partitions={partitions}"
        seen = flat
        counts = result.counts()
        # Users 0-19 are judged only, 20-39 in the runs only; y has no skewed user.
        assert counts["x"]["run_only"] == 20 and counts["y"]["run_only"] == 20
        if missing == "skip":
            assert counts["x"]["missing_skipped"] == 20 and counts["y"]["missing_skipped"] == 21
        else:
            assert counts["x"]["missing_zero"] == 20 and counts["y"]["missing_zero"] == 21
        assert any("21 judged queries" in w for w in result.warnings())
        result.unpersist()


CORPUS = ["catalog_coverage@10", "gini@10", "entropy@10", "novelty@10", "avg_popularity@10", "long_tail_share@10", "ild@10"]


def test_corpus_metrics_equal_the_cli_for_any_partitioning(spark, logs, tmp_path):
    """Every list of each run updates mergeable corpus states in its task;
    the driver merges them: the command line's corpus values bit for bit,
    for 1, 3 and 8 partitions (tied scores, the skewed user's 100,000 items
    cut at 10)."""
    run_pd, qrels_pd, (qrels_path, run_paths) = logs
    items = sorted({str(i) for i in run_pd["item"]} | {str(i) for i in qrels_pd["item"]})
    rng = random.Random(11)
    catalog = tmp_path / "catalog.txt"
    catalog.write_text("".join(f"{i}\n" for i in items))
    training = tmp_path / "train.csv"
    training.write_text(
        "user,item\n" + "".join(f"t{rng.randrange(200)},{rng.choice(items)}\n" for _ in range(3000))
    )
    features = tmp_path / "item_features.csv"
    features.write_text(
        "item,a,b,c\n" + "".join(f"{i},{rng.random()!r},{rng.random()!r},{rng.randrange(2)}\n" for i in items)
    )
    inputs = dict(catalog=str(catalog), training=str(training), features=str(features))
    args = ["eval", "--qrels", str(qrels_path), "--format", "json", "--catalog", str(catalog)]
    args += ["--train", str(training), "--item-features", str(features)]
    for run in run_paths:
        args += ["--run", str(run)]
    for m in ["p@5", *CORPUS]:
        args += ["-m", m]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    expected = {r["name"]: r["corpus"] for r in json.loads(done.stdout)["runs"]}
    run_df = spark.createDataFrame(run_pd)
    qrels_df = spark.createDataFrame(qrels_pd)
    for partitions in (1, 3, 8):
        result = rs.evaluate(
            run_df,
            qrels_df,
            ["p@5"],
            query="user",
            doc="item",
            grade="rating",
            run="sys",
            partitions=partitions,
            corpus=CORPUS,
            **inputs,
        )
        got = result.corpus()
        assert got.keys() == expected.keys()
        for run, values in expected.items():
            assert values.keys() == got[run].keys()
            wrong = [m for m, v in values.items() if bits(got[run][m]) != bits(v)]
            assert not wrong, (partitions, run, {m: (got[run][m], values[m]) for m in wrong})
        # The per-query table is as without corpus metrics.
        assert result.per_query.columns == ["query", "run", "p@5"]
        result.unpersist()
    with pytest.raises(ValueError, match="needs the catalog"):
        rs.evaluate(run_df, qrels_df, ["p@5"], query="user", doc="item", corpus=["catalog_coverage"])


def test_one_run_without_a_run_column_and_qrels_without_grades(spark, tmp_path):
    run_df = spark.createDataFrame(
        [("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "c", 2.0), ("q2", "a", 1.0)], ["query", "doc", "score"]
    )
    qrels_df = spark.createDataFrame([("q1", "c"), ("q2", "b")], ["query", "doc"])
    # A metric whose name holds a dot is a column all the same.
    result = rs.evaluate(run_df, qrels_df, ["ap", "rbp(p=0.8)"], name="bm25")
    assert result.metrics == ["ap", "rbp(p=0.8)"]
    assert result.aggregate("max")["bm25"]["rbp(p=0.8)"]["max"] > 0
    values = {(r["run"], r["query"]): r["ap"] for r in result.per_query.collect()}
    # q1: c is tied with b at 2.0; ties go by document id descending, so c is
    # second: AP = 1/2. q2: b is not retrieved: 0.
    assert values == {("bm25", "q1"): 0.5, ("bm25", "q2"): 0.0}
    assert result.aggregate()["bm25"]["ap"]["mean"] == 0.25
    assert any("no grade column" in w for w in result.warnings())


def test_order_dependent_options_and_bad_input_are_refused(spark):
    run_df = spark.createDataFrame([("q1", "a", 1.0)], ["query", "doc", "score"])
    qrels_df = spark.createDataFrame([("q1", "a", 1)], ["query", "doc", "grade"])
    with pytest.raises(ValueError, match="Spark does not keep"):
        rs.evaluate(run_df, qrels_df, "ap", ties="input")
    with pytest.raises(InputError, match="no column `user`"):
        rs.evaluate(run_df, qrels_df, "ap", query="user")
    with pytest.raises(Exception, match="unknown metric|no metric"):
        rs.evaluate(run_df, qrels_df, "not_a_metric")
    with pytest.raises(ValueError, match="on Spark, one of"):
        rs.evaluate(run_df, qrels_df, "ap").aggregate("ci")


def test_a_repeated_document_fails_the_job_with_the_reason(spark):
    run_df = spark.createDataFrame([("q1", "a", 1.0), ("q1", "a", 0.5)], ["query", "doc", "score"])
    qrels_df = spark.createDataFrame([("q1", "a", 1)], ["query", "doc", "grade"])
    with pytest.raises(Exception, match="repeat|duplicate|twice") as failure:
        rs.evaluate(run_df, qrels_df, "ap").per_query.collect()
    # Named by its query and the Python keyword, not by a row of a chunk.
    message = str(failure.value)
    assert "query `q1`, column `doc`" in message and 'pass duplicates="first"' in message, message
    assert "on row" not in message and "--duplicates" not in message, message
    # duplicates="first" keeps the best-scored occurrence: no row order involved.
    result = rs.evaluate(run_df, qrels_df, "ap", duplicates="first")
    assert result.per_query.collect()[0]["ap"] == 1.0
    assert result.counts()["run"]["duplicates_dropped"] == 1


def test_a_null_id_is_named_by_the_dataframes_own_column(spark):
    # The layout calls the column `query`; the user's DataFrame calls it `user`.
    run_df = spark.createDataFrame([("u1", "a", 1.0), (None, "b", 0.5)], "user string, item string, score double")
    qrels_df = spark.createDataFrame([("u1", "a", 1)], ["user", "item", "grade"])
    with pytest.raises(Exception, match="null") as failure:
        rs.evaluate(run_df, qrels_df, "ap", query="user", doc="item").per_query.collect()
    message = str(failure.value)
    assert "column `user`" in message and "column `query`" not in message, message


@pytest.mark.parametrize(
    "options,flags",
    [
        ({}, []),
        ({"test": "randomization", "seed": 7, "resamples": 500}, ["--test", "randomization", "--seed", "7", "--resamples", "500"]),
        ({"test": "bootstrap", "seed": 11, "resamples": 300}, ["--test", "bootstrap", "--seed", "11", "--resamples", "300"]),
        (
            {"test": "bootstrap_keyed", "seed": 11, "resamples": 300},
            ["--test", "bootstrap-keyed", "--seed", "11", "--resamples", "300"],
        ),
    ],
    ids=["t", "randomization", "bootstrap", "bootstrap-keyed"],
)
# The t case also checks the query-keyed statistics.
def test_comparisons_and_gates_equal_the_cli_and_read_back_from_parquet(spark, logs, tmp_path, options, flags):
    run_pd, qrels_pd, (qrels_path, run_paths) = logs
    gates = ["ap:non_inferior(margin=0.5)", "ndcg@10:at_least(0.9)"]
    args = ["eval", "--qrels", str(qrels_path), "--format", "json", "--per-query", "--baseline", "x", *flags]
    for run in run_paths:
        args += ["--run", str(run)]
    for m in METRICS:
        args += ["-m", m]
    args += [f"--gate={g}" for g in gates]
    done = cli(*args)
    assert done.returncode == 1, done.stderr  # the at_least gate fails
    expected = json.loads(done.stdout)["comparison"]
    result = rs.evaluate(
        spark.createDataFrame(run_pd),
        spark.createDataFrame(qrels_pd),
        METRICS,
        query="user",
        doc="item",
        grade="rating",
        run="sys",
        partitions=5,
    )
    comparison = result.compare("x", gates=gates, **options)
    assert comparison.to_dict() == expected
    assert not comparison.passed
    saved = tmp_path / "per_query"
    result.write_parquet(str(saved))
    assert rs.read_per_query(str(saved)).compare("x", gates=gates, **options).to_dict() == expected
    # `rankeval report` on the job's Parquet alone: the same comparison and gates.
    done = cli("report", str(saved), "--format", "json", "--baseline", "x", *flags, *[f"--gate={g}" for g in gates])
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["comparison"] == expected
    # The command line reads the Spark job's Parquet as a baseline, too.
    args = ["eval", "--qrels", str(qrels_path), "--run", str(run_paths[1]), "--format", "json", "--per-query",
            "--baseline", str(saved), "--baseline-run", "x", *flags]
    for m in METRICS:
        args += ["-m", m]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    from_parquet = json.loads(done.stdout)["comparison"]
    keys = ("difference", "p_value", "corrected_p_value", "interval", "wins", "losses", "ties", "baseline_mean")
    for cell, want in zip(from_parquet["comparisons"], expected["comparisons"]):
        assert {k: cell[k] for k in keys} == {k: want[k] for k in keys}
    if not options:
        # Query-keyed statistics merged from the partitions: Student's t equals
        # the command line's --test t, and everything equals the same
        # statistics on the Parquet output, computed on one machine.
        keyed = result.keyed_compare("x", resamples=500, seed=3)
        assert keyed == rs.read_per_query(str(saved)).keyed_compare("x", resamples=500, seed=3)
        for cell in expected["comparisons"]:
            mine = keyed[cell["run"]][cell["metric"]]
            assert mine["queries"] == cell["queries"]
            assert mine["difference"] == cell["difference"]
            assert mine["p_value"] == cell["p_value"]
            assert mine["interval"][:2] == (cell["interval"]["lower"], cell["interval"]["upper"])
            lower, upper, _ = mine["jackknife"]
            assert lower < mine["difference"] < upper
            assert 0 < mine["sign_flip_p_value"] <= 1
        # The command line's keyed sign flip and jackknife interval on the
        # Parquet output give the Spark job's p-values and intervals.
        args = ["eval", "--qrels", str(qrels_path), "--run", str(run_paths[1]), "--format", "json",
                "--baseline", str(saved), "--baseline-run", "x", "--test", "randomization-keyed",
                "--resamples", "500", "--seed", "3", "--interval", "jackknife"]
        for m in METRICS:
            args += ["-m", m]
        done = cli(*args)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)["comparison"]
        assert report["provenance"]["rng"].startswith("ChaCha8")
        assert report["provenance"]["interval_method"] == "jackknife"
        for cell in report["comparisons"]:
            assert cell["p_value"] == keyed["y"][cell["metric"]]["sign_flip_p_value"], cell["metric"]
            lower, upper, _ = keyed["y"][cell["metric"]]["jackknife"]
            assert (cell["interval"]["lower"], cell["interval"]["upper"]) == (lower, upper), cell["metric"]
    result.unpersist()


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_keyed_bootstrap_and_tukey_merged_from_partitions_equal_the_cli(spark, logs, tmp_path, missing):
    """The keyed bootstrap and the keyed randomized Tukey HSD, merged from
    the partitions' states: the same bits for 1 and 7 partitions, as on the
    Parquet output on one machine, and as the command line's --test
    bootstrap-keyed and --all-pairs --test randomization-keyed."""
    run_pd, qrels_pd, (qrels_path, run_paths) = logs
    common = ["--qrels", str(qrels_path), "--format", "json", "--missing", missing,
              "--resamples", "300", "--seed", "5"]
    for run in run_paths:
        common += ["--run", str(run)]
    for m in METRICS:
        common += ["-m", m]
    outcomes = []
    for partitions in (1, 7):
        result = rs.evaluate(
            spark.createDataFrame(run_pd), spark.createDataFrame(qrels_pd), METRICS,
            query="user", doc="item", grade="rating", run="sys", missing=missing, partitions=partitions,
        )
        keyed = result.keyed_compare("x", resamples=300, seed=5)
        tukey = result.keyed_tukey(resamples=300, seed=5)
        outcomes.append((keyed, tukey))
        if partitions == 7:
            saved = tmp_path / "per_query"
            result.write_parquet(str(saved))
            table = rs.read_per_query(str(saved), missing=missing)
            assert table.keyed_compare("x", resamples=300, seed=5) == keyed
            assert table.keyed_tukey(resamples=300, seed=5) == tukey
        result.unpersist()
    assert outcomes[0] == outcomes[1]
    keyed, tukey = outcomes[1]

    done = cli("eval", *common, "--baseline", "x", "--test", "bootstrap-keyed")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["comparison"]
    assert report["provenance"]["rng"] == keyed["y"]["ap"]["bootstrap_rng"]
    for cell in report["comparisons"]:
        mine = keyed[cell["run"]][cell["metric"]]
        lower, upper, _ = mine["bootstrap"]
        assert (cell["interval"]["lower"], cell["interval"]["upper"]) == (lower, upper), cell["metric"]
        assert cell["p_value"] == mine["bootstrap_p_value"], cell["metric"]
        assert lower <= mine["difference"] <= upper

    done = cli("eval", *common, "--all-pairs", "--test", "randomization-keyed")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["comparison"]
    assert report["provenance"]["test"] == "randomized_tukey_hsd_keyed"
    assert report["provenance"]["rng"] == tukey["ap"]["rng"]
    assert len(report["comparisons"]) == len(METRICS)
    for cell in report["comparisons"]:
        (pair,) = tukey[cell["metric"]]["pairs"]
        assert (pair["baseline"], pair["run"]) == (cell["baseline"], cell["run"])
        assert cell["p_value"] == pair["p_value"], cell["metric"]
        assert cell["queries"] == tukey[cell["metric"]]["queries"], cell["metric"]
        # Bit for bit: the mean of the paired differences on both sides.
        assert cell["difference"] == pair["difference"], cell["metric"]
    assert any(0.01 < t["pairs"][0]["p_value"] < 1 for t in tukey.values())
