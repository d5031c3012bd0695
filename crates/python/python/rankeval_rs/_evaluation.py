"""`evaluate` and its results. Every number comes from the native engine;
this module only picks the inputs apart and shapes what comes back."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple


from . import _native
from ._inputs import is_path, run_names, to_qrels, to_run

if TYPE_CHECKING:
    import numpy as np

    from ._report import Comparison

#: Metrics used when none are given (as the command line's `eval`).
DEFAULT_METRICS: tuple[str, ...] = ("ap", "rr", "p@10", "recall@100", "ndcg@10")


class RankevalWarning(UserWarning):
    """Something the user should know about an evaluation: queries only in
    the run or only in the qrels, repeated documents left out."""


class Basis(NamedTuple):
    """What an evaluation's values depend on besides the run: the qrels
    and the options. Runs compared with each other must share it (qrels
    count as the same when they hold equal judgements in any order: see
    :meth:`Qrels.same_judgements`)."""

    qrels: Any  # a Qrels, or a JSON Lines run's own judgements (see `judgements`)
    missing: str
    rel: float
    ties: str
    score_threshold: float | None
    drop_identical_ids: bool = False


class _OwnJudgements:
    """The judgements a JSON Lines run file holds (evaluated with ``qrels=None``),
    read when a comparison asks whether two runs share them."""

    def __init__(self, run: Any, **columns: Any):
        self._run = run.file if isinstance(run, _native.Run) else run
        self._columns = columns
        self._qrels: _native.Qrels | None = None

    def qrels(self) -> _native.Qrels:
        if self._qrels is None:
            self._qrels = to_qrels(self._run, **self._columns)
        return self._qrels


def judgements(basis: Basis) -> _native.Qrels:
    """The qrels a result was evaluated on (a JSON Lines run's own, read now)."""
    qrels = basis.qrels
    return qrels.qrels() if isinstance(qrels, _OwnJudgements) else qrels


def _options(*, train: Any, query: str, doc: str, grade: str, delimiter: str | None,
             **keywords: Any) -> dict[str, Any]:
    """`evaluate`'s keyword arguments as the native layer takes them: every
    option of the spec by its keyword, the training interactions read as
    qrels (a file, a dict or a table, as ``qrels``)."""
    if train is not None:
        train = to_qrels(train, query=query, doc=doc, grade=grade, format=None,
                         delimiter=delimiter, name="train")
    for key in ("catalog", "item_features", "record", "subtopic_qrels", "doc_groups",
                "group_targets", "label_counts", "inverse_propensities"):
        if keywords[key] is not None:
            keywords[key] = os.fspath(keywords[key])
    return {**keywords, "train": train}


def _official(official: bool | str) -> str | None:
    """``official=`` as the native layer takes it: None (off), ``""`` (the
    benchmark of the ``irds:`` qrels) or a benchmark id."""
    if official is True:
        return ""
    if official is False or official is None:
        return None
    if isinstance(official, str) and official:
        return official
    raise ValueError(f"official={official!r}: expected True, False or a benchmark id "
                     "(`rankeval benchmarks` lists them)")


class Interval(NamedTuple):
    """A metric's mean with its confidence interval (:meth:`Evaluation.interval`)."""

    mean: float
    lower: float
    upper: float
    #: The aggregator that computed it, in the CLI's syntax, with what it
    #: depends on (``ci``, ``ci(level=0.9,method=bca,resamples=10000,seed=42)``).
    method: str


def _optional(module: str, what: str) -> Any:
    """The optional dependency `module`, or an ImportError that says which
    extra installs it and what works without it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{what}, which needs {module}: install the extra with "
            f"pip install \"rankeval-rs[pandas]\" (or use to_dict(), which needs neither)"
        ) from error


def canonical(metric: str, metrics: Sequence[str]) -> str:
    """The name among `metrics` (canonical names) that `metric` means: itself,
    or the canonical name of the spelling typed (``"recall@20"`` is
    ``r@20``, ``"MAP@10"`` is ``ap@10``), built as ``evaluate`` builds it;
    a KeyError naming the metrics when it is none of them."""
    if metric in metrics:
        return metric
    try:
        name = _native.canonical_names([metric])[0]
    except (_native.RankevalError, TypeError):
        name = None
    if name is not None and name in metrics:
        return name
    raise KeyError(f"no metric {metric!r} in these results (metrics: {', '.join(metrics)})")


class Means(dict[str, float]):
    """``{metric: value}`` under the canonical names, where the name as typed
    finds its value too: ``means["recall@20"]`` is ``means["r@20"]``."""

    def __missing__(self, metric: str) -> float:
        return dict.__getitem__(self, canonical(metric, list(self)))

    def __contains__(self, metric: object) -> bool:
        if not isinstance(metric, str):
            return False
        try:
            canonical(metric, list(self))
        except KeyError:
            return False
        return True

    def get(self, metric: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[metric] if metric in self else default


class Evaluation:
    """The results of one run: per-query values and their means.

    - ``run``: the run's name;
    - ``metrics``: canonical metric names (``"ap(norm=truncated)@10"``), in the order given;
    - ``queries``: the evaluated query ids, in byte order (as the CLI reports them);
    - ``values``: a float64 array, one row per query, one column per metric;
    - ``means``: ``{metric: mean over the evaluated queries}``;
    - ``warnings``: the warnings, also issued as :class:`RankevalWarning`;
    - ``groups``: with ``evaluate(..., groups=...)``, each group's results as
      ``{column: {value: Evaluation}}`` (the group's queries and values, its
      means computed as the CLI's ``--groups`` computes them); else ``{}``.
      For a benchmark reported as the mean of its parts
      (``qrels="irds:beir/cqadupstack"``), ``{"forum": {forum: Evaluation}}``:
      each forum's own results, while ``queries`` are the forums, ``values``
      each forum's means and ``means`` the benchmark's (the mean of the
      forums' means);
    - ``ir_metadata``: the ir_metadata block heading the run file (TIREx,
      repro_eval), as the JSON report's ``runs[].ir_metadata``:
      ``{"tag": tag or None, "fields": {"actor.team": "...", ...}}`` (each
      field a dotted path and its text, list items as ``path[i]``, in the
      block's order); None without one (docs/benchmarks.md).

    Results of runs evaluated on the same qrels with the same metrics and
    options are compared with :func:`compare`.
    """

    __slots__ = ("run", "metrics", "queries", "values", "means", "warnings", "groups", "corpus",
                 "ir_metadata", "_basis", "_of_parts")

    def __init__(self, run: str, metrics: list[str], queries: list[str], values: np.ndarray,
                 means: list[float], warnings: list[str], basis: Basis | None = None):
        self.run = run
        self.metrics = metrics
        self.queries = queries
        self.values = values
        self.means = Means(zip(metrics, means))
        self.warnings = warnings
        self.groups: dict[str, dict[str, Evaluation]] = {}
        self.corpus: dict[str, float] = {}
        self.ir_metadata: dict[str, Any] | None = None
        #: What the values depend on besides the run (see :class:`Basis`);
        #: None for results that `evaluate` did not make.
        self._basis = basis
        #: True for a benchmark reported as the mean of its parts, whose
        #: rows (``queries``) are the forums, not queries.
        self._of_parts = False

    def _counts(self) -> list[tuple[str, int]]:
        """What the summary counts, as the CLI's table labels it: the
        queries; for a benchmark of parts, the forums and the queries of
        all forums (``queries`` alone would count forums)."""
        if self._of_parts:
            forums = self.groups.get("forum", {})
            return [("forums", len(forums)),
                    ("queries", sum(len(part.queries) for part in forums.values()))]
        return [("queries", len(self.queries))]

    def __getitem__(self, metric: str) -> float:
        """The mean of `metric` (its canonical name, or the name as typed)."""
        return self.means[metric]

    def to_dict(self) -> dict[str, dict[str, float]]:
        """Per-query values as ``{query: {metric: value}}`` (pytrec_eval's
        shape), without pandas or pyarrow."""
        return {
            query: dict(zip(self.metrics, (float(v) for v in row)))
            for query, row in zip(self.queries, self.values)
        }

    def per_query(self, metric: str | None = None) -> Any:
        """Per-query values as a pandas DataFrame indexed by ``query`` (one
        column per metric), or one metric's values as a Series. Needs
        pandas (``pip install "rankeval-rs[pandas]"``); :meth:`to_dict`
        does not."""
        pd = _optional("pandas", "per_query() returns a pandas DataFrame")

        frame = pd.DataFrame(self.values, index=pd.Index(self.queries, name="query"),
                             columns=list(self.metrics), copy=False)
        return frame if metric is None else frame[canonical(metric, self.metrics)]

    def to_arrow(self) -> Any:
        """Per-query values as a pyarrow Table: a ``query`` column, then one
        float64 column per metric. Needs pyarrow (``pip install
        "rankeval-rs[pandas]"``)."""
        pa = _optional("pyarrow", "to_arrow() returns a pyarrow Table")

        import numpy as np

        columns = {"query": pa.array(self.queries, type=pa.string())}
        for index, metric in enumerate(self.metrics):
            columns[metric] = pa.array(np.ascontiguousarray(self.values[:, index]))
        return pa.table(columns)

    def interval(self, metric: str | None = None, *, level: float = 0.95, method: str = "t",
                 resamples: int | None = None, seed: int | None = None
                 ) -> Interval | dict[str, Interval]:
        """The confidence interval of the mean of `metric` (every metric's,
        as ``{metric: Interval}``, when None), as the CLI's ``-a "ci(...)"``
        computes it: ``method="t"``, Student's t interval (what
        ``scipy.stats.t.interval`` gives with the standard error of the
        mean), or ``"bca"``, the BCa bootstrap (``scipy.stats.bootstrap``'s
        ``method="BCa"``) from ``resamples`` resamples (10000) drawn with
        ``seed`` (42; ChaCha20, the same bits for any thread count).

        Too few queries (fewer than 2) or a value that is not finite give
        NaN bounds and a :class:`RankevalWarning` saying why."""
        params = [f"level={level!r}", f"method={method}"]
        if resamples is not None:
            params.append(f"resamples={resamples}")
        if seed is not None:
            params.append(f"seed={seed}")
        spec = f"ci({','.join(params)})"
        names = self.metrics if metric is None else [canonical(metric, self.metrics)]
        result: dict[str, Interval] = {}
        for name in names:
            import numpy as np

            column = np.ascontiguousarray(self.values[:, self.metrics.index(name)], dtype=np.float64)
            mean, bounds, reason, method_name = _native.interval(column, spec)
            if bounds is None:
                warnings.warn(f"run `{self.run}`: {name}: no interval: {reason}", RankevalWarning,
                              stacklevel=2)
                bounds = (float("nan"), float("nan"))
            result[name] = Interval(mean, bounds[0], bounds[1], method_name)
        return result if metric is None else result[names[0]]

    def __repr__(self) -> str:
        means = ", ".join(f"{m}={v:.4f}" for m, v in self.means.items())
        counts = ", ".join(f"{label}={count}" for label, count in self._counts())
        return f"Evaluation(run={self.run!r}, {counts}, {means})"

    def _repr_html_(self) -> str:
        """The means as an HTML table, for notebooks."""
        return _html_table([self])


def _html_table(results: Sequence[Evaluation]) -> str:
    """Runs as columns, metrics as rows (the CLI's table), in HTML."""
    from html import escape

    metrics = list(results[0].metrics) if results else []
    head = "".join(f"<th>{escape(r.run)}</th>" for r in results)
    labels = list(dict.fromkeys(label for r in results for label, _ in r._counts()))
    rows = []
    for label in labels:
        cells = "".join(f"<td>{dict(r._counts()).get(label, '')}</td>" for r in results)
        rows.append(f"<tr><th>{label}</th>{cells}</tr>")
    for metric in metrics:
        cells = "".join(f"<td>{r.means.get(metric, float('nan')):.4f}</td>" for r in results)
        rows.append(f"<tr><th>{escape(metric)}</th>{cells}</tr>")
    for name in sorted({c for r in results for c in r.corpus}):
        cells = "".join(f"<td>{r.corpus.get(name, float('nan')):.4f}</td>" for r in results)
        rows.append(f"<tr><th>{escape(name)}</th>{cells}</tr>")
    table = f"<table><thead><tr><th>metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    said = list(dict.fromkeys(w for r in results for w in r.warnings))
    if said:
        items = "".join(f"<li>{escape(w)}</li>" for w in said)
        table += f'<p>warnings:</p><ul class="warnings">{items}</ul>'
    return table


class Evaluations(dict[str, Evaluation]):
    """The results of several runs evaluated together: ``{name:
    Evaluation}``, in the order given, with :meth:`compare`; with
    ``evaluate(..., systems=...)``, ``systems`` holds the CLI's ``systems``
    object (``--system``), parsed (else None)."""

    systems: dict[str, Any] | None = None

    def _repr_html_(self) -> str:
        """Every run's means as one HTML table, for notebooks."""
        return _html_table(list(self.values()))

    def compare(self, baseline: str | None = None, **options: Any) -> Comparison:
        """:func:`compare` on these results: the runs compared with
        ``baseline`` (one of them, by name) or every pair of runs, with
        the same options and numbers as ``rankeval eval --baseline``."""
        from ._report import compare

        return compare(self, baseline, **options)

    def __repr__(self) -> str:
        return f"Evaluations({dict.__repr__(self)})"


def evaluate(
    qrels: Any,
    run_or_runs: Any = None,
    metrics: str | Sequence[str] | None = None,
    *,
    missing: str = "skip",
    duplicates: str = "error",
    rel: float = 1,
    ties: str = "docid",
    score_threshold: float | None = None,
    allow_empty_run: bool = False,
    judged_only: bool = False,
    bounds: bool = False,
    query: str = "user",
    doc: str = "item",
    score: str = "score",
    rank: str = "rank",
    grade: str = "grade",
    format: str | None = None,
    delimiter: str | None = None,
    name: str | None = None,
    run: str | None = None,
    groups: Any = None,
    systems: Mapping[str, Any] | None = None,
    catalog: str | os.PathLike[str] | None = None,
    train: Any = None,
    item_features: str | os.PathLike[str] | None = None,
    record: str | os.PathLike[str] | None = None,
    label: str | None = None,
    subtopic_qrels: str | os.PathLike[str] | None = None,
    doc_groups: str | os.PathLike[str] | None = None,
    group_targets: str | os.PathLike[str] | None = None,
    samples: bool = False,
    label_counts: str | os.PathLike[str] | None = None,
    train_instances: int | None = None,
    inverse_propensities: str | os.PathLike[str] | None = None,
    official: bool | str = False,
    fetch: bool = False,
    drop_identical_ids: bool = False,
) -> Any:
    """Evaluates a run (or several) against qrels, as ``rankeval eval`` does.

    ``qrels`` and each run are a file path (TREC, JSON Lines or CSV/TSV, by
    extension or ``format=``; plain or gzip), a dict of dicts
    (``{"q1": {"d1": 1}}``; a run may also map a query to a list of
    documents, best first), a pandas DataFrame or an Arrow table (pyarrow,
    polars) with the columns named by ``query``, ``doc``, ``score`` (or
    ``rank``) and ``grade`` (defaults as the CLI's CSV columns), or a
    :class:`Qrels` / :class:`Run` made before. ``qrels`` may be ``None``
    when every run is a JSON Lines file holding its own judgements.

    ``run_or_runs`` is one run (returns an :class:`Evaluation`), or a dict
    ``{name: run}`` or a list of runs (returns ``{name: Evaluation}``; a
    list's names are the file stems, as the CLI names them); compare
    those with :meth:`Evaluations.compare` or :func:`compare`. ``name``
    names one run (a DataFrame, a dict or an Arrow table is ``"run"``
    otherwise, a file its stem), as ``--run NAME=FILE`` does.

    ``metrics`` use the CLI's syntax (None: :data:`DEFAULT_METRICS`, or with
    ``official=`` the benchmark's measures alone): ``"ndcg@10"``,
    ``"ap(norm=truncated)@10"``, and the names of metrics registered with
    :func:`register_metric`. ``missing`` (``"skip"`` or ``"zero"``),
    ``duplicates`` (``"error"`` or ``"first"``) and ``rel`` are the CLI's
    ``--missing``, ``--duplicates`` and ``--rel`` (a grade above 0, ``3.5``
    too); ``ties`` (``--ties``) ranks tied scores by document id
    (``"docid"``, trec_eval's rule), in the run's order (``"input"``: its
    lines, rows or dict order) or averages each metric over every order of
    the ties (``"average"``); ``score_threshold`` (``--score-threshold``)
    cuts each list at the entries scored at or below it (None: every entry
    counts). A run that never ran on the qrels (it shares no query with
    them, or its lists for the judged queries are all empty) raises
    :class:`InputError` unless ``allow_empty_run=True`` (``--allow-empty-run``).
    ``judged_only=True`` (``--judged-only``) scores every metric on judged
    documents only: unjudged documents (not in the qrels, or a negative
    grade) are removed from each ranking first, the condensed list
    (trec_eval ``-J``), and each metric's name says so
    (``ndcg(judged_only=true)@10``, as a metric's own ``judged_only=true``).
    ``bounds=True`` (``--bounds``) adds after each metric its value with
    every unjudged document judged non-relevant
    (``ndcg(unjudged=nonrelevant)@10``) and relevant at the query's top
    grade (``ndcg(unjudged=relevant)@10``), and at the end the hole rate
    (``unjudged@k``); a run whose hole rate passes 0.2 is warned about.
    Bad values raise :class:`ValueError` with the CLI's reason.

    ``groups`` (``--groups``) gives each result's ``groups``: the results
    per group of queries. A groups file (CSV, TSV for ``.tsv``, Parquet; a
    header, the query id first, then one column per grouping), a dict
    ``{query: {column: value}}``, or a DataFrame whose first column holds
    the query ids. Queries in no group of a column are counted in a
    :class:`RankevalWarning`.

    ``systems`` (``--system``): systems of several runs (training seeds,
    folds), ``{name: runs}`` with runs a list (paths or data) or a glob
    pattern (``"runs/v2-seed*.trec"``). Each run is evaluated as
    ``NAME/FILE-STEM`` (``NAME/1``, ``NAME/2``... for data), beside
    ``run_or_runs`` (which may then be None), and the result's ``systems``
    holds each system's mean over queries and runs, its interval and spread
    over runs, and each system compared with the first counting the run
    variance.

    ``record`` (``--record``) records the results in a results history, an
    SQLite file created if missing: one record per run with its per-query
    values, the judgements' fingerprint and the options (``rankeval history``
    lists them; docs/history.md); ``label`` (``--label``) labels the records,
    and the commit is taken from the CI's variables (``GITHUB_SHA``...).

    ``subtopic_qrels`` (``--subtopic-qrels``) is a file of subtopic
    judgements, ``query subtopic doc grade`` (ndeval's lines, or a CSV/TSV,
    JSON Lines, Parquet or Arrow table of those columns), read by the
    diversity metrics (``alpha_ndcg@20``, ``err_ia@20``, ``nrbp``, ...);
    with it ``qrels`` may be ``None`` (each document judged with its highest
    grade over the subtopics).

    ``doc_groups`` (``--doc-groups``) is a file of document groups, ``doc
    group [weight]`` (weight 1 when left out; or a CSV/TSV, JSON Lines,
    Parquet or Arrow table with columns doc, group and optionally weight),
    read by the group-fairness metrics (``awrf``, ``trec_fair``).
    ``group_targets`` (``--group-targets``) is a table ``query, group,
    share`` (CSV/TSV, JSON Lines, Parquet or Arrow): each query's target
    over the groups, read by ``awrf(target=given)`` and
    ``trec_fair(target=given)``.
    ``samples=True`` (``--samples``) reads every run as a sampled run,
    several rankings per query (a stochastic ranking policy): each run a
    file whose TREC second column (a table's ``sample`` column) names the
    sample; expected exposure (``ee_d``, ``ee_r``, ``ee_l``) sums each
    document's exposure over the samples, every other metric is its mean
    over them (docs/fairness.md).

    ``label_counts`` (``--label-counts``) with ``train_instances``
    (``--train-instances``) are the training label frequencies of the
    propensity-scored metrics (``psp@5``, ``psndcg@5``): a CSV/TSV table with
    columns ``label`` and ``count``, and the number of training instances N;
    or ``inverse_propensities`` (``--inverse-propensities``), a table with
    columns ``label`` and ``inverse_propensity``.

    Benchmarks by name (docs/benchmarks.md): ``qrels="irds:<id>"`` reads an
    ir_datasets id's qrels from ir_datasets' cache, and ``fetch=True``
    (``--fetch``) runs ir_datasets to fill it when they are missing.
    ``official=True`` (``--official``) evaluates the card's measures of the
    qrels' benchmark under its conventions, ``official="<id>"`` those of a
    benchmark named (qrels of one's own). ``drop_identical_ids=True``
    (``--drop-identical-ids``) drops a retrieved document whose id is the
    query's id before judging (BEIR's convention), for every metric,
    corpus metrics included.

    Raises :class:`InputError` (with ``file``, ``line``, ``message``) for
    bad input and :class:`MetricError` for a bad metric; issues a
    :class:`RankevalWarning` per warning.
    """
    prepared = _prepare(
        qrels, run_or_runs, metrics, missing=missing, duplicates=duplicates, rel=rel, ties=ties,
        score_threshold=score_threshold, allow_empty_run=allow_empty_run, judged_only=judged_only,
        bounds=bounds, query=query, doc=doc, score=score, rank=rank, grade=grade, format=format,
        delimiter=delimiter, name=name, run=run, systems=systems, catalog=catalog, train=train,
        item_features=item_features, record=record, label=label,
        subtopic_qrels=subtopic_qrels, doc_groups=doc_groups, group_targets=group_targets,
        samples=samples, label_counts=label_counts,
        train_instances=train_instances, inverse_propensities=inverse_propensities,
        official=official, fetch=fetch, drop_identical_ids=drop_identical_ids)
    single, named, members = prepared.single, prepared.named, prepared.members
    judged, runs, specs, options = prepared.qrels, prepared.runs, prepared.specs, prepared.options
    evaluated = _native.evaluate(judged, runs, specs, options)
    results = []
    for (run_name, names, queries, values, means, texts, judged_by, corpus, block,
         parts), (_, value) in zip(evaluated, named):
        if parts:
            # A benchmark of parts: its rows are the parts, compared with
            # nothing (`compare` needs the queries of one set of qrels).
            result = Evaluation(run_name, names, queries, values, means, texts)
            result._of_parts = True
            for part, part_queries, part_values, part_means in parts:
                result.groups.setdefault("forum", {})[part] = Evaluation(
                    f"{run_name} [forum={part}]", names, part_queries, part_values,
                    part_means, [])
        else:
            own = judged_by if judged_by is not None else _OwnJudgements(
                value, query=query, doc=doc, grade=grade, format=format, delimiter=delimiter)
            result = Evaluation(run_name, names, queries, values, means, texts,
                                Basis(own, missing, rel, ties, score_threshold,
                                      drop_identical_ids))
        result.corpus = dict(corpus)
        if block is not None:
            tag, fields = block
            result.ir_metadata = {"tag": tag, "fields": dict(fields)}
        results.append(result)
    if groups is not None:
        source = _groups_source(groups)
        for result in results:
            slices, notes = _native.group_slices(result.run, result.values, result.queries,
                                                 result.metrics, source)
            result.warnings.extend(notes)
            for column, value, rows, means in slices:
                result.groups.setdefault(column, {})[value] = Evaluation(
                    f"{result.run} [{column}={value}]", result.metrics,
                    [result.queries[r] for r in rows], result.values[rows], means, [],
                    result._basis)
    for result in results:
        for text in result.warnings:
            warnings.warn(text, RankevalWarning, stacklevel=2)
    if single:
        return results[0]
    evaluations = Evaluations((r.run, r) for r in results)
    if members:
        import json

        order: dict[str, list[str]] = {}
        for system, run_name, _ in members:
            order.setdefault(system, []).append(run_name)
        evaluations.systems = json.loads(_native.systems(
            [(r.run, r.metrics, r.queries, r.values) for r in results], list(order.items())))
    return evaluations


#: The keyword arguments of :func:`compare`, which :func:`report` takes too.
_COMPARE_KEYWORDS = ("baseline", "baseline_file", "baseline_run", "gates", "test", "level",
                     "resamples", "seed", "bootstrap", "correction", "family", "alpha",
                     "groups_in_family", "interval", "jackknife_groups",
                     "allow_changed_qrels", "allow_changed_options")

#: `evaluate`'s keyword arguments and their defaults, for :func:`report`.
_EVALUATE_DEFAULTS: dict[str, Any] = {
    "missing": "skip", "duplicates": "error", "rel": 1, "ties": "docid", "score_threshold": None,
    "allow_empty_run": False, "judged_only": False, "bounds": False, "query": "user",
    "doc": "item", "score": "score", "rank": "rank", "grade": "grade", "format": None,
    "delimiter": None, "name": None, "run": None, "catalog": None, "train": None,
    "item_features": None, "record": None, "label": None, "subtopic_qrels": None,
    "doc_groups": None, "group_targets": None, "samples": False, "label_counts": None, "train_instances": None, "inverse_propensities": None,
    "official": False, "fetch": False, "drop_identical_ids": False,
}


def report(
    qrels: Any,
    run_or_runs: Any = None,
    metrics: str | Sequence[str] | None = None,
    *,
    format: str = "html",
    output: str | os.PathLike[str] | None = None,
    per_query: bool = False,
    groups: str | os.PathLike[str] | None = None,
    title: str | None = None,
    **keywords: Any,
) -> str:
    """The report ``rankeval eval`` prints, without an experiment file: the
    runs evaluated as :func:`evaluate` evaluates them (its keyword
    arguments), compared as :func:`compare` compares them when given one of
    its keywords (``baseline=``, ``gates=``, ``test=``...), in ``format``:
    ``"html"`` (one self-contained page: the table, the comparison, the
    curves of p@k, recall@k, nDCG@k and precision-recall, and the queries
    that changed most, explained), ``"table"``, ``"json"``, ``"csv"``,
    ``"markdown"``, ``"trec"`` or ``"latex"``; ``per_query`` adds each
    query's values (``--per-query``). ``groups`` is a groups file
    (``--groups``); ``title`` is the HTML page's title and heading
    (``--title``). Written to ``output`` when given; the text is returned
    either way. Warnings are issued as :class:`RankevalWarning`.

    ``baseline="db:history.sqlite"`` (or ``"db:history.sqlite#ID"``) compares
    with a results history's last accepted record (or record ID), as
    ``--baseline db:...`` does: refused with :class:`CompareError` when its
    judgements or metric definitions differ (unless
    ``allow_changed_qrels=True``) or the options that change numbers differ
    (``rel``, ``ties``...; unless ``allow_changed_options=True``), each
    override said in a warning (docs/history.md)."""
    unknown = sorted(set(keywords) - set(_COMPARE_KEYWORDS) - set(_EVALUATE_DEFAULTS))
    if unknown:
        raise TypeError(f"report() got unexpected keyword arguments: {', '.join(unknown)}")
    compare = {k: v for k, v in keywords.items() if k in _COMPARE_KEYWORDS and v is not None}
    if isinstance(compare.get("gates"), str):
        compare["gates"] = [compare["gates"]]
    if "baseline_file" in compare:
        compare["baseline_file"] = os.fspath(compare["baseline_file"])
    options = {**_EVALUATE_DEFAULTS,
               **{k: v for k, v in keywords.items() if k in _EVALUATE_DEFAULTS}}
    prepared = _prepare(qrels, run_or_runs, metrics, systems=None, **options)
    text, said, _ = _native.report(
        prepared.qrels, prepared.runs, prepared.specs, prepared.options,
        None if groups is None else os.fspath(groups), compare or None, format, per_query,
        title)
    for warning in said:
        warnings.warn(warning, RankevalWarning, stacklevel=2)
    if output is not None:
        with open(output, "w", encoding="utf-8") as file:
            file.write(text)
    return str(text)


class _Prepared(NamedTuple):
    """What the native layer evaluates: the inputs converted, the runs
    named, the metrics' specs and the options of the spec by keyword."""

    single: bool
    named: list[tuple[str, Any]]
    members: list[tuple[str, str, Any]]
    qrels: _native.Qrels | None
    runs: list[tuple[str, _native.Run]]
    specs: list[str]
    options: dict[str, Any]


def _prepare(qrels: Any, run_or_runs: Any, metrics: str | Sequence[str] | None, *, missing: str,
             duplicates: str, rel: float, ties: str, score_threshold: float | None,
             allow_empty_run: bool, judged_only: bool, bounds: bool, query: str, doc: str,
             score: str, rank: str, grade: str, format: str | None, delimiter: str | None,
             name: str | None, run: str | None, systems: Mapping[str, Any] | None,
             catalog: Any, train: Any, item_features: Any, record: Any = None,
             label: str | None = None, subtopic_qrels: Any = None, doc_groups: Any = None,
             group_targets: Any = None, samples: bool = False, label_counts: Any = None,
             train_instances: int | None = None, inverse_propensities: Any = None,
             official: bool | str = False, fetch: bool = False,
             drop_identical_ids: bool = False) -> _Prepared:
    """`evaluate`'s inputs converted and named (its docstring says how);
    every value left for the spec to check."""
    if metrics is None:
        # The defaults, or with official= the benchmark card's measures alone.
        metrics = () if _official(official) is not None else DEFAULT_METRICS
    specs = [metrics] if isinstance(metrics, str) else list(metrics)
    members = _system_runs(systems) if systems is not None else []
    if run_or_runs is None and not members:
        raise ValueError("evaluate needs a run (run_or_runs) or systems=")
    if run_or_runs is None:
        run_or_runs = {}
    if run is not None:
        if name is not None or (isinstance(run_or_runs, (Mapping, list, tuple))
                                and not _is_dict_run(run_or_runs)):
            raise ValueError(f"run={run!r} names the column that tells apart the runs of one "
                             "table: give one table (and no name=)")
        run_or_runs = _split_runs(run_or_runs, run)
    single = (not members) and run is None and (
        not isinstance(run_or_runs, (Mapping, list, tuple)) or _is_dict_run(run_or_runs))
    if name is not None and not single:
        raise ValueError(
            "name= names one run; several runs are named by the keys of a dict {name: run}"
        )
    if single:
        named = [(name if name is not None else _single_name(run_or_runs), run_or_runs)]
    elif isinstance(run_or_runs, Mapping):
        named = [(str(name), value) for name, value in run_or_runs.items()]
    else:
        named = list(zip(run_names(list(run_or_runs)), run_or_runs))
    named.extend((run_name, value) for _, run_name, value in members)
    parts = _benchmark_parts(qrels, run_or_runs, named, single=single, name=name,
                             members=bool(members))
    judged = None if qrels is None or parts is not None else to_qrels(
        qrels, query=query, doc=doc, grade=grade, format=format, delimiter=delimiter,
        fetch=bool(fetch)
    )
    runs = [] if parts is not None else [
        (name, to_run(value, query=query, doc=doc, score=score, rank=rank, format=format,
                      delimiter=delimiter, duplicates=duplicates,
                      name="run" if single else f"run `{name}`", ties=ties, stream=True))
        for name, value in named
    ]
    options = _options(missing=missing, rel=rel, ties=ties, score_threshold=score_threshold,
                       allow_empty_run=allow_empty_run, judged_only=judged_only, bounds=bounds,
                       duplicates=duplicates, catalog=catalog, train=train,
                       item_features=item_features, subtopic_qrels=subtopic_qrels,
                       doc_groups=doc_groups, group_targets=group_targets, samples=samples,
                       label_counts=label_counts, train_instances=train_instances,
                       inverse_propensities=inverse_propensities,
                       query=query, doc=doc, grade=grade,
                       delimiter=delimiter, record=record, label=label,
                       official=_official(official), fetch=fetch,
                       drop_identical_ids=drop_identical_ids, parts=parts)
    return _Prepared(single, named, members, judged, runs, specs, options)


def _benchmark_parts(qrels: Any, run_or_runs: Any, named: list[tuple[str, Any]], *,
                     single: bool, name: str | None,
                     members: bool) -> tuple[str, list[tuple[str | None, str]]] | None:
    """For ``qrels="irds:<id>"`` of a benchmark reported as the mean of its
    parts (CQADupStack's forums), the id and each run as the native layer
    takes it: its name when one was given (``name=``, a dict's keys), else
    None (named by its pattern, `rankeval::benchmarks::parts`), and its
    pattern with ``{forum}`` or folder of files named by forum. None for
    any other qrels."""
    if not is_path(qrels):
        return None
    text = os.fspath(qrels)
    if not isinstance(text, str) or not text.startswith("irds:"):
        return None
    if _native.benchmark_parts(text[len("irds:"):]) is None:
        return None
    if members:
        raise ValueError(f"qrels={text!r} is the mean of its forums' means: systems= is not "
                         "evaluated across forums")
    runs: list[tuple[str | None, str]] = []
    for given, value in named:
        if not is_path(value):
            raise ValueError(
                f"run `{given}`: {text[len('irds:'):]} is the mean of its forums, each judged "
                "on its own qrels: give each run as a path, a pattern with {forum} "
                "(\"runs/bm25-{forum}.trec\") or a folder of files named by forum"
            )
        own = name if single else (given if isinstance(run_or_runs, Mapping) else None)
        runs.append((own, os.fspath(value)))
    return text, runs


def _split_runs(table: Any, column: str) -> dict[str, Any]:
    """One long table of several runs, told apart by `column`, as
    ``{run: table of its rows}`` (the column left out), in the order of the
    runs' names, as the Spark API's ``run=`` orders them."""
    from ._inputs import _is_arrow, _is_pandas, input_error

    def missing(columns: Sequence[str]) -> Exception:
        return input_error("run table", None, f"no column `{column}` (run=); its columns: "
                           + ", ".join(f"`{c}`" for c in columns))

    def null() -> Exception:
        return input_error("run table", None, f"column `{column}` has a null run name")

    parts: dict[str, Any] = {}
    if _is_pandas(table):
        if column not in table.columns:
            raise missing([str(c) for c in table.columns])
        if table[column].isna().any():
            raise null()
        for value, part in table.groupby(column, sort=False):
            parts[str(value)] = part.drop(columns=[column])
    elif type(table).__module__.split(".")[0] == "polars" and hasattr(table, "partition_by"):
        import polars as pl

        if column not in table.columns:
            raise missing(list(table.columns))
        if table.get_column(column).null_count():
            raise null()
        for value in table.get_column(column).unique(maintain_order=True).to_list():
            parts[str(value)] = table.filter(pl.col(column) == value).drop(column)
    elif _is_arrow(table):
        pa = _optional("pyarrow", "run= on an Arrow table")
        import pyarrow.compute as pc

        table = pa.table(table)
        if column not in table.column_names:
            raise missing(table.column_names)
        names = table.column(column)
        if names.null_count:
            raise null()
        names = pc.cast(names, pa.string())
        for value in pc.unique(names).to_pylist():
            parts[value] = table.filter(pc.equal(names, value)).drop_columns([column])
    else:
        raise TypeError(f"run={column!r}: the runs of a pandas or polars DataFrame or an Arrow "
                        f"table, not {type(table).__name__}")
    return {name: parts[name] for name in sorted(parts)}


def _system_runs(systems: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """`(system, run name, run)` of `systems=`: a glob pattern expanded in
    byte order of the paths, paths named by their stems, data numbered."""
    import glob

    members: list[tuple[str, str, Any]] = []
    for system, runs in systems.items():
        system = str(system)
        if not system or "/" in system:
            raise ValueError(f"systems: {system!r} is not a system name (non-empty, without `/`)")
        if isinstance(runs, (str, os.PathLike)) and any(c in os.fspath(runs) for c in "*?["):
            found = sorted(glob.glob(os.fspath(runs)))
            if not found:
                raise ValueError(f"systems: {system}: `{os.fspath(runs)}` matches no file")
            runs = found
        elif isinstance(runs, (str, os.PathLike)):
            runs = [runs]
        runs = list(runs)
        if len(runs) < 2:
            raise ValueError(f"systems: system `{system}` has {len(runs)} run: a system of several "
                             "runs needs at least 2")
        stems = run_names(runs)
        members.extend((system, f"{system}/{stem}", run) for stem, run in zip(stems, runs))
    return members


def _groups_source(groups: Any) -> Any:
    """`groups=` as the native layer takes it: a path, or rows
    `(query, [(column, value)])`."""
    if is_path(groups):
        return groups
    if hasattr(groups, "columns") and hasattr(groups, "itertuples"):
        columns = [str(c) for c in groups.columns]
        if len(columns) < 2:
            raise ValueError(f"groups: a DataFrame needs the query column, then at least one "
                             f"group column; it has {columns}")
        return [(str(row[0]), [(c, "" if v is None else str(v)) for c, v in zip(columns[1:], row[1:])])
                for row in groups.itertuples(index=False, name=None)]
    if isinstance(groups, Mapping):
        return [(str(query), [(str(c), "" if v is None else str(v)) for c, v in row.items()])
                for query, row in groups.items()]
    if hasattr(groups, "iter_rows") and hasattr(groups, "columns"):  # polars
        columns = [str(c) for c in groups.columns]
        return _group_rows(columns, groups.iter_rows())
    if hasattr(groups, "__arrow_c_stream__") or hasattr(groups, "__arrow_c_array__"):
        pa = _optional("pyarrow", "groups= from an Arrow table")
        table = pa.table(groups)
        return _group_rows(table.column_names,
                           zip(*(table.column(c).to_pylist() for c in table.column_names)))
    raise TypeError(f"groups: a file path, a dict {{query: {{column: value}}}}, a DataFrame or "
                    f"an Arrow table, not {type(groups).__name__}")


def _group_rows(columns: list[str], rows: Any) -> list[tuple[str, list[tuple[str, str]]]]:
    """Rows of a table of groups (the query id first) as the native layer
    takes them."""
    if len(columns) < 2:
        raise ValueError(f"groups: a table needs the query column, then at least one group "
                         f"column; it has {columns}")
    return [(str(row[0]), [(c, "" if v is None else str(v)) for c, v in zip(columns[1:], row[1:])])
            for row in rows]


def _is_dict_run(value: Any) -> bool:
    """Whether a mapping is one run `{query: {doc: score}}` (or `{query: [docs]}`)
    rather than `{name: run}`: its values are dicts or lists of ids."""
    if not isinstance(value, Mapping):
        return False
    first = next(iter(value.values()), None)
    if first is None:
        return True
    if isinstance(first, list):
        return all(isinstance(d, (str, int)) for d in first)
    return isinstance(first, Mapping) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in first.values()
    )


def _single_name(value: Any) -> str:
    return run_names([value])[0] if is_path(value) else "run"
