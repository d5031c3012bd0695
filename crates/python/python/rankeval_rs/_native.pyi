"""Type stubs of the native module (Rust, PyO3). Use the functions of
`rankeval_rs` instead; these are its building blocks."""

from collections.abc import Callable
from os import PathLike
from typing import Any, final

import numpy as np
import numpy.typing as npt

__version__: str

class RankevalError(ValueError):
    """Base class of every error rankeval raises, a ValueError."""

    file: str | None
    line: int | None
    message: str

class InputError(RankevalError):
    """Qrels or a run could not be read (file or in-memory input, 1-based line or row)."""

class MetricError(RankevalError):
    """A metric spec does not build, or a Python metric failed."""

class ConfigError(RankevalError):
    """An experiment file (TOML) is wrong."""

class CompareError(RankevalError):
    """A comparison cannot be made."""

@final
class NativeReport:
    """The results of an experiment (see rankeval_rs.Report)."""

    @property
    def metrics(self) -> list[str]: ...
    @property
    def aggregators(self) -> list[str]: ...
    @property
    def corpus(self) -> list[str]: ...
    @property
    def warnings(self) -> list[str]: ...
    def runs(
        self,
    ) -> list[
        tuple[
            str,
            list[str],
            npt.NDArray[np.float64],
            npt.NDArray[np.float64],
            list[float],
            list[list[tuple[float, float] | None]],
            list[tuple[str, str, list[int], list[float]]],
        ]
    ]: ...
    def render(self, format: str, per_query: bool) -> str: ...
    @property
    def comparison(self) -> tuple[str, bool] | None: ...
    @property
    def systems(self) -> str | None: ...

def run_experiment(path: str | PathLike[str]) -> NativeReport: ...
def systems(
    runs: list[EvaluatedRun],
    systems: list[tuple[str, list[str]]],
    level: float = 0.95,
    resamples: int = 10000,
    seed: int = 42,
) -> str:
    """Systems of several runs among evaluated runs, as JSON text."""
def load_suite(path: str | PathLike[str]) -> tuple[list[str], bool] | None:
    """A suite file's experiment files and whether it asks for the macro
    average; None for an experiment file."""
def macro_suite(
    reports: list[NativeReport],
    names: list[str],
    baseline: str | None = None,
    level: float = 0.95,
    resamples: int = 10000,
    seed: int = 42,
) -> str:
    """A suite's macro average (`--aggregate macro`), as JSON text."""
def group_slices(
    run: str,
    values: npt.NDArray[np.float64],
    queries: list[str],
    metrics: list[str],
    groups: str | PathLike[str] | list[tuple[str, list[tuple[str, str]]]],
) -> tuple[list[tuple[str, str, list[int], list[float]]], list[str]]:
    """Each group's rows of `values` and means, and the warnings."""
def interval(
    values: npt.NDArray[np.float64], aggregator: str
) -> tuple[float, tuple[float, float] | None, str | None, str]:
    """The aggregate of `values` by an aggregator that gives an interval
    (`ci(...)`), its bounds, why there are none when there are none, and
    the aggregator's canonical name."""
def ope(
    log: str,
    policies: list[tuple[str | None, str]],
    options: dict[str, Any],
) -> tuple[str, str]:
    """Off-policy evaluation (`rankeval ope`): the report as JSON and as a
    table; `options` are the flags in snake case (`samples` and `seed`:
    the Plackett-Luce Monte Carlo's, the seed also the bootstrap's)."""
#: One run's results as `evaluate` gave them: (name, metrics, queries,
#: values, a `queries x metrics` array).
EvaluatedRun = tuple[str, list[str], list[str], npt.NDArray[np.float64]]

def compare(
    source: NativeReport | list[EvaluatedRun],
    baseline: str | None,
    baseline_file: tuple[str, str | None] | None,
    gates: list[str],
    test: str | None = None,
    level: float | None = None,
    resamples: int | None = None,
    seed: int | None = None,
    correction: str | None = None,
    family: str | None = None,
    alpha: float | None = None,
    missing: str | None = None,
    bootstrap: str | None = None,
    groups_in_family: bool | None = None,
    interval: str | None = None,
    jackknife_groups: int | None = None,
) -> tuple[str, bool]:
    """Compares a report's runs, or runs evaluated on the same qrels, with
    a baseline (or every pair); the comparison as JSON text, and whether
    every gate passed."""

@final
class Qrels:
    """Relevance judgements, read once."""

    @property
    def num_queries(self) -> int: ...
    @property
    def num_judgements(self) -> int: ...
    def same_judgements(self, other: Qrels) -> bool:
        """Whether `other` holds the same judgements, in any order."""

@final
class Run:
    """A run: in memory, or a file read when evaluated."""

    @property
    def file(self) -> str | None: ...

#: An id column: int64 ids, Arrow string buffers, or an object array of str/int.
IdColumn = npt.NDArray[np.int64] | tuple[str, npt.NDArray[Any], npt.NDArray[np.uint8]] | npt.NDArray[np.object_]

#: A metric function: (grades by rank, relevant count, ideal grades) -> value.
MetricFunction = Callable[[npt.NDArray[np.float64], int, npt.NDArray[np.float64]], float]

def qrels_from_file(
    path: str | PathLike[str],
    format: str | None,
    query: str,
    doc: str,
    score: str,
    rank: str,
    grade: str,
    delimiter: str | None,
    fetch: bool = False,
) -> Qrels: ...
def run_from_file(
    path: str | PathLike[str],
    format: str | None,
    query: str,
    doc: str,
    score: str,
    rank: str,
    grade: str,
    delimiter: str | None,
    duplicates: str,
    ties: str = "docid",
) -> Run: ...
def qrels_from_dict(judgements: dict[Any, Any], name: str) -> Qrels: ...
def run_from_dict(lists: dict[Any, Any], name: str, duplicates: str, ties: str = "docid") -> Run: ...
#: Arrow data through the PyCapsule interface: anything with
#: `__arrow_c_stream__` (a table, a stream) or `__arrow_c_array__` (a record batch),
#: or a data frame's columns as a list of `(name, column)`, each column exporting
#: an Arrow array or array stream (a polars Series).
ArrowData = Any

def qrels_from_arrow(
    data: ArrowData, name: str, query: str, doc: str, grade: str, ungraded_frame: list[str] | None = None
) -> Qrels: ...
def run_from_arrow(
    data: ArrowData,
    name: str,
    query: str,
    doc: str,
    score: str,
    rank: str,
    duplicates: str,
    ties: str = "docid",
    stream: bool = False,
) -> Run: ...
def qrels_from_columns(
    name: str,
    query_name: str,
    query: IdColumn,
    doc_name: str,
    doc: IdColumn,
    grade_name: str,
    grade: npt.NDArray[np.float64] | None,
    columns: list[str],
) -> Qrels: ...
def run_from_columns(
    name: str,
    query_name: str,
    query: IdColumn,
    doc_name: str,
    doc: IdColumn,
    order_name: str,
    order: npt.NDArray[np.float64],
    by_rank: bool,
    duplicates: str,
    ties: str = "docid",
) -> Run: ...
def benchmark_parts(id: str) -> list[str] | None:
    """The parts (forums) of a benchmark the card reports as their mean
    (CQADupStack), else None."""
def evaluate(
    qrels: Qrels | None,
    runs: list[tuple[str, Run]],
    specs: list[str],
    options: dict[str, Any],
) -> list[tuple[str, list[str], list[str], npt.NDArray[np.float64], list[float], list[str],
                Qrels | None, list[tuple[str, float]],
                tuple[str | None, list[tuple[str, str]]] | None,
                list[tuple[str, list[str], npt.NDArray[np.float64], list[float]]]]]:
    """Each run's (name, metrics, queries, values, means, warnings, the qrels
    it was evaluated on or None for a JSON Lines run's own, the corpus
    metrics' values, the run file's ir_metadata block as (tag, fields) or
    None, and each part's (name, queries, values, means) for a benchmark of
    parts). `options` holds every keyword of the spec that
    `evaluate` fills: missing, rel, ties, score_threshold, allow_empty_run,
    judged_only, bounds, duplicates, catalog, train (a Qrels), item_features,
    record, label, subtopic_qrels, doc_groups, group_targets, samples, label_counts, train_instances,
    inverse_propensities, official (None, "" for the qrels'
    benchmark, or a benchmark id), fetch, drop_identical_ids, parts (None, or
    "irds:<id>" of a benchmark of parts and each run's (name or None,
    pattern))."""
def report(
    qrels: Qrels | None,
    runs: list[tuple[str, Run]],
    specs: list[str],
    options: dict[str, Any],
    groups: str | None,
    compare: dict[str, Any] | None,
    format: str,
    per_query: bool,
    title: str | None = None,
) -> tuple[str, list[str], bool]:
    """The report of `rankeval eval` in `format` (the HTML page with its
    curves and changed queries), the warnings, and whether every gate passed."""
def register_metric(name: str, function: MetricFunction) -> None:
    """Registers `function` as the metric `name`, usable as `"name"` or `"name@k"`."""

def unregister_metric(name: str) -> bool:
    """Forgets the Python metric `name`; whether it was registered."""

def python_metrics() -> list[str]:
    """The registered Python metrics' names, sorted."""

def run_names(paths: list[str]) -> list[str]:
    """The report name of each run file, by the naming rule of every command."""

def metric_names() -> list[str]:
    """The built-in metrics' names, sorted."""

def canonical_names(specs: list[str]) -> list[str]:
    """The metrics' canonical names, as results name their columns."""

class SparkEvaluator:
    """Evaluates one Spark partition's sided Arrow batches (rankeval_rs.spark)."""

    def __init__(
        self,
        specs: list[str],
        runs: list[str],
        missing: str = "skip",
        rel: float = 1.0,
        ties: str = "docid",
        duplicates_policy: str = "error",
        score_threshold: float | None = None,
        threads: int = 1,
        chunk_rows: int = ...,
        corpus: list[str] = ...,
        catalog: str | None = None,
        training: str | None = None,
        features: str | None = None,
        column_names: tuple[str, str, str, str] | None = None,
        aggregators: list[str] = ...,
        drop_identical_ids: bool = False,
        subtopic_qrels: str | None = None,
        doc_groups: str | None = None,
        sample: str | None = None,
        group_targets: str | None = None,
        label_counts: str | None = None,
        train_instances: int | None = None,
        inverse_propensities: str | None = None,
        qrels_facts: bytes | None = None,
    ) -> None: ...
    def columns(self) -> list[str]: ...
    def needs_qrels_facts(self) -> bool:
        """Whether the metrics read facts of the whole qrels (psp, psndcg, hole): a first pass gathers them."""
    def qrels_facts(self, batches: list[Any]) -> bytes:
        """The first pass over one partition's judgement rows: the facts of its queries, as bytes to merge."""
    def push(self, batch: Any) -> Any:
        """The results of the queries complete so far (a pyarrow.RecordBatch), or None."""
    def finish(self) -> Any:
        """The results of the rows held back, or None."""

def spark_aggregators(specs: list[str], floor: float, ddof: int) -> list[str]:
    """The aggregators' canonical names as the Spark API takes them (a plain gmean with floor,
    a plain std with ddof); refuses one that gives an interval."""

class SparkAggregates:
    """One partition's aggregator states over per-query rows (query, run, one float64 column per metric)."""

    def __init__(self, metrics: list[str], aggregators: list[str], runs: list[str]) -> None: ...
    def push(self, batch: Any) -> None:
        """Sees a pyarrow.RecordBatch of per-query rows."""
    def finish(self) -> list[tuple[str, bytes]]:
        """Each run's states as bytes."""

def spark_aggregate_values(metrics: list[str], aggregators: list[str], parts: list[bytes]) -> list[list[float]]:
    """One run's aggregates from every partition's states, merged and finished: [metric][aggregator]."""

def spark_corpus_names(specs: list[str]) -> list[str]:
    """The corpus metrics' canonical names."""

def spark_merge_qrels_facts(parts: list[bytes]) -> bytes:
    """The facts of the whole qrels from every partition's first-pass bytes, merged."""

def spark_corpus_values(
    specs: list[str],
    parts: list[bytes],
    catalog: str | None = None,
    training: str | None = None,
    features: str | None = None,
) -> list[float]:
    """One run's corpus values from every partition's states, merged and finished."""

def spark_ope_states(
    log: bytes,
    name: str,
    policies: list[tuple[str | None, str]],
    options: dict[str, Any],
) -> tuple[int, int, list[tuple[str, str, bytes]]]:
    """One partition's off-policy states: impressions, slate length, (policy, estimator, bytes);
    the request as ``ope`` takes it, its log in parts."""

def spark_ope_paired(
    log: bytes,
    name: str,
    merged: list[tuple[str, str, bytes]],
    centres: list[list[float]] | None,
    policies: list[tuple[str | None, str]],
    options: dict[str, Any],
) -> list[tuple[str, str, bytes]]:
    """One partition's exact sums of the paired differences (or, with centres, of their
    squared deviations): (candidate, estimator, bytes) per candidate after the first."""

def spark_ope_merge(
    policies: list[str], estimators: list[str], parts: list[tuple[str, str, bytes]]
) -> list[tuple[str, str, bytes]]:
    """The partitions' off-policy states merged per policy and estimator, as bytes."""

def spark_ope_centres(
    candidates: list[str], estimators: list[str], parts: list[tuple[str, str, bytes]], impressions: int
) -> list[list[float]]:
    """The whole log's mean paired difference per candidate and estimator."""

def spark_ope_report(
    policies: list[tuple[str | None, str]],
    options: dict[str, Any],
    parts: list[tuple[str, str, bytes]],
    squares: list[tuple[str, str, bytes]],
    impressions: int,
    slate_len: int,
    log_name: str = "spark",
) -> str:
    """The whole log's report (rankeval ope --format json) from the partitions' states and
    paired squared deviations."""

def spark_ope_check(
    policies: list[tuple[str | None, str]], options: dict[str, Any]
) -> tuple[list[str], list[str], str]:
    """The request checked by the spec before any job reads the log: the policies' names,
    the estimators' names, the log's impression column."""

def keyed_states(
    queries: list[str], differences: npt.NDArray[np.float64], groups: int, resamples: int, seed: int
) -> tuple[list[float], list[float], list[float], list[float]]:
    """First-pass mergeable states (paired sums, jackknife groups, keyed sign flips, keyed
    bootstrap) as wires."""

def keyed_squares(differences: npt.NDArray[np.float64], mean: float) -> list[float]:
    """Second-pass state: the exact squared deviations from ``mean``, as a wire."""

def keyed_mean(paired: list[list[float]]) -> float:
    """The mean difference of merged first-pass states."""

def keyed_result(
    paired: list[list[float]],
    squares: list[list[float]],
    grouped: list[list[float]],
    flips: list[list[float]],
    boots: list[list[float]],
    level: float,
) -> dict[str, Any]:
    """The statistics of merged keyed states."""

def keyed_tukey_state(
    queries: list[str], scores: npt.NDArray[np.float64], resamples: int, seed: int
) -> list[float]:
    """One partition's keyed randomized Tukey HSD state (queries x systems scores) as a wire."""

def keyed_tukey_result(states: list[list[float]]) -> dict[str, Any]:
    """The keyed randomized Tukey HSD of merged states."""
