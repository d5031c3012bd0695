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
    for key in ("catalog", "item_features"):
        if keywords[key] is not None:
            keywords[key] = os.fspath(keywords[key])
    return {**keywords, "train": train}


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

    Results of runs evaluated on the same qrels with the same metrics and
    options are compared with :func:`compare`.
    """

    __slots__ = ("run", "metrics", "queries", "values", "means", "warnings", "groups", "corpus",
                 "_basis")

    def __init__(self, run: str, metrics: list[str], queries: list[str], values: np.ndarray,
                 means: list[float], warnings: list[str], basis: Basis | None = None):
        self.run = run
        self.metrics = metrics
        self.queries = queries
        self.values = values
        self.means = dict(zip(metrics, means))
        self.warnings = warnings
        self.groups: dict[str, dict[str, Evaluation]] = {}
        self.corpus: dict[str, float] = {}
        #: What the values depend on besides the run (see :class:`Basis`);
        #: None for results that `evaluate` did not make.
        self._basis = basis

    def __getitem__(self, metric: str) -> float:
        """The mean of `metric` (its canonical name)."""
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
        return frame if metric is None else frame[metric]

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
        names = self.metrics if metric is None else [metric]
        result: dict[str, Interval] = {}
        for name in names:
            if name not in self.metrics:
                raise KeyError(f"no metric {name!r} in this evaluation (metrics: {', '.join(self.metrics)})")
            import numpy as np

            column = np.ascontiguousarray(self.values[:, self.metrics.index(name)], dtype=np.float64)
            mean, bounds, reason, canonical = _native.interval(column, spec)
            if bounds is None:
                warnings.warn(f"run `{self.run}`: {name}: no interval: {reason}", RankevalWarning,
                              stacklevel=2)
                bounds = (float("nan"), float("nan"))
            result[name] = Interval(mean, bounds[0], bounds[1], canonical)
        return result if metric is None else result[names[0]]

    def __repr__(self) -> str:
        means = ", ".join(f"{m}={v:.4f}" for m, v in self.means.items())
        return f"Evaluation(run={self.run!r}, queries={len(self.queries)}, {means})"

    def _repr_html_(self) -> str:
        """The means as an HTML table, for notebooks."""
        return _html_table([self])


def _html_table(results: Sequence[Evaluation]) -> str:
    """Runs as columns, metrics as rows (the CLI's table), in HTML."""
    from html import escape

    metrics = list(results[0].metrics) if results else []
    head = "".join(f"<th>{escape(r.run)}</th>" for r in results)
    rows = [f"<tr><th>queries</th>{''.join(f'<td>{len(r.queries)}</td>' for r in results)}</tr>"]
    for metric in metrics:
        cells = "".join(f"<td>{r.means.get(metric, float('nan')):.4f}</td>" for r in results)
        rows.append(f"<tr><th>{escape(metric)}</th>{cells}</tr>")
    return f"<table><thead><tr><th>metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


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
    metrics: str | Sequence[str] = DEFAULT_METRICS,
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

    ``metrics`` use the CLI's syntax: ``"ndcg@10"``,
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

    Raises :class:`InputError` (with ``file``, ``line``, ``message``) for
    bad input and :class:`MetricError` for a bad metric; issues a
    :class:`RankevalWarning` per warning.
    """
    specs = [metrics] if isinstance(metrics, str) else list(metrics)
    members = _system_runs(systems) if systems is not None else []
    if run_or_runs is None and not members:
        raise ValueError("evaluate needs a run (run_or_runs) or systems=")
    if run_or_runs is None:
        run_or_runs = {}
    single = (not members) and (
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
    for system, run_name, value in members:
        if any(existing == run_name for existing, _ in named):
            raise ValueError(f"systems: two runs are named {run_name!r}")
        named.append((run_name, value))
    judged = None if qrels is None else to_qrels(
        qrels, query=query, doc=doc, grade=grade, format=format, delimiter=delimiter
    )
    runs = [
        (name, to_run(value, query=query, doc=doc, score=score, rank=rank, format=format,
                      delimiter=delimiter, duplicates=duplicates,
                      name="run" if single else f"run `{name}`", ties=ties, stream=True))
        for name, value in named
    ]
    options = _options(missing=missing, rel=rel, ties=ties, score_threshold=score_threshold,
                       allow_empty_run=allow_empty_run, judged_only=judged_only, bounds=bounds,
                       duplicates=duplicates, catalog=catalog, train=train,
                       item_features=item_features, query=query, doc=doc, grade=grade,
                       delimiter=delimiter)
    evaluated = _native.evaluate(judged, runs, specs, options)
    results = []
    for (run_name, names, queries, values, means, texts, judged_by, corpus), (_, value) in zip(
            evaluated, named):
        own = judged_by if judged_by is not None else _OwnJudgements(
            value, query=query, doc=doc, grade=grade, format=format, delimiter=delimiter)
        result = Evaluation(run_name, names, queries, values, means, texts,
                            Basis(own, missing, rel, ties, score_threshold))
        result.corpus = dict(corpus)
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
    raise TypeError(f"groups: a file path, a dict {{query: {{column: value}}}} or a DataFrame, "
                    f"not {type(groups).__name__}")


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
