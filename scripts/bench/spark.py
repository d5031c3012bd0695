"""Benchmark of rankeval on Spark (``rankeval_rs.spark``) against Spark
MLlib's ranking evaluators, on a synthetic recommender log generated inside
Spark (``local[2]``). A benchmark script, not a test.

    PYSPARK_PYTHON is set to this interpreter; run it with the Spark venv:

    nice -n 5 target/spark-venv/bin/python scripts/bench/spark.py \\
        [--rows 10000000] [--runs 3] [--partitions 8] [--seed 7] \\
        [--driver-memory 6g] [--no-mllib-rdd] [--json out.json]

The log: users with 80 to 120 ranked items each (about 100; ``--rows``
rows in all, approximately), scores rounded to two decimals (ties within a
user), and 5 to 15 held-out interactions per user (about 10; a few fewer
after repeats are dropped) with grades 1-3, about half of them in the
user's list, mostly near its top. Item ids have seven digits, so their
numeric and text orders agree (rankeval breaks score ties by document id,
as text; the MLlib input below by the number). Generated with
``spark.range`` and ``xxhash64`` expressions of the seed (no Python rows),
cached and counted before any timing.

Timed, ``--runs`` times each in the same Spark session (the order of the
jobs rotated from run to run), median reported with ratios against the
rankeval job:

* ``rankeval``: ``rs.evaluate(run, qrels, ["ap", "ap@10", "p@10",
  "ndcg@10"])``, the per-query table written as Parquet under a temporary
  directory, then ``aggregate(["mean"])``;
* ``mllib``: the input of ``pyspark.ml.evaluation.RankingEvaluator`` built
  as users build it (per user, ``collect_list`` of items ordered by score,
  joined with the list of relevant items), then one evaluator call per
  metric (meanAveragePrecision, meanAveragePrecisionAtK, precisionAtK,
  ndcgAtK, k = 10), the input not cached (each call recomputes it);
* ``mllib_cached``: the same with the input cached before the four calls
  (its building and caching timed);
* ``mllib_rdd``: ``pyspark.mllib.evaluation.RankingMetrics`` on the same
  input (as an RDD of (prediction, labels) pairs, through Python), cached,
  the four metrics (``--no-mllib-rdd`` leaves it out);
* ``noop``: rankeval's pipeline (union with a side column, repartition by
  query, sortWithinPartitions, mapInArrow) with a function that reads its
  batches and yields nothing: Spark's own share of the rankeval job.

Memory, sampled every 50 ms in a thread while each job runs: the resident
memory (RSS) of the driver's Python process, of the JVM (in local mode the
driver and the executor, a child of this process) and the proportional set
size (PSS) of the Python workers (children of the JVM); also the JVM's peak
heap use (its memory pools' peaks, reset before each job after a
System.gc()). Peaks are reported as the median over the runs and as ratios.

Also timed, to show where rankeval's time goes: ``rankeval_core``, the
same pipeline with rankeval's evaluator in the mapInArrow function but its
output dropped (no persist, Parquet or aggregation), each task reporting the
seconds spent inside the evaluator's push/finish calls.

After the first run, untimed: agreement of rankeval's means with MLlib's
where their definitions agree (asserted within 1e-12): meanAveragePrecision
= ``ap`` (both divide by |relevant|), meanAveragePrecisionAtK =
``ap(norm=truncated)@10`` (both divide by min(k, |relevant|); rankeval's
``ap@10`` divides by |relevant|, as trec_eval), precisionAtK = ``p@10``,
ndcgAtK = ``ndcg(gain=binary)@10``; the differences where they do not
(``ap@10``, the graded ``ndcg@10``). Then MLlib's defects on tiny hand-made
data, rankeval's values beside them: (i) graded relevance: RankingEvaluator
has no relevance column, and pyspark's RankingMetrics accepts (prediction,
labels, relevance) triples but its bridge (PythonMLLibAPI.newRankingMetrics)
keeps two columns, so the graded nDCG comes back binary; the Scala class
given the triples (``RankingMetrics.of`` through py4j) uses 2^g - 1 gains;
(ii) that Scala nDCG takes the ideal DCG in the order the labels are
listed, not sorted by gain: above 1 for a perfect ranking; (iii) a repeated
item in the predictions counts twice (MAP 2.0).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

os.environ["PYSPARK_PYTHON"] = sys.executable
os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable

K = 10
ITEM_MOD = 999_983  # a prime: base + p * stride (mod ITEM_MOD) differ for p < ITEM_MOD
ITEM_BASE = 1_000_000  # seven-digit item ids: numeric order = text order
RANKEVAL_METRICS = ["ap", "ap@10", "p@10", "ndcg@10"]
MLLIB_METRICS = ["meanAveragePrecision", "meanAveragePrecisionAtK", "precisionAtK", "ndcgAtK"]
TOLERANCE = 1e-12
RANKEVAL_PHASES: list[dict[str, float]] = []  # the rankeval job's time, by step, each run


# ---------------------------------------------------------------- memory


def _read_status(pid: int) -> dict[str, str]:
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                out[key] = value.strip()
    except OSError:
        pass
    return out


def _rss(pid: int) -> int:
    value = _read_status(pid).get("VmRSS")
    return int(value.split()[0]) * 1024 if value else 0


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return _rss(pid)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        tree.setdefault(ppid, []).append(int(name))
    return tree


def _descendants(pid: int, tree: dict[int, list[int]]) -> list[int]:
    out, stack = [], list(tree.get(pid, []))
    while stack:
        p = stack.pop()
        out.append(p)
        stack.extend(tree.get(p, []))
    return out


def find_jvm() -> int | None:
    tree = _children()
    for pid in _descendants(os.getpid(), tree):
        if _read_status(pid).get("Name") == "java":
            return pid
    return None


class Sampler:
    """Peak RSS of the driver and the JVM and peak PSS sum of the JVM's
    Python workers while the ``with`` block runs."""

    def __init__(self, jvm: int | None, interval: float = 0.05) -> None:
        self.jvm = jvm
        self.interval = interval
        self.peak = {"driver_rss": 0, "jvm_rss": 0, "workers_pss": 0}
        self.start: dict[str, int] = {}
        self._stop = threading.Event()

    def _sample(self) -> None:
        self.peak["driver_rss"] = max(self.peak["driver_rss"], _rss(os.getpid()))
        if self.jvm is not None:
            self.peak["jvm_rss"] = max(self.peak["jvm_rss"], _rss(self.jvm))
            workers = _descendants(self.jvm, _children())
            self.peak["workers_pss"] = max(self.peak["workers_pss"], sum(_pss(p) for p in workers))

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def __enter__(self) -> "Sampler":
        self._sample()
        self.start = dict(self.peak)
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


class HeapPeak:
    """The JVM's peak heap use (sum of its heap pools' peaks) since reset."""

    def __init__(self, spark: Any) -> None:
        jvm = spark.sparkContext._jvm
        self._system = jvm.java.lang.System
        pools = jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
        self._pools = [pools.get(i) for i in range(pools.size())]
        self._pools = [p for p in self._pools if p.getType().toString() == "Heap memory"]

    def reset(self) -> None:
        self._system.gc()
        for p in self._pools:
            p.resetPeakUsage()

    def peak(self) -> int:
        return sum(p.getPeakUsage().getUsed() for p in self._pools)


# ---------------------------------------------------------------- data


def generate(spark: Any, rows: int, seed: int, partitions: int) -> tuple[Any, Any]:
    """The run (user, item, score) and the judgements (user, item, grade),
    from spark.range and hashes of the seed."""
    from pyspark.sql import functions as F

    per_user_max = 120
    users = max(1, rows // 100)

    def h(*cols: Any) -> Any:
        return F.xxhash64(*cols, F.lit(seed))

    def unit(*cols: Any) -> Any:  # a uniform double in [0, 1)
        return F.pmod(h(*cols), F.lit(1 << 30)).cast("double") / float(1 << 30)

    def item(p: Any) -> Any:
        base = F.pmod(h(F.col("user"), F.lit("base")), F.lit(ITEM_MOD))
        stride = F.lit(1) + F.pmod(h(F.col("user"), F.lit("stride")), F.lit(ITEM_MOD - 1))
        return (F.lit(ITEM_BASE) + F.pmod(base + p * stride, F.lit(ITEM_MOD))).cast("long")

    length = F.lit(80) + F.pmod(h(F.col("user"), F.lit("length")), F.lit(41))
    run = (
        spark.range(0, users * per_user_max, numPartitions=partitions)
        .select((F.col("id") / per_user_max).cast("long").alias("user"), (F.col("id") % per_user_max).alias("pos"))
        .where(F.col("pos") < length)
        .select(
            "user",
            item(F.col("pos")).alias("item"),
            # Mostly decreasing with the position, some noise, two decimals: ties.
            F.round(
                F.lit(0.7) * (F.lit(1.0) - F.col("pos") / length) + F.lit(0.3) * unit(F.col("user"), F.col("pos")),
                2,
            ).alias("score"),
        )
    )
    judged_max = 15
    count = F.lit(5) + F.pmod(h(F.col("user"), F.lit("judged")), F.lit(11))
    # Positions in [0, 300), skewed to the front (u^2): about half in the list.
    u = unit(F.col("user"), F.col("j"), F.lit("pos"))
    qrels = (
        spark.range(0, users * judged_max, numPartitions=partitions)
        .select((F.col("id") / judged_max).cast("long").alias("user"), (F.col("id") % judged_max).alias("j"))
        .where(F.col("j") < count)
        .select(
            "user",
            item(F.floor(u * u * 300).cast("long")).alias("item"),
            (F.lit(1) + F.pmod(h(F.col("user"), F.col("j"), F.lit("grade")), F.lit(3))).cast("int").alias("grade"),
        )
        .dropDuplicates(["user", "item"])
    )
    return run, qrels


# ---------------------------------------------------------------- jobs


def mllib_input(run_df: Any, qrels_df: Any) -> Any:
    """RankingEvaluator's input as users build it: per user, the items by
    descending score (ties by descending item, as rankeval's docid order
    here) as doubles, joined with the relevant items."""
    from pyspark.sql import functions as F

    predicted = run_df.groupBy("user").agg(
        F.sort_array(F.collect_list(F.struct("score", "item")), asc=False).alias("ranked")
    )
    predicted = predicted.select("user", F.col("ranked.item").cast("array<double>").alias("prediction"))
    labels = qrels_df.groupBy("user").agg(F.collect_list(F.col("item").cast("double")).alias("label"))
    return predicted.join(labels, "user")


def mllib_evaluate(data: Any) -> dict[str, float]:
    from pyspark.ml.evaluation import RankingEvaluator

    out = {}
    for metric in MLLIB_METRICS:
        evaluator = RankingEvaluator(predictionCol="prediction", labelCol="label", metricName=metric, k=K)
        out[metric] = evaluator.evaluate(data)
    return out


def job_rankeval(run_df: Any, qrels_df: Any, partitions: int, scratch: Path) -> dict[str, float]:
    from rankeval_rs import spark as rs

    t0 = time.perf_counter()
    result = rs.evaluate(run_df, qrels_df, RANKEVAL_METRICS, query="user", doc="item", partitions=partitions)
    t1 = time.perf_counter()
    out_dir = Path(tempfile.mkdtemp(dir=scratch, prefix="per-query-"))
    result.write_parquet(str(out_dir / "per_query"))
    t2 = time.perf_counter()
    means = result.aggregate(["mean"])["run"]
    t3 = time.perf_counter()
    result.unpersist()
    RANKEVAL_PHASES.append({"evaluate (lazy)": t1 - t0, "write_parquet": t2 - t1, "aggregate": t3 - t2})
    shutil.rmtree(out_dir, ignore_errors=True)
    return {m: means[m]["mean"] for m in result.metrics}


def job_mllib(run_df: Any, qrels_df: Any, partitions: int, scratch: Path) -> dict[str, float]:
    return mllib_evaluate(mllib_input(run_df, qrels_df))


def job_mllib_cached(run_df: Any, qrels_df: Any, partitions: int, scratch: Path) -> dict[str, float]:
    data = mllib_input(run_df, qrels_df).cache()
    data.count()
    out = mllib_evaluate(data)
    data.unpersist()
    return out


def job_mllib_rdd(run_df: Any, qrels_df: Any, partitions: int, scratch: Path) -> dict[str, float]:
    from pyspark.mllib.evaluation import RankingMetrics

    pairs = mllib_input(run_df, qrels_df).select("prediction", "label").rdd.map(lambda r: (r[0], r[1])).cache()
    metrics = RankingMetrics(pairs)
    out = {
        "meanAveragePrecision": metrics.meanAveragePrecision,
        "meanAveragePrecisionAtK": metrics.meanAveragePrecisionAt(K),
        "precisionAtK": metrics.precisionAt(K),
        "ndcgAtK": metrics.ndcgAt(K),
    }
    pairs.unpersist()
    return out


NATIVE_SHARE: list[dict[str, float]] = []  # the rankeval_core job's time inside the evaluator, each run


def sided_pipeline(run_df: Any, qrels_df: Any, partitions: int) -> Any:
    """rankeval_rs.spark.evaluate's input pipeline: the run and judgement
    rows in one table with a side column, repartitioned by query, sorted
    within partitions."""
    from pyspark.sql import functions as F

    ranked = run_df.select(
        F.lit(1).cast("byte").alias("side"),
        F.lit("run").alias("run"),
        F.col("user").cast("string").alias("query"),
        F.col("item").cast("string").alias("doc"),
        F.col("score").cast("double").alias("score"),
        F.lit(None).cast("double").alias("grade"),
    )
    judged = qrels_df.select(
        F.lit(0).cast("byte").alias("side"),
        F.lit(None).cast("string").alias("run"),
        F.col("user").cast("string").alias("query"),
        F.col("item").cast("string").alias("doc"),
        F.lit(None).cast("double").alias("score"),
        F.col("grade").cast("double").alias("grade"),
    )
    return ranked.unionByName(judged).repartition(partitions, "query").sortWithinPartitions("query", "side")


def job_noop(run_df: Any, qrels_df: Any, partitions: int, scratch: Path) -> dict[str, float]:
    """rankeval_rs.spark.evaluate's pipeline up to mapInArrow, with a
    function that reads every batch and yields nothing."""
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    sided = sided_pipeline(run_df, qrels_df, partitions)

    def nothing(batches: Any) -> Any:
        for _ in batches:
            pass
        return iter(())

    schema = StructType([StructField("query", StringType()), StructField("x", DoubleType())])
    rows = sided.mapInArrow(nothing, schema).collect()
    assert not rows
    return {}


def job_rankeval_core(run_df: Any, qrels_df: Any, partitions: int, scratch: Path) -> dict[str, float]:
    """The same pipeline with rankeval's evaluator in the mapInArrow
    function (its per-query output dropped; no persist, Parquet or
    aggregation): each task yields the seconds spent in the evaluator's
    push and finish calls, and the rows it read."""
    from pyspark.sql.types import DoubleType, LongType, StructField, StructType

    sided = sided_pipeline(run_df, qrels_df, partitions)
    specs = list(RANKEVAL_METRICS)

    def evaluate(batches: Any) -> Any:
        import time as clock

        import pyarrow as pa

        from rankeval_rs import _native as native

        evaluator = native.SparkEvaluator(
            specs, ["run"], missing="skip", rel=1.0, ties="docid", duplicates_policy="error",
            score_threshold=None, threads=1,
        )
        inside, rows, out_rows = 0.0, 0, 0
        for batch in batches:
            rows += batch.num_rows
            t = clock.perf_counter()
            out = evaluator.push(batch)
            inside += clock.perf_counter() - t
            out_rows += 0 if out is None else out.num_rows
        t = clock.perf_counter()
        out = evaluator.finish()
        inside += clock.perf_counter() - t
        out_rows += 0 if out is None else out.num_rows
        yield pa.RecordBatch.from_pydict({"seconds": [inside], "rows": [rows], "out_rows": [out_rows]})

    schema = StructType(
        [StructField("seconds", DoubleType()), StructField("rows", LongType()), StructField("out_rows", LongType())]
    )
    got = sided.mapInArrow(evaluate, schema).collect()
    NATIVE_SHARE.append(
        {
            "evaluator_task_seconds": sum(r["seconds"] for r in got),
            "rows": sum(r["rows"] for r in got),
            "out_rows": sum(r["out_rows"] for r in got),
        }
    )
    return {}


JOBS: dict[str, Callable[..., dict[str, float]]] = {
    "rankeval": job_rankeval,
    "rankeval_core": job_rankeval_core,
    "mllib": job_mllib,
    "mllib_cached": job_mllib_cached,
    "mllib_rdd": job_mllib_rdd,
    "noop": job_noop,
}


# ---------------------------------------------------------------- agreement


def agreement(run_df: Any, qrels_df: Any, partitions: int, mllib: dict[str, float]) -> dict[str, Any]:
    """rankeval's means beside MLlib's. Every judged item has grade >= 1,
    so MLlib's label lists are the binary relevance of rankeval's rel=1."""
    from rankeval_rs import spark as rs

    specs = ["ap", "ap(norm=truncated)@10", "p@10", "ndcg(gain=binary)@10", "ap@10", "ndcg@10"]
    result = rs.evaluate(run_df, qrels_df, specs, query="user", doc="item", partitions=partitions)
    means = {m: v["mean"] for m, v in result.aggregate(["mean"])["run"].items()}
    counts = result.counts()["run"]
    result.unpersist()
    pairs = [
        # (MLlib metric, rankeval metric, definitions agree?, why)
        ("meanAveragePrecision", "ap", True, "both divide by |relevant|"),
        ("meanAveragePrecisionAtK", "ap(norm=truncated)@10", True, "both divide by min(k, |relevant|)"),
        ("meanAveragePrecisionAtK", "ap@10", False, "rankeval ap@10 divides by |relevant| (trec_eval)"),
        ("precisionAtK", "p@10", True, "both divide by k"),
        ("ndcgAtK", "ndcg(gain=binary)@10", True, "binary gains, ideal of min(k, |relevant|) ones"),
        ("ndcgAtK", "ndcg@10", False, "rankeval ndcg@10 uses the grades 1-3 as gains"),
    ]
    rows = []
    for ml, ours, agree, why in pairs:
        diff = means[ours] - mllib[ml]
        rows.append(
            {
                "mllib": ml,
                "rankeval": ours,
                "mllib_value": mllib[ml],
                "rankeval_value": means[ours],
                "difference": diff,
                "definitions_agree": agree,
                "within_tolerance": abs(diff) <= TOLERANCE,
                "why": why,
            }
        )
    return {"rows": rows, "counts": counts}


# ---------------------------------------------------------------- defects


def defects(spark: Any) -> list[dict[str, Any]]:
    """MLlib's behaviour on tiny hand-made lists, rankeval's beside it."""
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.mllib.evaluation import RankingMetrics

    from rankeval_rs import spark as rs

    sc = spark.sparkContext

    def ours(pred: list[float], labels: list[float], grades: list[float], metrics: list[str], **kw: Any) -> dict:
        run = [("q", str(int(d)), float(len(pred) - i)) for i, d in enumerate(pred)]
        qrels = [("q", str(int(d)), float(g)) for d, g in zip(labels, grades)]
        run_df = spark.createDataFrame(run, "query string, doc string, score double")
        qrels_df = spark.createDataFrame(qrels, "query string, doc string, grade double")
        result = rs.evaluate(run_df, qrels_df, metrics, partitions=1, **kw)
        row = result.per_query.collect()[0]
        out = {m: row[m] for m in result.metrics}
        result.unpersist()
        return out

    def ml(pred: list[float], labels: list[float]) -> dict:
        df = spark.createDataFrame([(pred, labels)], "prediction array<double>, label array<double>")
        out = {}
        for metric in MLLIB_METRICS:
            out[metric] = RankingEvaluator(metricName=metric, k=K).evaluate(df)
        return out

    def scala_ndcg(pred: list[float], labels: list[float], rel: list[float]) -> float:
        """ndcgAt(k) of the Scala RankingMetrics given (prediction, labels,
        relevance) triples directly (RankingMetrics.of, through py4j): the
        Python wrapper cannot (PythonMLLibAPI.newRankingMetrics keeps two
        columns)."""
        jvm = sc._jvm

        def jlist(xs: list[float]) -> Any:
            out = jvm.java.util.ArrayList()
            for x in xs:
                out.add(float(x))
            return out

        rows = jvm.java.util.ArrayList()
        rows.add(jvm.scala.Tuple3(jlist(pred), jlist(labels), jlist(rel)))
        metrics = jvm.org.apache.spark.mllib.evaluation.RankingMetrics.of(sc._jsc.parallelize(rows, 1))
        return metrics.ndcgAt(K)

    cases = []

    # (i) graded relevance: labels listed best first, the list ranks them worst first.
    pred, labels, rel = [1.0, 2.0], [2.0, 1.0], [3.0, 1.0]
    graded = RankingMetrics(sc.parallelize([(pred, labels, rel)], 1)).ndcgAt(K)
    binary = RankingMetrics(sc.parallelize([(pred, labels)], 1)).ndcgAt(K)
    cases.append(
        {
            "case": "(i) graded relevance",
            "data": {"prediction": pred, "labels": labels, "relevance": rel},
            "mllib": {
                "RankingMetrics(pred, labels, relevance).ndcgAt(10)": graded,
                "RankingMetrics(pred, labels).ndcgAt(10)": binary,
                "Scala RankingMetrics.of(triples).ndcgAt(10)": scala_ndcg(pred, labels, rel),
                "RankingEvaluator relevance column": "none (params: %s)"
                % ", ".join(sorted(p.name for p in RankingEvaluator().params)),
            },
            "rankeval": ours(
                pred, labels, rel, ["ndcg(gain=exponential)@10", "ndcg@10", "ndcg(gain=binary)@10"]
            ),
            "expected": {
                "ndcg exponential gain (2^g - 1), ideal sorted": (1 / math.log2(2) + 7 / math.log2(3))
                / (7 / math.log2(2) + 1 / math.log2(3)),
            },
            "graded_comes_back_binary (Python API)": graded == binary,
            "graded_comes_back_binary (Scala, triples)": scala_ndcg(pred, labels, rel) == binary,
        }
    )

    # (ii) the ideal DCG is taken in the order the labels are listed, not sorted by gain.
    pred, labels, rel = [2.0, 1.0], [1.0, 2.0], [1.0, 3.0]
    graded = RankingMetrics(sc.parallelize([(pred, labels, rel)], 1)).ndcgAt(K)
    same_sorted = RankingMetrics(sc.parallelize([(pred, [2.0, 1.0], [3.0, 1.0])], 1)).ndcgAt(K)
    cases.append(
        {
            "case": "(ii) ideal DCG not sorted by gain",
            "data": {"prediction": pred, "labels": labels, "relevance": rel},
            "mllib": {
                "RankingMetrics(pred, labels, relevance).ndcgAt(10)": graded,
                "same judgements listed best first": same_sorted,
                "Scala RankingMetrics.of(triples).ndcgAt(10)": scala_ndcg(pred, labels, rel),
                "Scala, same judgements listed best first": scala_ndcg(pred, [2.0, 1.0], [3.0, 1.0]),
            },
            "rankeval": ours(pred, labels, rel, ["ndcg(gain=exponential)@10", "ndcg@10"]),
            "expected": {"a perfect ranking": 1.0},
            "ndcg_above_1 (Python API)": graded > 1.0,
            "ndcg_above_1 (Scala, triples)": scala_ndcg(pred, labels, rel) > 1.0,
        }
    )

    # (iii) a repeated item in the predictions counts twice.
    pred, labels = [1.0, 1.0, 2.0], [1.0]
    mllib_repeated = ml(pred, labels)
    sc.setLogLevel("OFF")  # the failure below is expected: no stack trace
    try:
        ours(pred, labels, [1.0], ["ap"])
        refused = "accepted"
    except Exception as e:  # noqa: BLE001 - reported as measured
        reason = [line for line in str(e).splitlines() if "appears twice" in line]
        refused = "refused: " + (reason[0].strip() if reason else str(e).strip().splitlines()[0])[:240]
    finally:
        sc.setLogLevel("ERROR")
    cases.append(
        {
            "case": "(iii) repeated item in the predictions",
            "data": {"prediction": pred, "labels": labels},
            "mllib": mllib_repeated,
            "rankeval": ours(
                pred, labels, [1.0], ["ap", "ap(norm=truncated)@10", "p@10", "ndcg(gain=binary)@10"], duplicates="first"
            ),
            "rankeval_default_duplicates": refused,
            "map_above_1": mllib_repeated["meanAveragePrecision"] > 1.0,
        }
    )
    return cases


# ---------------------------------------------------------------- main


def fmt_bytes(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--no-mllib-rdd", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--scratch", type=Path, default=Path("/tmp"))
    args = parser.parse_args()

    started = time.perf_counter()
    wall: dict[str, float] = {}
    scratch = Path(tempfile.mkdtemp(dir=args.scratch, prefix="spark-bench-"))
    from pyspark.sql import SparkSession

    import pyspark

    import rankeval_rs

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("rankeval-spark-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(args.partitions))
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.local.dir", str(scratch / "spark-local"))
        .config("spark.sql.warehouse.dir", str(scratch / "warehouse"))
        # So that the heap shrinks after System.gc() between jobs and the RSS peaks are per job.
        .config("spark.driver.extraJavaOptions", "-XX:+UseG1GC -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    failures: list[str] = []
    try:
        jvm = find_jvm()
        heap = HeapPeak(spark)
        print(
            f"pyspark {pyspark.__version__}, rankeval_rs {getattr(rankeval_rs, '__version__', '?')}, "
            f"Python {sys.version.split()[0]}, local[2], {args.partitions} partitions, JVM pid {jvm}",
            flush=True,
        )

        t = time.perf_counter()
        run_df, qrels_df = generate(spark, args.rows, args.seed, args.partitions)
        run_df = run_df.cache()
        qrels_df = qrels_df.cache()
        n_rows = run_df.count()
        n_judged = qrels_df.count()
        n_users = run_df.select("user").distinct().count()
        wall["generate"] = time.perf_counter() - t
        print(
            f"generated {n_rows:,} ranked rows, {n_users:,} users, {n_judged:,} judgements "
            f"in {wall['generate']:.1f} s (cached, not timed below)",
            flush=True,
        )

        names = [n for n in JOBS if not (args.no_mllib_rdd and n == "mllib_rdd")]
        times: dict[str, list[float]] = {n: [] for n in names}
        peaks: dict[str, list[dict[str, int]]] = {n: [] for n in names}
        values: dict[str, list[dict[str, float]]] = {n: [] for n in names}
        t = time.perf_counter()
        for r in range(args.runs):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                heap.reset()
                with Sampler(jvm) as sampler:
                    t0 = time.perf_counter()
                    out = JOBS[name](run_df, qrels_df, args.partitions, scratch)
                    elapsed = time.perf_counter() - t0
                peak = dict(sampler.peak, jvm_heap=heap.peak())
                peak.update({f"{k}_at_start": v for k, v in sampler.start.items()})
                times[name].append(elapsed)
                peaks[name].append(peak)
                values[name].append(out)
                print(
                    f"  run {r + 1} {name:<13} {elapsed:8.2f} s  driver {fmt_bytes(peak['driver_rss'])}, "
                    f"JVM {fmt_bytes(peak['jvm_rss'])} (heap {fmt_bytes(peak['jvm_heap'])}), "
                    f"workers {fmt_bytes(peak['workers_pss'])} (at start {fmt_bytes(peak['workers_pss_at_start'])})",
                    flush=True,
                )
            if r == 0:  # agreement and defects after the first run: kept if a later run is cut short
                t_timed = time.perf_counter() - t
                t = time.perf_counter()
                agree = agreement(run_df, qrels_df, args.partitions, values["mllib"][-1])
                wall["agreement"] = time.perf_counter() - t
                print()
                print(f"agreement (binary relevance: every judged item has grade >= 1; tolerance {TOLERANCE:g}):")
                for row in agree["rows"]:
                    mark = ("OK" if row["within_tolerance"] else "FAIL") if row["definitions_agree"] else "differs"
                    print(
                        f"  {row['mllib']:<24} {row['mllib_value']:.17g}  vs  {row['rankeval']:<22} "
                        f"{row['rankeval_value']:.17g}  diff {row['difference']:+.3g}  [{mark}: {row['why']}]"
                    )
                    if row["definitions_agree"] and not row["within_tolerance"]:
                        failures.append(f"{row['mllib']} vs {row['rankeval']}: {row['difference']:g}")
                print(f"  rankeval's counts: {agree['counts']}")

                t = time.perf_counter()
                demo = defects(spark)
                wall["defects"] = time.perf_counter() - t
                print()
                print("MLlib on tiny hand-made data (rankeval beside it):")
                for case in demo:
                    print(f"  {case['case']}: {json.dumps(case['data'])}")
                    for key in ("mllib", "rankeval", "expected"):
                        if key in case:
                            print(f"    {key}: {case[key]}")
                    for key, value in case.items():
                        if key not in ("case", "data", "mllib", "rankeval", "expected"):
                            print(f"    {key}: {value}")

                t = time.perf_counter() - t_timed
            if args.json:  # what is measured so far, in case the run is cut short
                args.json.write_text(
                    json.dumps({"partial": True, "times_s": times, "peaks": peaks, "values": values,
                                "rankeval_steps": RANKEVAL_PHASES, "rankeval_core": NATIVE_SHARE,
                                "agreement": agree, "defects": demo, "wall_s": wall}, indent=2, default=str)
                    + "\n"
                )
        wall["timed_jobs"] = time.perf_counter() - t

        notes: list[str] = []
        for name in names:  # the same numbers every run?
            if any(v != values[name][0] for v in values[name]):
                spread = {
                    m: max(v[m] for v in values[name]) - min(v[m] for v in values[name]) for m in values[name][0]
                }
                message = f"{name}: the means differ between runs (max - min: {spread})"
                (failures if name == "rankeval" else notes).append(message)

        median = {n: statistics.median(times[n]) for n in names}
        peak_median = {n: {k: statistics.median(p[k] for p in peaks[n]) for k in peaks[n][0]} for n in names}
        base = median["rankeval"]
        print()
        print(f"{n_rows:,} rows, {n_users:,} users, {n_judged:,} judgements; median of {args.runs} runs")
        header = f"{'job':<14}{'time s':>9}{'/ rankeval':>11}{'driver RSS':>12}{'JVM RSS':>11}{'JVM heap':>11}{'workers PSS':>13}"
        print(header)
        print("-" * len(header))
        ref = peak_median["rankeval"]
        for n in names:
            p = peak_median[n]
            print(
                f"{n:<14}{median[n]:>9.2f}{median[n] / base:>10.2f}x"
                f"{fmt_bytes(p['driver_rss']):>12}{fmt_bytes(p['jvm_rss']):>11}"
                f"{fmt_bytes(p['jvm_heap']):>11}{fmt_bytes(p['workers_pss']):>13}"
            )
        print()
        print("peak memory / rankeval's:")
        for n in names:
            p = peak_median[n]
            ratios = "  ".join(
                f"{k} {p[k] / ref[k]:.2f}x" if ref[k] else f"{k} n/a" for k in ("driver_rss", "jvm_rss", "jvm_heap", "workers_pss")
            )
            print(f"  {n:<14}{ratios}")
        print()
        phases = {k: statistics.median(p[k] for p in RANKEVAL_PHASES) for k in RANKEVAL_PHASES[0]}
        print("rankeval job by step (median s): " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()))
        print(
            f"rankeval minus its pipeline with a do-nothing function (noop): {median['rankeval'] - median['noop']:.2f} s"
        )
        native_share = {k: statistics.median(p[k] for p in NATIVE_SHARE) for k in NATIVE_SHARE[0]}
        print(
            f"rankeval_core: {native_share['evaluator_task_seconds']:.2f} s summed over its tasks inside the "
            f"evaluator's push/finish ({native_share['rows']:,.0f} rows in, {native_share['out_rows']:,.0f} out; "
            "2 task slots)"
        )
        print()
        print("rankeval means:", {m: v for m, v in values["rankeval"][0].items()})
        print("MLlib means:   ", values["mllib"][0])
        for other in ("mllib_cached", "mllib_rdd"):
            if other in values and values[other][0] != values["mllib"][0]:
                print(f"  note: {other} gives {values[other][0]}")
        for note in notes:
            print(f"  note: {note}")

        wall["total"] = time.perf_counter() - started
        print()
        print("wall times: " + ", ".join(f"{k} {v:.1f} s" for k, v in wall.items()))
        if args.json:
            summary = {
                "config": {
                    "rows_requested": args.rows,
                    "rows": n_rows,
                    "users": n_users,
                    "judgements": n_judged,
                    "runs": args.runs,
                    "partitions": args.partitions,
                    "seed": args.seed,
                    "driver_memory": args.driver_memory,
                    "master": "local[2]",
                    "pyspark": pyspark.__version__,
                    "python": sys.version.split()[0],
                },
                "times_s": times,
                "median_s": median,
                "rankeval_steps_median_s": phases,
                "rankeval_core_inside_evaluator_median": native_share,
                "notes": notes,
                "ratio_to_rankeval": {n: median[n] / base for n in names},
                "peak_memory_bytes_median": peak_median,
                "peak_memory_ratio_to_rankeval": {
                    n: {k: (peak_median[n][k] / ref[k] if ref[k] else None) for k in ref} for n in names
                },
                "means": {n: values[n][0] for n in names if values[n][0]},
                "agreement": agree,
                "defects": demo,
                "wall_s": wall,
                "failures": failures,
            }
            args.json.write_text(json.dumps(summary, indent=2, default=str) + "\n")
            print(f"wrote {args.json}")
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print("FAILURES:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
