"""Evaluate runs held in Spark DataFrames, on Spark, with the numbers of the
``rankeval`` command bit for bit (``pip install "rankeval-rs[spark]"``).

>>> from rankeval_rs import spark as rs  # doctest: +SKIP
>>> result = rs.evaluate(run_df, qrels_df, ["ap", "ndcg@10"], run="system")  # doctest: +SKIP
>>> result.per_query.show()  # a Spark DataFrame: query, run, one column per metric  # doctest: +SKIP
>>> result.aggregate(["mean", "std"])  # doctest: +SKIP
>>> result.write_parquet("s3://bucket/eval/per_query")  # doctest: +SKIP

How it runs (docs/spark.md): the run rows and the judgement rows are put in
one table with a ``side`` column, repartitioned by query and sorted within
partitions, and handed to rankeval's Rust engine through
``DataFrame.mapInArrow`` as Arrow batches: no Python call per row or per
query. Each query is evaluated as the command line evaluates it, so its
values do not depend on the partitioning. Every aggregate is computed by
the aggregator's own Rust code from mergeable states (exact sums for
means, the count of each value for medians, every value for a plugin's
aggregator): each task updates them, the driver merges and finishes them,
so aggregates are the same bits for any partitioning, and the same bits as
``rankeval eval`` on the same data. This module only orchestrates.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _native, _ope
from ._ope import PathLike

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = [
    "PerQueryTable",
    "SparkEvaluation",
    "evaluate",
    "ope",
    "read_per_query",
]

_KIND = "_kind"
_CORPUS = "_corpus"
_AGGREGATES = "_aggregates"
#: The kind of the evaluator's rows of aggregator states.
_KIND_AGGREGATES = 3
_DEFAULT_FLOOR = 0.00001


def _functions() -> Any:
    try:
        from pyspark.sql import functions
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError(
            'rankeval_rs.spark needs pyspark: pip install "rankeval-rs[spark]" (pyspark 4, Python 3.11+)'
        ) from e
    return functions


def evaluate(
    run_df: DataFrame,
    qrels_df: DataFrame,
    metrics: str | Sequence[str],
    *,
    query: str = "query",
    doc: str = "doc",
    score: str = "score",
    grade: str | None = "grade",
    run: str | None = None,
    name: str = "run",
    missing: str = "skip",
    duplicates: str = "error",
    rel: float = 1.0,
    ties: str = "docid",
    score_threshold: float | None = None,
    partitions: int | None = None,
    threads: int | None = None,
    corpus: str | Sequence[str] = (),
    catalog: str | None = None,
    training: str | None = None,
    features: str | None = None,
    aggregators: str | Sequence[str] = (),
    drop_identical_ids: bool = False,
    subtopic_qrels: str | None = None,
    doc_groups: str | None = None,
    sample: str | None = None,
    group_targets: str | None = None,
    label_counts: str | None = None,
    train_instances: int | None = None,
    inverse_propensities: str | None = None,
) -> SparkEvaluation:
    """Evaluates the run(s) in ``run_df`` against ``qrels_df`` on Spark.

    ``metrics`` are metric names as the command line takes them
    (``"ndcg@10"``, ``"ap(rel=2)"``). ``query``, ``doc``, ``score`` and
    ``grade`` name the columns (ids may be strings or integers; integer ids
    are read as their decimal text, as the command line reads them from
    Parquet); ``grade=None`` (or a qrels table without that column) makes
    every listed pair relevant with grade 1. ``run`` names a column telling
    several runs apart (evaluated in one pass, their values side by side per
    query); without it the table is one run called ``name``.

    ``missing``, ``duplicates``, ``rel``, ``ties`` and ``score_threshold``
    are the command line's ``--missing``, ``--duplicates``, ``--rel``,
    ``--ties`` and ``--score-threshold``; ``drop_identical_ids=True`` is
    ``--drop-identical-ids`` (BEIR's convention: a retrieved document whose
    id is the query's id is dropped before judging, for the corpus metrics
    too). ``ties="input"`` is refused:
    Spark does not keep the order of rows. ``partitions`` is the number of
    partitions the rows are hashed into by query (Spark's shuffle partitions
    by default); ``threads`` the threads each task's evaluator uses
    (``spark.task.cpus`` by default).

    ``corpus`` are corpus metrics (``"catalog_coverage"``, ``"gini@10"``,
    ``"novelty@10"``, ...), computed over every list of each run: each task
    keeps their mergeable states, and :meth:`SparkEvaluation.corpus` merges
    and finishes them on the driver, the command line's bits for any
    partitioning. ``catalog``, ``training`` and ``features`` are the files
    they read, as the command line's ``--catalog``, ``--training`` and
    ``--features``: paths that the driver and every executor can read.

    ``aggregators`` (``"mean"``, ``"median"``, ``"gmean(floor=0.001)"``,
    any registered aggregator, a plugin's included) are updated by the
    evaluation's own tasks: :meth:`SparkEvaluation.aggregate` of them then
    merges their states with no pass over the per-query rows. Other
    aggregators are computed there by one pass over the cached rows.

    ``subtopic_qrels`` and ``doc_groups`` are the command line's
    ``--subtopic-qrels`` and ``--doc-groups``: the subtopic judgements the
    diversity metrics read (``alpha_ndcg@10``, ``err_ia@20``, ``nrbp``,
    ...) and the document groups the group-fairness metrics read
    (``awrf@10``, ``trec_fair@10``), files in any of their formats that the
    driver and every executor can read; each task attaches them to its
    queries' judgements as the command line does, so the values are its
    bits. ``group_targets`` (``--group-targets``, with ``doc_groups``) is
    each query's target over the groups, read by ``awrf(target=given)``
    and ``trec_fair(target=given)``: every judged query needs one.
    ``label_counts`` with ``train_instances`` (``--label-counts``,
    ``--train-instances``), or ``inverse_propensities``
    (``--inverse-propensities``), are the label propensities ``psp@k`` and
    ``psndcg@k`` read.

    The metrics that read the whole qrels at once (``psp``, ``psndcg``:
    a normaliser, the mean over every query of the qrels of its best
    achievable value; ``hole``: the documents judged for any query) cost
    one more job first: a pass over the judgements, repartitioned by
    query, in which each task sums each normaliser's terms exactly over
    its queries and lists the documents it judges; the driver merges them
    and every task of the evaluation is given the result (one sum per
    normaliser and the set of judged documents, docs/spark.md), so the
    values are the command line's bits.

    ``sample`` names a column of ``run_df`` telling each query's sampled
    rankings apart (a stochastic policy, the command line's ``--samples``):
    each query's samples are scored together (expected exposure ``ee_d``,
    ``ee_r``, ``ee_l`` over them; any other metric its mean over them),
    taken in byte order of their ids (the command line takes them in the
    order of its file: the same bits when the file lists them in that
    order).

    Nothing is evaluated until a result is asked for: ``per_query`` is a
    lazy Spark DataFrame (with ``run``, one small job lists the run names
    first, so that every task knows every run).
    """
    specs = [metrics] if isinstance(metrics, str) else list(metrics)
    if not specs:
        raise ValueError("give at least one metric")
    if ties == "input":
        raise ValueError(
            'ties="input" orders tied scores by the order of the rows, which Spark does not keep '
            '(a shuffle reorders them): use ties="docid" (the default) or ties="average"'
        )
    names = _native.canonical_names(specs)
    aggregator_specs = [aggregators] if isinstance(aggregators, str) else list(aggregators)
    evaluated = _native.spark_aggregators(aggregator_specs, _DEFAULT_FLOOR, 1)
    corpus_specs = [corpus] if isinstance(corpus, str) else list(corpus)
    corpus_inputs: dict[str, Any] = dict(catalog=catalog, training=training, features=features)
    # Read by the driver's probe and by every task, as the corpus inputs.
    context_inputs: dict[str, Any] = dict(
        subtopic_qrels=subtopic_qrels,
        doc_groups=doc_groups,
        sample=sample,
        group_targets=group_targets,
        label_counts=label_counts,
        train_instances=train_instances,
        inverse_propensities=inverse_propensities,
    )
    # Built once here so that bad options (and corpus inputs) fail on the
    # driver, before a job; it names the output's columns.
    probe = _native.SparkEvaluator(
        specs,
        ["run"],
        missing=missing,
        rel=rel,
        ties=ties,
        duplicates_policy=duplicates,
        score_threshold=score_threshold,
        corpus=corpus_specs,
        aggregators=evaluated,
        drop_identical_ids=drop_identical_ids,
        **corpus_inputs,
        **context_inputs,
    )
    columns = [c for c in probe.columns() if c not in (_CORPUS, _AGGREGATES)]
    counts = columns[columns.index(_KIND) + 1 :]
    F = _functions()
    _require(run_df, "run_df", [query, doc, score] + ([run] if run else []) + ([sample] if sample else []))
    _require(qrels_df, "qrels_df", [query, doc])
    spark = run_df.sparkSession
    if run is None:
        runs = [name]
        run_column = F.lit(name)
    else:
        rows = run_df.select(F.col(run).cast("string").alias("r")).distinct().collect()
        if any(r["r"] is None for r in rows):
            raise _native.InputError(f"run_df: column `{run}` has a null run name")
        runs = sorted(r["r"] for r in rows)
        run_column = F.col(run).cast("string")
    if threads is None:
        threads = int(spark.conf.get("spark.task.cpus", "1") or "1")
    ranked = run_df.select(
        F.lit(1).cast("byte").alias("side"),
        run_column.alias("run"),
        F.col(query).cast("string").alias("query"),
        F.col(doc).cast("string").alias("doc"),
        F.col(score).cast("double").alias("score"),
        F.lit(None).cast("double").alias("grade"),
        *([F.col(sample).cast("string").alias("sample")] if sample else []),
    )
    has_grade = grade is not None and grade in qrels_df.columns
    judged = qrels_df.select(
        F.lit(0).cast("byte").alias("side"),
        F.lit(None).cast("string").alias("run"),
        F.col(query).cast("string").alias("query"),
        F.col(doc).cast("string").alias("doc"),
        F.lit(None).cast("double").alias("score"),
        (F.col(grade).cast("double") if has_grade else F.lit(1.0).cast("double")).alias("grade"),
        *([F.lit(None).cast("string").alias("sample")] if sample else []),
    )
    if probe.needs_qrels_facts():
        # The facts of the whole qrels, gathered before any query is
        # evaluated, and given to every task.
        context_inputs["qrels_facts"] = _qrels_facts(probe, judged, partitions, specs, dict(
            missing=missing,
            rel=rel,
            ties=ties,
            duplicates_policy=duplicates,
            score_threshold=score_threshold,
            threads=threads,
            column_names=(query, doc, score, grade if has_grade else "grade"),
            **context_inputs,
        ))
    sided = ranked.unionByName(judged)
    sided = (sided.repartition(partitions, "query") if partitions else sided.repartition("query")).sortWithinPartitions(
        "query", "side"
    )
    options: dict[str, Any] = dict(
        missing=missing,
        rel=rel,
        ties=ties,
        duplicates_policy=duplicates,
        score_threshold=score_threshold,
        threads=threads,
        corpus=corpus_specs,
        # Errors name the DataFrame's own columns, not the layout's.
        column_names=(query, doc, score, grade if has_grade else "grade"),
        aggregators=evaluated,
        drop_identical_ids=drop_identical_ids,
        **corpus_inputs,
        **context_inputs,
    )

    def evaluate_partition(batches: Iterator[Any]) -> Iterator[Any]:
        from rankeval_rs import _native as native

        evaluator = native.SparkEvaluator(specs, runs, **options)
        for batch in batches:
            out = evaluator.push(batch)
            if out is not None:
                yield out
        out = evaluator.finish()
        if out is not None:
            yield out

    schema = _output_schema(names, counts, corpus=bool(corpus_specs), aggregates=bool(evaluated))
    results = sided.mapInArrow(evaluate_partition, schema).persist()
    evaluation = SparkEvaluation(results, names, runs, counts, graded=has_grade, missing=missing)
    evaluation._corpus = (corpus_specs, corpus_inputs)
    evaluation._evaluated = evaluated
    return evaluation


def _qrels_facts(probe: Any, judged: DataFrame, partitions: int | None, specs: list[str], options: dict[str, Any]) -> bytes:
    """The first pass over the judgement rows ``judged`` (the sided
    layout), repartitioned by query so that each query's judgements are in
    one task: each task reads its rows as the evaluation's tasks read them
    and gives the facts of its queries (``SparkEvaluator.qrels_facts``:
    each normaliser's exact sum and the number of queries, the documents
    judged); the driver merges them, with its own empty part (so that
    qrels without rows still give every normaliser, 0, as the command
    line does)."""
    from pyspark.sql.types import BinaryType, StructField, StructType

    def facts_of_partition(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        from rankeval_rs import _native as native

        evaluator = native.SparkEvaluator(specs, ["run"], **options)
        part = evaluator.qrels_facts([b for b in batches if b.num_rows > 0])
        yield pa.RecordBatch.from_pydict({"facts": [part]}, schema=pa.schema([("facts", pa.binary())]))

    by_query = judged.repartition(partitions, "query") if partitions else judged.repartition("query")
    schema = StructType([StructField("facts", BinaryType(), False)])
    parts = [bytes(row["facts"]) for row in by_query.mapInArrow(facts_of_partition, schema).collect()]
    return _native.spark_merge_qrels_facts([probe.qrels_facts([])] + parts)


def _require(df: DataFrame, what: str, columns: Sequence[str]) -> None:
    for column in columns:
        if column not in df.columns:
            raise _native.InputError(f"{what}: no column `{column}` (the columns are {', '.join(df.columns)})")


def _output_schema(metrics: Sequence[str], counts: Sequence[str], *, corpus: bool = False, aggregates: bool = False) -> Any:
    from pyspark.sql.types import (
        BinaryType,
        ByteType,
        DoubleType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    fields = [StructField("query", StringType(), True), StructField("run", StringType(), False)]
    fields += [StructField(m, DoubleType(), True) for m in metrics]
    fields.append(StructField(_KIND, ByteType(), False))
    fields += [StructField(c, LongType(), True) for c in counts]
    if corpus:
        # Each partition's corpus states per run (rows of kind 2).
        fields.append(StructField(_CORPUS, BinaryType(), True))
    if aggregates:
        # Each partition's aggregator states per run (rows of kind 3).
        fields.append(StructField(_AGGREGATES, BinaryType(), True))
    return StructType(fields)


class SparkEvaluation:
    """The results of :func:`evaluate`: per-query values (a lazy Spark
    DataFrame), aggregates merged from every task's states, what was left out, and
    the Parquet file that ``rankeval eval --baseline`` and the Python
    package read back."""

    def __init__(
        self,
        results: DataFrame,
        metrics: list[str],
        runs: list[str],
        counts: list[str],
        *,
        graded: bool,
        missing: str = "skip",
    ) -> None:
        F = _functions()
        self._results = results
        #: The metrics' canonical names (the per-query table's columns).
        self.metrics = metrics
        #: The runs, in byte order of their names.
        self.runs = runs
        self._count_columns = counts
        self._graded = graded
        self._missing = missing
        self._counts: dict[str, dict[str, int]] | None = None
        self._corpus: tuple[list[str], dict[str, Any]] = ([], {})
        # The aggregators the evaluation's tasks kept states of.
        self._evaluated: list[str] = []
        #: One row per query and run: ``query``, ``run``, one column per metric.
        # Backquoted: a metric's name may hold a dot (`rbp(p=0.8)`), which
        # Spark would read as a struct field.
        self.per_query: DataFrame = results.filter(F.col(_KIND) == 0).select(
            "query", "run", *[F.col(f"`{m}`") for m in metrics]
        )

    def counts(self) -> dict[str, dict[str, int]]:
        """For each run, what the command line's coverage counts: queries
        ``evaluated`` (``ranked``: with a non-empty list), judged queries
        absent from the run (``missing_skipped`` or ``missing_zero``),
        queries of the run without judgements (``run_only``), and rows
        dropped as repeats (``duplicates_dropped``)."""
        if self._counts is None:
            F = _functions()
            rows = (
                self._results.filter(F.col(_KIND) == 1)
                .groupBy("run")
                .agg(*[F.sum(c).alias(c) for c in self._count_columns])
                .collect()
            )
            names = self._count_columns
            by_run = {r["run"]: {c[1:]: int(r[c] or 0) for c in names} for r in rows}
            self._counts = {run: by_run.get(run, {c[1:]: 0 for c in names}) for run in self.runs}
        return self._counts

    def corpus(self) -> dict[str, dict[str, float]]:
        """``result[run][metric]`` for each corpus metric given to
        :func:`evaluate`: every partition's states of the run merged and
        finished on the driver, the same bits as the command line's corpus
        values on the same run, for any partitioning."""
        specs, inputs = self._corpus
        if not specs:
            raise ValueError("no corpus metrics: give evaluate(..., corpus=[...])")
        F = _functions()
        rows = self._results.filter(F.col(_KIND) == 2).select("run", _CORPUS).collect()
        parts: dict[str, list[bytes]] = {run: [] for run in self.runs}
        for row in rows:
            parts[row["run"]].append(bytes(row[_CORPUS]))
        names = _native.spark_corpus_names(specs)
        return {
            run: dict(zip(names, _native.spark_corpus_values(specs, parts[run], **inputs), strict=True))
            for run in self.runs
        }

    def warnings(self) -> list[str]:
        """What was left out or changed, one line per run and kind, as the
        command line warns (counts, not one line per query)."""
        out: list[str] = []
        if not self._graded:
            out.append("qrels: no grade column: every listed pair counts as relevant with grade 1")
        for run, c in self.counts().items():
            if c["run_only"]:
                out.append(f"run `{run}`: {c['run_only']} queries have no judgements and were not evaluated")
            if c["missing_skipped"]:
                out.append(
                    f"run `{run}`: {c['missing_skipped']} judged queries are not in the run and were left out "
                    '(missing="zero" scores them 0)'
                )
            if c["missing_zero"]:
                out.append(f"run `{run}`: {c['missing_zero']} judged queries are not in the run and scored 0")
            if c["duplicates_dropped"]:
                out.append(f"run `{run}`: {c['duplicates_dropped']} repeated documents were left out")
            if c["evaluated"] == 0:
                out.append(f"run `{run}`: no query was evaluated: every aggregate is NaN")
        return out

    def aggregate(
        self, aggregators: str | Sequence[str] = ("mean",), *, floor: float = _DEFAULT_FLOOR, ddof: int = 1
    ) -> dict[str, dict[str, dict[str, float]]]:
        """``result[run][metric][aggregator]`` for each aggregator in
        ``aggregators`` (any registered aggregator: ``mean``, ``sum``,
        ``min``, ``max``, ``gmean``, ``std``, ``median``, a plugin's; a
        plain ``gmean`` with ``floor``, a plain ``std`` with ``ddof``), the
        same bits as the command line's on the same queries: each task's
        states of the aggregator (its own Rust code: exact sums for a
        mean, the count of each value for a median, every value for an
        aggregator of its own) merged and finished on the driver.
        Aggregators given to :func:`evaluate` are merged from the
        evaluation's states; others take one pass over the cached
        per-query rows. An aggregator that gives a confidence interval
        (``ci``) is refused: see :meth:`keyed_compare`."""
        wanted = [aggregators] if isinstance(aggregators, str) else list(aggregators)
        specs = _native.spark_aggregators(wanted, floor, ddof)
        if all(spec in self._evaluated for spec in specs):
            names, parts = self._evaluated, self._evaluated_states()
        else:
            names, parts = specs, self._states(specs)
        out: dict[str, dict[str, dict[str, float]]] = {r: {m: {} for m in self.metrics} for r in self.runs}
        for run in self.runs:
            values = _native.spark_aggregate_values(self.metrics, names, parts.get(run, []))
            for metric, row in zip(self.metrics, values, strict=True):
                for given, spec in zip(wanted, specs, strict=True):
                    out[run][metric][given] = row[names.index(spec)]
        return out

    def _evaluated_states(self) -> dict[str, list[bytes]]:
        """Each run's aggregator states from the evaluation's tasks (rows
        of kind 3), one per task."""
        F = _functions()
        parts: dict[str, list[bytes]] = {}
        rows = self._results.filter(F.col(_KIND) == _KIND_AGGREGATES).select("run", _AGGREGATES).collect()
        for row in rows:
            parts.setdefault(row["run"], []).append(bytes(row[_AGGREGATES]))
        return parts

    def _states(self, specs: list[str]) -> dict[str, list[bytes]]:
        """Each run's states of the aggregators ``specs`` (canonical
        names), one per partition of the cached per-query rows: one pass,
        each task updating every run's states in Rust."""
        from pyspark.sql.types import BinaryType, StringType, StructField, StructType

        metrics, runs = list(self.metrics), list(self.runs)
        schema = StructType([StructField("run", StringType(), False), StructField(_AGGREGATES, BinaryType(), False)])

        def partition_states(batches: Iterator[Any]) -> Iterator[Any]:
            import pyarrow as pa

            from rankeval_rs import _native as native

            states = native.SparkAggregates(metrics, specs, runs)
            for batch in batches:
                states.push(batch)
            done = states.finish()
            yield pa.RecordBatch.from_pydict(
                {"run": [r for r, _ in done], _AGGREGATES: [b for _, b in done]},
                schema=pa.schema([("run", pa.string()), (_AGGREGATES, pa.binary())]),
            )

        parts: dict[str, list[bytes]] = {}
        table = _safe_columns(self.per_query, metrics)
        for row in table.mapInArrow(partition_states, schema).collect():
            parts.setdefault(row["run"], []).append(bytes(row[_AGGREGATES]))
        return parts

    def per_query_columns(self) -> list[tuple[str, list[str], list[str], Any]]:
        """Each run's per-query values on the driver, queries in byte order
        of their ids as the command line orders them: ``(run, metrics,
        queries, values)``, ``values`` a queries x metrics float64 array.
        One row per query and run: this is what must fit on the driver."""
        return _columns_of(self.per_query.toArrow(), self.metrics, self.runs)

    def compare(self, baseline: str | None = None, *, gates: Sequence[str] = (), **options: Any) -> Any:
        """Compares the runs with ``baseline`` (a run's name; without one,
        every pair, randomized Tukey HSD) and checks ``gates``, as
        ``rankeval eval --baseline`` and ``rankeval_rs.compare`` do, with
        their options (``test``, ``level``, ``resamples``, ``seed``,
        ``bootstrap``, ``correction``, ``family``, ``alpha``) and defaults:
        a :class:`rankeval_rs.Comparison`, the same numbers bit for bit (the
        per-query values are the command line's, and the queries are put in
        its order before any test, so a resampling test draws what it
        draws there).

        The per-query values come to the driver for this (one row per query
        and run); the statistics themselves are the library's."""
        return _compare(self.per_query_columns(), baseline, gates, self._missing, options)

    def keyed_compare(
        self,
        baseline: str,
        *,
        level: float = 0.95,
        groups: int = 20,
        resamples: int = 10_000,
        seed: int = 42,
    ) -> dict[str, dict[str, dict[str, Any]]]:
        """Query-keyed statistics of each run against ``baseline``, merged
        from every partition's states, nothing collected per query:
        ``result[run][metric]`` holds the mean difference, Student's paired
        t (``t``, ``df``, ``p_value``, ``interval``, from exact sums: the
        command line's ``--test t`` numbers), the delete-a-group jackknife
        interval (``jackknife``; queries in ``groups`` groups by Spark's
        ``pmod(xxhash64(query), groups)``), a sign-flip p-value whose
        signs are keyed by (``seed``, the query's hash, resample), and the
        double-or-nothing bootstrap with weights keyed the same way
        (``bootstrap``: its percentile interval; ``bootstrap_p_value``,
        ``bootstrap_standard_error``). Queries are paired by id (those of
        both runs). The same bits for any partitioning, as
        :meth:`PerQueryTable.keyed_compare` on the Parquet output, and as
        the command line's ``--test randomization-keyed``, ``--test
        bootstrap-keyed`` and ``--interval jackknife`` on the same
        queries."""
        from pyspark.sql.types import ArrayType, DoubleType, StringType, StructField, StructType

        _check_baseline(baseline, self.runs)
        metrics, runs = list(self.metrics), list(self.runs)
        state = StructType(
            [
                StructField("run", StringType(), False),
                StructField("metric", StringType(), False),
                StructField("a", ArrayType(DoubleType()), False),
                StructField("b", ArrayType(DoubleType()), True),
                StructField("c", ArrayType(DoubleType()), True),
                StructField("d", ArrayType(DoubleType()), True),
            ]
        )
        paired = _safe_columns(self.per_query, metrics).repartition("query")
        safe = _safe_names(metrics)
        real = dict(zip(safe, metrics))

        def first_pass(batches: Iterator[Any]) -> Iterator[Any]:
            from rankeval_rs import _native as native

            for (run, column), (queries, d) in _paired_differences(batches, baseline, runs, safe):
                a, b, c, e = native.keyed_states(queries, d, groups, resamples, seed)
                yield _state_batch(run, real[column], a, b, c, e)

        firsts: dict[tuple[str, str], list[list[list[float]]]] = {}
        for row in paired.mapInArrow(first_pass, state).collect():
            parts = firsts.setdefault((row["run"], row["metric"]), [[], [], [], []])
            for i, column in enumerate(("a", "b", "c", "d")):
                parts[i].append(list(row[column]))
        means = {key: _native.keyed_mean(parts[0]) for key, parts in firsts.items()}

        def second_pass(batches: Iterator[Any]) -> Iterator[Any]:
            from rankeval_rs import _native as native

            for (run, column), (_, d) in _paired_differences(batches, baseline, runs, safe):
                key = (run, real[column])
                yield _state_batch(run, key[1], native.keyed_squares(d, means[key]), None, None, None)

        squares: dict[tuple[str, str], list[list[float]]] = {}
        for row in paired.mapInArrow(second_pass, state).collect():
            squares.setdefault((row["run"], row["metric"]), []).append(list(row["a"]))
        return _keyed_results(firsts, squares, runs, metrics, baseline, level)

    def keyed_tukey(self, *, resamples: int = 10_000, seed: int = 42) -> dict[str, dict[str, Any]]:
        """The randomized Tukey HSD of every pair of runs, metric by metric,
        with each query's permutations keyed by (``seed``, the query's hash,
        resample), merged from every partition's states, nothing collected
        per query: ``result[metric]`` holds ``queries``, each run's mean
        (``means``), and ``pairs``, one dict per pair of runs (``baseline``
        the first of the two in :attr:`runs` order, ``run`` the second,
        ``difference`` of their means, ``p_value`` adjusted over the
        pairs). Queries that not every run has follow ``missing`` (left out
        with ``skip``, scored 0 where absent with ``zero``), as the command
        line pairs them. The same bits for any partitioning, as
        :meth:`PerQueryTable.keyed_tukey` on the Parquet output and as
        ``rankeval eval --all-pairs --test randomization-keyed`` on the
        same runs."""
        from pyspark.sql.types import ArrayType, DoubleType, StringType, StructField, StructType

        metrics, runs, missing = list(self.metrics), list(self.runs), self._missing
        _check_systems(runs)
        state = StructType(
            [
                StructField("metric", StringType(), False),
                StructField("a", ArrayType(DoubleType()), False),
            ]
        )
        safe = _safe_names(metrics)
        real = dict(zip(safe, metrics))

        def tukey_pass(batches: Iterator[Any]) -> Iterator[Any]:
            import pyarrow as pa

            from rankeval_rs import _native as native

            for column, (queries, scores) in _aligned_scores(batches, runs, safe, missing):
                wire = native.keyed_tukey_state(queries, scores, resamples, seed)
                yield pa.RecordBatch.from_pydict(
                    {"metric": [real[column]], "a": [wire]},
                    schema=pa.schema([("metric", pa.string()), ("a", pa.list_(pa.float64()))]),
                )

        states: dict[str, list[list[float]]] = {}
        table = _safe_columns(self.per_query, metrics).repartition("query")
        for row in table.mapInArrow(tukey_pass, state).collect():
            states.setdefault(row["metric"], []).append(list(row["a"]))
        return _tukey_results(states, runs, metrics)

    def write_parquet(self, path: str, mode: str = "error") -> None:
        """Writes the per-query table (``query``, ``run``, one column per
        metric) as Parquet at ``path`` (a directory of part files, as Spark
        writes), for comparisons after the job: ``read_per_query(path)``
        reads it back."""
        self.per_query.write.mode(mode).parquet(path)

    def unpersist(self) -> None:
        """Frees the cached results."""
        self._results.unpersist()


class PerQueryTable:
    """A per-query table read back from Parquet (:func:`read_per_query`):
    ``query``, ``run``, one float64 column per metric."""

    def __init__(self, table: Any, missing: str) -> None:
        names = table.column_names
        for column in ("query", "run"):
            if column not in names:
                raise _native.InputError(f"per-query table: no column `{column}` (the columns are {', '.join(names)})")
        #: The metrics: every column but ``query`` and ``run``.
        self.metrics = [n for n in names if n not in ("query", "run")]
        #: The runs, in byte order of their names.
        self.runs = sorted(set(table.column("run").to_pylist()), key=lambda r: r.encode())
        self._table = table
        self._missing = missing

    def per_query_columns(self) -> list[tuple[str, list[str], list[str], Any]]:
        """As :meth:`SparkEvaluation.per_query_columns`."""
        return _columns_of(self._table, self.metrics, self.runs)

    def compare(self, baseline: str | None = None, *, gates: Sequence[str] = (), **options: Any) -> Any:
        """As :meth:`SparkEvaluation.compare`: the same numbers."""
        return _compare(self.per_query_columns(), baseline, gates, self._missing, options)

    def keyed_compare(
        self, baseline: str, *, level: float = 0.95, groups: int = 20, resamples: int = 10_000, seed: int = 42
    ) -> dict[str, dict[str, dict[str, Any]]]:
        """As :meth:`SparkEvaluation.keyed_compare`, on one machine: the
        same bits."""
        _check_baseline(baseline, self.runs)
        firsts: dict[tuple[str, str], list[list[list[float]]]] = {}
        squares: dict[tuple[str, str], list[list[float]]] = {}
        pairs = list(_paired_differences(self._table.to_batches(), baseline, self.runs, self.metrics))
        for key, (queries, d) in pairs:
            a, b, c, e = _native.keyed_states(queries, d, groups, resamples, seed)
            firsts[key] = [[a], [b], [c], [e]]
        for key, (_, d) in pairs:
            squares[key] = [_native.keyed_squares(d, _native.keyed_mean(firsts[key][0]))]
        return _keyed_results(firsts, squares, self.runs, self.metrics, baseline, level)

    def keyed_tukey(self, *, resamples: int = 10_000, seed: int = 42) -> dict[str, dict[str, Any]]:
        """As :meth:`SparkEvaluation.keyed_tukey`, on one machine: the same
        bits."""
        _check_systems(self.runs)
        states: dict[str, list[list[float]]] = {}
        for column, (queries, scores) in _aligned_scores(self._table.to_batches(), self.runs, self.metrics, self._missing):
            states[column] = [_native.keyed_tukey_state(queries, scores, resamples, seed)]
        return _tukey_results(states, self.runs, self.metrics)


def read_per_query(path: str, *, missing: str = "skip") -> PerQueryTable:
    """Reads the per-query table :meth:`SparkEvaluation.write_parquet` wrote
    (a Parquet file or a directory of part files), for comparisons and gates
    after the Spark job; ``missing`` is the evaluation's (how a query that
    not every run has is compared)."""
    import pyarrow.parquet as pq

    return PerQueryTable(pq.read_table(path), missing)


def _columns_of(table: Any, metrics: list[str], runs: list[str]) -> list[tuple[str, list[str], list[str], Any]]:
    """Each run's ``(run, metrics, queries, values)`` from a per-query Arrow
    table, queries in byte order of their ids."""
    import numpy as np

    run_of = table.column("run").to_pylist()
    queries = table.column("query").to_pylist()
    columns = [np.asarray(table.column(m).to_numpy(zero_copy_only=False), dtype=np.float64) for m in metrics]
    rows: dict[str, list[int]] = {r: [] for r in runs}
    for i, r in enumerate(run_of):
        rows[r].append(i)
    out = []
    for r in runs:
        order = sorted(rows[r], key=lambda i: queries[i].encode())
        values = np.empty((len(order), len(metrics)), dtype=np.float64)
        for j, column in enumerate(columns):
            values[:, j] = column[order]
        out.append((r, list(metrics), [queries[i] for i in order], values))
    return out


_COMPARE_OPTIONS = ("test", "level", "resamples", "seed", "bootstrap", "correction", "family", "alpha")


def _compare(source: Any, baseline: str | None, gates: Sequence[str], missing: str, options: dict[str, Any]) -> Any:
    """``rankeval_rs.compare`` on per-query columns."""
    import json

    from ._report import Comparison

    unknown = sorted(set(options) - set(_COMPARE_OPTIONS))
    if unknown:
        raise TypeError(f"compare: unknown option(s) {', '.join(unknown)} (known: {', '.join(_COMPARE_OPTIONS)})")
    o = {k: options.get(k) for k in _COMPARE_OPTIONS}
    if isinstance(gates, str):
        gates = [gates]
    text, passed = _native.compare(
        source, baseline, None, list(gates), o["test"], o["level"], o["resamples"], o["seed"],
        o["correction"], o["family"], o["alpha"], missing, o["bootstrap"], None,
    )
    return Comparison(json.loads(text), passed)


def _safe_names(metrics: Sequence[str]) -> list[str]:
    """Column names without dots for the metrics, in order."""
    return [f"_m{i}" for i in range(len(metrics))]


def _safe_columns(per_query: DataFrame, metrics: Sequence[str]) -> DataFrame:
    """The per-query table with its metric columns renamed by position
    (:func:`_safe_names`): ``mapInArrow`` reads its input's columns by name
    and takes a dot in one (``rbp(p=0.8)``) for a struct field."""
    return per_query.toDF("query", "run", *_safe_names(metrics))


def _check_baseline(baseline: str, runs: Sequence[str]) -> None:
    if baseline not in runs:
        raise _native.CompareError(f"baseline `{baseline}`: no such run (the runs are {', '.join(runs)})")


def _paired_differences(
    batches: Any, baseline: str, runs: Sequence[str], metrics: Sequence[str]
) -> Iterator[tuple[tuple[str, str], tuple[list[str], Any]]]:
    """For each candidate run and metric, the queries that both it and
    ``baseline`` have among ``batches`` (rows of a per-query table) and the
    differences ``candidate - baseline``, queries in byte order."""
    import numpy as np
    import pyarrow as pa

    pieces = list(batches)
    if not pieces:
        return
    table = pa.Table.from_batches(pieces)
    run_of = table.column("run").to_pylist()
    queries = table.column("query").to_pylist()
    columns = [np.asarray(table.column(m).to_numpy(zero_copy_only=False), dtype=np.float64) for m in metrics]
    where: dict[str, dict[str, int]] = {r: {} for r in runs}
    for i, (r, q) in enumerate(zip(run_of, queries)):
        where[r][q] = i
    base = where[baseline]
    for run in runs:
        if run == baseline:
            continue
        shared = sorted((q for q in where[run] if q in base), key=lambda q: q.encode())
        if not shared:
            continue
        mine = np.array([where[run][q] for q in shared])
        theirs = np.array([base[q] for q in shared])
        for j, metric in enumerate(metrics):
            yield (run, metric), (shared, np.ascontiguousarray(columns[j][mine] - columns[j][theirs]))


def _state_batch(
    run: str,
    metric: str,
    a: list[float],
    b: list[float] | None,
    c: list[float] | None,
    d: list[float] | None,
) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_pydict(
        {"run": [run], "metric": [metric], "a": [a], "b": [b], "c": [c], "d": [d]},
        schema=pa.schema(
            [
                ("run", pa.string()),
                ("metric", pa.string()),
                ("a", pa.list_(pa.float64())),
                ("b", pa.list_(pa.float64())),
                ("c", pa.list_(pa.float64())),
                ("d", pa.list_(pa.float64())),
            ]
        ),
    )


def _check_systems(runs: Sequence[str]) -> None:
    if len(runs) < 2:
        raise _native.CompareError(f"the Tukey HSD compares at least 2 runs; there is {len(runs)}")


def _aligned_scores(
    batches: Any, runs: Sequence[str], metrics: Sequence[str], missing: str
) -> Iterator[tuple[str, tuple[list[str], Any]]]:
    """For each metric, the queries among ``batches`` (rows of a per-query
    table) and their scores, a queries x runs float64 array (runs in the
    order given): the queries every run has (``missing="skip"``) or any run
    has, scored 0 where absent (``"zero"``), as the command line pairs them."""
    import numpy as np
    import pyarrow as pa

    pieces = list(batches)
    if not pieces:
        return
    table = pa.Table.from_batches(pieces)
    run_of = table.column("run").to_pylist()
    queries = table.column("query").to_pylist()
    where: dict[str, dict[str, int]] = {r: {} for r in runs}
    for i, (r, q) in enumerate(zip(run_of, queries)):
        where[r][q] = i
    every = set(queries) if missing == "zero" else set.intersection(*(set(where[r]) for r in runs))
    kept = sorted(every, key=lambda q: q.encode())
    if not kept:
        return
    # rows[j][i]: the row of query kept[i] in run j, -1 where it has none.
    rows = [np.array([where[r].get(q, -1) for q in kept], dtype=np.int64) for r in runs]
    for metric in metrics:
        column = np.asarray(table.column(metric).to_numpy(zero_copy_only=False), dtype=np.float64)
        scores = np.zeros((len(kept), len(runs)), dtype=np.float64)
        for j, mine in enumerate(rows):
            present = mine >= 0
            scores[present, j] = column[mine[present]]
        yield metric, (kept, scores)


def _tukey_results(states: dict[str, list[list[float]]], runs: Sequence[str], metrics: Sequence[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for metric in metrics:
        if metric not in states:
            raise _native.CompareError(f"`{metric}`: no query to compare the runs on")
        merged = _native.keyed_tukey_result(states[metric])
        out[metric] = {
            "queries": merged["queries"],
            "means": dict(zip(runs, merged["means"])),
            "pairs": [
                {"baseline": runs[a], "run": runs[b], "difference": d, "p_value": p}
                for a, b, d, p in merged["pairs"]
            ],
            "resamples": merged["resamples"],
            "seed": merged["seed"],
            "rng": merged["rng"],
        }
    return out


def _keyed_results(
    firsts: dict[tuple[str, str], list[list[list[float]]]],
    squares: dict[tuple[str, str], list[list[float]]],
    runs: Sequence[str],
    metrics: Sequence[str],
    baseline: str,
    level: float,
) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for run in runs:
        if run == baseline:
            continue
        out[run] = {}
        for metric in metrics:
            key = (run, metric)
            if key not in firsts:
                raise _native.CompareError(f"run `{run}` shares no query with baseline `{baseline}`")
            a, b, c, e = firsts[key]
            out[run][metric] = dict(_native.keyed_result(a, squares.get(key, []), b, c, e, level))
    return out


def ope(
    log_df: DataFrame,
    estimators: Sequence[str] | str | None = None,
    *,
    policies: Mapping[str, PathLike] | Sequence[PathLike] | PathLike | None = None,
    log_columns: Mapping[str, str] | None = None,
    columns: Mapping[str, str] | None = None,
    form: str | None = None,
    examination: str | Sequence[float] | None = None,
    reward_per: str | None = None,
    reward_range: tuple[float, float] | None = None,
    layout: str | None = None,
    plackett_luce: float | None = None,
    target_column: str | None = None,
    reward_model: PathLike | None = None,
    interval: str | None = None,
    level: float | None = None,
    resamples: int | None = None,
    samples: int | None = None,
    seed: int | None = None,
    correction: str | None = None,
    min_n: int | None = None,
    min_ess: float | None = None,
    min_support: float | None = None,
    gates: Sequence[str] | str | None = None,
    allow_low_support: bool | None = None,
    groups: PathLike | None = None,
    groups_in_family: bool | None = None,
    record: PathLike | None = None,
    label: str | None = None,
) -> dict[str, Any]:
    """Off-policy estimates of target policies from an impression log held
    in a Spark DataFrame (docs/ope.md, docs/spark.md): the numbers of
    ``rankeval ope`` on the same log, bit for bit, for any partitioning.

    ``log_df`` has the log's columns (one row per impression with list
    columns, or one row per impression and position when every row of an
    impression is in one partition), named as ``log_columns`` maps them
    (``{"context": ..., "target": ...}``, as ``--log-columns``; ``columns``
    is its earlier name). The keywords are :func:`rankeval_rs.ope`'s, read
    by the same code and checked by the same spec
    (``rankeval::spec::resolve_ope_parts``) before any job reads the log,
    so a bad value raises the same error: ``estimators`` (none: the
    form's default), ``policies`` (run files every worker reads: ``{name:
    path}``, a list of paths or one path), under ``plackett_luce`` when
    given, and the log's own target column (``target_column``, the
    policy's name, with ``log_columns["target"]``); ``samples`` and
    ``seed``: the Plackett-Luce marginals by seeded Monte Carlo, whose
    draws depend on the impression id, not on the partition; a click log:
    ``form="examination"``, or ``examination="power(eta=1)"`` or a list of
    propensities per rank; ``gates`` and ``correction`` as ``--gate`` and
    ``--correction``.

    Each task reads its partition with the command line's reader (every
    check; rows are numbered within the partition, which errors name) and
    sends each policy's state under each estimator as bytes (exact sums);
    the driver merges and finishes them. With two policies or more, two
    more passes over the log give each candidate's paired comparison with
    the first policy (the exact sums of the per-impression differences,
    then of their squared deviations: ``rankeval::ope::merged``), and the
    gates are decided on them. An impression id in two partitions is an
    error (one more job: the log's distinct impression ids counted by
    Spark against the partitions' impressions).

    Returns ``rankeval ope --format json``'s document (``policies``,
    ``comparisons``, ``gates``, refused estimates with their refusals,
    their values null unless ``allow_low_support``) with ``impressions``,
    ``slate_len``, ``refused`` (an estimate is refused), ``passed`` (every
    gate passed) and ``exit_code`` (``rankeval ope``'s: 2 for a refused
    estimate without ``allow_low_support`` or an undecided gate, 1 for a
    failed gate, else 0). Refused on Spark, with the reason: the bootstrap
    interval (and its ``resamples``), groups of contexts (``groups``,
    ``groups_in_family``, a gate on a group), and ``record``. Not checked
    on Spark: whether a ranking shows only items the log shows (it needs
    the whole log: a ranking policy on a log that is not a click log needs
    ``allow_low_support=True``; the supported share still says what is
    missing).
    """
    if columns is not None and log_columns is not None:
        raise ValueError("give the log's columns as log_columns= (columns= is its earlier name), not both")
    given = _ope._policies(policies)
    options = _ope._options(
        log_columns=log_columns if columns is None else columns,
        form=form,
        examination=examination,
        reward_per=reward_per,
        reward_range=reward_range,
        layout=layout,
        plackett_luce=plackett_luce,
        target_column=target_column,
        reward_model=reward_model,
        estimators=estimators,
        interval=interval,
        level=level,
        resamples=resamples,
        samples=samples,
        seed=seed,
        correction=correction,
        min_n=min_n,
        min_ess=min_ess,
        min_support=min_support,
        gates=gates,
        allow_low_support=allow_low_support,
        groups=groups,
        groups_in_family=groups_in_family,
        record=record,
        label=label,
    )
    # The one spec's rules, before pyspark is imported or a job runs.
    names, estimator_names, impression_column = _native.spark_ope_check(given, options)
    allowed = bool(allow_low_support)

    from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType

    schema = StructType(
        [
            StructField("policy", StringType(), False),
            StructField("estimator", StringType(), False),
            StructField("state", BinaryType(), False),
            StructField("impressions", LongType(), False),
            StructField("slate_len", LongType(), False),
        ]
    )

    def partition_log(batches: Iterator[Any]) -> tuple[bytes, str] | None:
        import pyarrow as pa
        from pyspark import TaskContext

        rows = [b for b in batches if b.num_rows > 0]
        if not rows:
            return None
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, rows[0].schema) as writer:
            for batch in rows:
                writer.write_batch(batch)
        context = TaskContext.get()
        name = f"partition {context.partitionId() if context is not None else 0}"
        return sink.getvalue().to_pybytes(), name

    def batch_of(columns_: dict[str, list[Any]], types: list[tuple[str, Any]]) -> Any:
        import pyarrow as pa

        return pa.RecordBatch.from_pydict(columns_, schema=pa.schema(types))

    def partition_states(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        from rankeval_rs import _native as native

        part = partition_log(batches)
        if part is None:
            return
        impressions, slate_len, states = native.spark_ope_states(*part, given, options)
        yield batch_of(
            {
                "policy": [p for p, _, _ in states],
                "estimator": [e for _, e, _ in states],
                "state": [s for _, _, s in states],
                "impressions": [impressions] * len(states),
                "slate_len": [slate_len] * len(states),
            },
            [
                ("policy", pa.string()),
                ("estimator", pa.string()),
                ("state", pa.binary()),
                ("impressions", pa.int64()),
                ("slate_len", pa.int64()),
            ],
        )

    rows = log_df.mapInArrow(partition_states, schema).collect()
    if not rows:
        raise _native.InputError("spark: the log has no impression")
    lengths = sorted({row["slate_len"] for row in rows})
    if len(lengths) > 1:
        raise _native.InputError(
            f"spark: the partitions' slates have different lengths ({', '.join(map(str, lengths))})"
        )
    parts = [(row["policy"], row["estimator"], bytes(row["state"])) for row in rows]
    first = [row for row in rows if row["policy"] == names[0] and row["estimator"] == rows[0]["estimator"]]
    impressions = sum(row["impressions"] for row in first)
    _check_unique_impressions(log_df, impression_column, impressions)

    squares: list[tuple[str, str, bytes]] = []
    if len(names) > 1:
        merged = [(p, e, bytes(b)) for p, e, b in _native.spark_ope_merge(names, estimator_names, parts)]
        sums_schema = StructType(
            [
                StructField("policy", StringType(), False),
                StructField("estimator", StringType(), False),
                StructField("sum", BinaryType(), False),
            ]
        )

        def paired_pass(centres: list[list[float]] | None) -> list[tuple[str, str, bytes]]:
            def partition_sums(batches: Iterator[Any]) -> Iterator[Any]:
                import pyarrow as pa

                from rankeval_rs import _native as native

                part = partition_log(batches)
                if part is None:
                    return
                sums = native.spark_ope_paired(*part, merged, centres, given, options)
                yield batch_of(
                    {
                        "policy": [p for p, _, _ in sums],
                        "estimator": [e for _, e, _ in sums],
                        "sum": [s for _, _, s in sums],
                    },
                    [("policy", pa.string()), ("estimator", pa.string()), ("sum", pa.binary())],
                )

            return [
                (row["policy"], row["estimator"], bytes(row["sum"]))
                for row in log_df.mapInArrow(partition_sums, sums_schema).collect()
            ]

        centres = _native.spark_ope_centres(names[1:], estimator_names, paired_pass(None), impressions)
        squares = paired_pass(centres)

    import json

    document = json.loads(
        _native.spark_ope_report(given, options, parts, squares, impressions, lengths[0])
    )
    refused = any(e["refusals"] for p in document["policies"] for e in p["estimates"])
    undecided = any(g["outcome"] is None for g in document["gates"])
    failed = any(g["outcome"] is not None and not g["outcome"]["passed"] for g in document["gates"])
    if undecided or (refused and not allowed):
        exit_code = 2
    elif failed:
        exit_code = 1
    else:
        exit_code = 0
    return {
        **document,
        "impressions": impressions,
        "slate_len": lengths[0],
        "refused": refused,
        "passed": not undecided and not failed,
        "exit_code": exit_code,
    }


def _check_unique_impressions(log_df: DataFrame, column: str, impressions: int) -> None:
    """An impression id in two partitions is an error, as an id twice in
    one file is on the command line: each partition's reader refuses an
    id twice within it, so the log's ids are unique exactly when Spark's
    count of its distinct ids equals the partitions' impressions summed.
    Exact (the ids themselves are compared, not hashes); it costs one job,
    a shuffle of the ids, and nothing per impression on the driver. When
    they differ, a second job finds up to three ids and the partitions
    that hold them, for the message."""
    from pyspark.sql import functions as F

    distinct = log_df.select(column).distinct().count()
    if distinct == impressions:
        return
    found = (
        log_df.select(F.col(column).alias("id"), F.spark_partition_id().alias("partition"))
        .distinct()
        .groupBy("id")
        .agg(F.count("*").alias("n"), F.sort_array(F.collect_list("partition")).alias("partitions"))
        .filter(F.col("n") > 1)
        .orderBy("id")
        .limit(3)
        .collect()
    )
    examples = "; ".join(
        f"`{row['id']}` in partitions {', '.join(map(str, row['partitions']))}" for row in found
    )
    raise _native.InputError(
        f"spark: {impressions - distinct} impression id(s) repeated across partitions "
        f"({distinct} distinct ids, {impressions} impressions read)"
        + (f", e.g. {examples}" if examples else "")
        + ": an impression is counted once (the command line refuses an id twice)"
    )
