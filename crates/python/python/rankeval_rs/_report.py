"""TOML experiments and comparisons: :func:`run_experiment` runs an
experiment file as ``rankeval run`` does and returns a :class:`Report`;
:func:`compare` compares its runs (or the runs :func:`evaluate` evaluated
together) with a baseline and checks gates. Every
number comes from the native engine and the library's comparison API."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any


from . import _native
from ._evaluation import Evaluation, RankevalWarning, _optional, judgements
from ._native import CompareError

if TYPE_CHECKING:
    import numpy as np


class RunReport(Evaluation):
    """One run of a :class:`Report`: an :class:`Evaluation` (``means`` holds
    the ``mean`` aggregate when the experiment asks for it) with every
    aggregate and the corpus metrics.

    - ``aggregates``: ``{metric: {aggregator: value}}``, and for an
      aggregator with an interval (``ci``) its bounds beside it, as in the
      CLI's JSON: ``{"ci": 0.61, "ci.lower": 0.52, "ci.upper": 0.70}`` (NaN
      where they could not be computed, with a warning);
    - ``corpus``: ``{corpus metric: value}`` (one value for the whole run).
    """

    __slots__ = ("aggregates",)

    def __init__(self, run: str, metrics: list[str], queries: list[str], values: np.ndarray,
                 aggregators: list[str], aggregates: np.ndarray, corpus: dict[str, float],
                 warnings: list[str], intervals: list[list[tuple[float, float] | None]]):
        self.aggregates = {}
        for index, metric in enumerate(metrics):
            row: dict[str, float] = {}
            for a, aggregator in enumerate(aggregators):
                row[aggregator] = float(aggregates[index][a])
                bounds = intervals[index][a] if index < len(intervals) else None
                if bounds is not None:
                    row[f"{aggregator}.lower"], row[f"{aggregator}.upper"] = bounds
            self.aggregates[metric] = row
        means = [self.aggregates[m]["mean"] for m in metrics] if "mean" in aggregators else []
        super().__init__(run, metrics, queries, values, means, warnings)
        self.corpus = corpus


class Report:
    """The results of an experiment, as ``rankeval run`` reports them.

    - ``metrics``, ``aggregators``, ``corpus``: canonical names, in report order;
    - ``runs``: ``{name: RunReport}``, in the experiment's order;
    - ``warnings``: the warnings, as the CLI prints them (also issued as
      :class:`RankevalWarning`);
    - ``comparison``: the experiment's own comparison and gates (its
      ``baseline``, ``[compare]`` and ``[[gates]]``) as a :class:`Comparison`,
      or None; a baseline read from a results file is then the first run;
    - ``systems``: with ``[[systems]]`` (runs that are one system's seeds),
      the CLI's ``systems`` JSON object, parsed: each system's mean over
      queries and runs with its interval and ``seed_sd``, and each system
      compared with the first (``p_value`` counting the runs,
      ``seed_blind_p_value`` ignoring them); else None.
    """

    def __init__(self, native: Any):
        self._native = native
        self.metrics: list[str] = list(native.metrics)
        self.aggregators: list[str] = list(native.aggregators)
        self.corpus: list[str] = list(native.corpus)
        self.warnings: list[str] = list(native.warnings)
        own = native.comparison
        self.comparison: Comparison | None = None if own is None else Comparison(json.loads(own[0]), own[1])
        systems = native.systems
        self.systems: dict[str, Any] | None = None if systems is None else json.loads(systems)
        self.runs: dict[str, RunReport] = {}
        for name, queries, values, aggregates, corpus, intervals, groups in native.runs():
            prefix = f"run `{name}`: "
            own = [w for w in self.warnings if w.startswith(prefix)]
            run = RunReport(name, self.metrics, queries, values, self.aggregators,
                            aggregates, dict(zip(self.corpus, corpus)), own, intervals)
            for column, value, rows, means in groups:
                run.groups.setdefault(column, {})[value] = Evaluation(
                    f"{name} [{column}={value}]", self.metrics, [queries[r] for r in rows],
                    values[rows], means, [])
            self.runs[name] = run

    def render(self, format: str = "table", *, per_query: bool = False) -> str:
        """The report as the CLI prints it with ``--format`` (``table``,
        ``json``, ``csv``, ``markdown``, ``trec``, ``html``) and ``--per-query``."""
        return str(self._native.render(format, per_query))

    def to_dict(self, *, per_query: bool = True) -> dict[str, Any]:
        """The CLI's JSON report (``--format json``, with its ``comparison``
        when the experiment has one), parsed."""
        return dict(json.loads(self.render("json", per_query=per_query)))

    def compare(self, baseline: str | None = None, **options: Any) -> Comparison:
        """:func:`compare` on this report."""
        return compare(self, baseline, **options)

    def __repr__(self) -> str:
        return f"Report(runs={list(self.runs)}, metrics={self.metrics}, aggregators={self.aggregators})"


def run_experiment(path: str | os.PathLike[str]) -> Report:
    """Runs the TOML experiment at ``path`` as ``rankeval run`` does (paths
    in it are relative to the file) and returns its :class:`Report`.

    Raises :class:`ConfigError` (``file``, ``line``, ``message``) for a bad
    experiment file and :class:`InputError` for bad input; issues a
    :class:`RankevalWarning` per warning."""
    report = Report(_native.run_experiment(os.fspath(path)))
    for text in report.warnings:
        warnings.warn(text, RankevalWarning, stacklevel=2)
    return report


class Comparison:
    """Runs compared with a baseline (or every pair of runs), and the gates.

    - ``baseline``: ``{"name", "source"}``, or None for all pairs;
    - ``provenance``: test, interval method, level, resamples, seed,
      generator, correction, family, alpha, missing policy, version;
    - ``comparisons``: one dict per (run, metric): ``run``, ``baseline``,
      ``metric``, ``pairing``, the means, ``difference``, ``interval``,
      ``p_value``, ``corrected_p_value``, effect size, wins / ties / losses
      (or ``error``);
    - ``gates``: one dict per gate and run: ``gate``, ``run``, ``metric``,
      ``passed``, ``outcome`` (or ``error``);
    - ``passed``: whether every gate passed (True without gates).

    ``to_dict()`` is the ``comparison`` object of the CLI's JSON report.
    """

    def __init__(self, document: dict[str, Any], passed: bool):
        self._document = document
        self.baseline: dict[str, Any] | None = document["baseline"]
        self.provenance: dict[str, Any] = document["provenance"]
        self.comparisons: list[dict[str, Any]] = document["comparisons"]
        self.gates: list[dict[str, Any]] = document["gates"]
        self.passed = passed

    @property
    def seed(self) -> int | None:
        """The seed of the random generator (``provenance["seed"]``), or
        None when the test draws nothing (t, Wilcoxon)."""
        seed = self.provenance.get("seed")
        return None if seed is None else int(seed)

    def cell(self, run: str, metric: str) -> dict[str, Any]:
        """The comparison of ``run`` on ``metric``."""
        for cell in self.comparisons:
            if cell["run"] == run and cell["metric"] == metric:
                return cell
        raise KeyError(f"no comparison of run {run!r} on {metric!r}")

    def to_dict(self) -> dict[str, Any]:
        """The comparison as the CLI's JSON (a copy)."""
        return json.loads(json.dumps(self._document))  # a copy

    #: The columns of :meth:`rows`, in order.
    COLUMNS = ("run", "baseline", "metric", "queries", "baseline_mean", "candidate_mean",
               "difference", "interval_lower", "interval_upper", "level", "p_value",
               "corrected_p_value", "effect_size", "wins", "ties", "losses", "error")

    def rows(self) -> list[dict[str, Any]]:
        """One flat dict per (run, metric), the :data:`COLUMNS` as keys (None
        where a cell has no such number, e.g. an ``error``): the table that
        :meth:`to_pandas` and :meth:`to_arrow` hold."""
        rows = []
        for cell in self.comparisons:
            interval = cell.get("interval") or {}
            row = {column: cell.get(column) for column in self.COLUMNS}
            row["interval_lower"] = interval.get("lower")
            row["interval_upper"] = interval.get("upper")
            row["level"] = interval.get("level")
            rows.append(row)
        return rows

    def to_pandas(self) -> Any:
        """The comparisons as a pandas DataFrame, one row per (run,
        metric) (:meth:`rows`). Needs pandas (the ``[pandas]`` extra)."""
        pd = _optional("pandas", "to_pandas() returns a pandas DataFrame")
        return pd.DataFrame(self.rows(), columns=list(self.COLUMNS))

    def to_arrow(self) -> Any:
        """The comparisons as a pyarrow Table, one row per (run, metric)
        (:meth:`rows`). Needs pyarrow (the ``[pandas]`` extra)."""
        pa = _optional("pyarrow", "to_arrow() returns a pyarrow Table")
        return pa.Table.from_pylist(self.rows()).select(list(self.COLUMNS))

    def _repr_html_(self) -> str:
        """The comparisons and the gates as HTML tables, for notebooks."""
        from html import escape

        def number(value: Any) -> str:
            return "" if value is None else f"{value:.4f}"

        head = ("<tr><th>run</th><th>metric</th><th>baseline</th><th>candidate</th>"
                "<th>difference</th><th>interval</th><th>p</th><th>corrected p</th></tr>")
        body = []
        for row in self.rows():
            interval = ("" if row["interval_lower"] is None
                        else f"[{row['interval_lower']:.4f}, {row['interval_upper']:.4f}]")
            cells = [escape(str(row["run"])), escape(str(row["metric"])), number(row["baseline_mean"]),
                     number(row["candidate_mean"]), number(row["difference"]), interval,
                     number(row["p_value"]), number(row["corrected_p_value"])]
            if row["error"] is not None:
                cells[2:] = [escape(str(row["error"]))] + [""] * 5
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        html = f"<table><thead>{head}</thead><tbody>{''.join(body)}</tbody></table>"
        p = self.provenance
        test = [f"test: {p.get('test')}", f"interval: {p.get('interval_method')}",
                f"correction: {p.get('correction')} over {p.get('family')}", f"alpha: {p.get('alpha')}"]
        if p.get("seed") is not None:
            test.append(f"{p.get('resamples')} resamples, seed {p.get('seed')}")
        html += f'<p class="test">{escape("; ".join(test))}</p>'
        if self.gates:
            gates = "".join(
                f"<li>{'PASS' if g.get('passed') else 'FAIL'} {escape(str(g.get('run')))} "
                f"{escape(str(g.get('gate')))}: {escape(_deciding(g))}</li>" for g in self.gates
            )
            html += f"<ul>{gates}</ul>"
        return html

    def __repr__(self) -> str:
        failed = [g["gate"] + " on " + g["run"] for g in self.gates if not g["passed"]]
        seed = "" if self.seed is None else f", seed={self.seed}"
        return (f"Comparison(baseline={(self.baseline or {}).get('name')!r}, "
                f"test={self.provenance.get('test')!r}{seed}, "
                f"comparisons={len(self.comparisons)}, passed={self.passed}"
                + (f", failed={failed}" if failed else "") + ")")


#: How a gate's number stands to its threshold when the gate fails.
_FAILED = {">=": "<", ">": "<=", "<": ">=", "<=": ">"}


def _deciding(gate: Mapping[str, Any]) -> str:
    """The number that decided a gate against its threshold
    (``corrected_p_value 0.2767 >= 0.05``), or why it could not be decided."""
    if gate.get("error"):
        return f"cannot be decided: {gate['error']}"
    outcome = gate.get("outcome") or {}
    if "value" not in outcome:
        return ""
    relation = outcome["relation"] if outcome.get("passed") else _FAILED.get(outcome["relation"], "")
    return f"{outcome['quantity']} {outcome['value']:.4g} {relation} {outcome['threshold']:.4g}"


def compare(
    results: Report | Mapping[str, Evaluation] | Sequence[Evaluation],
    baseline: str | None = None,
    *,
    baseline_file: str | os.PathLike[str] | None = None,
    baseline_run: str | None = None,
    gates: Sequence[str] = (),
    test: str | None = None,
    level: float | None = None,
    resamples: int | None = None,
    seed: int | None = None,
    bootstrap: str | None = None,
    correction: str | None = None,
    family: str | None = None,
    alpha: float | None = None,
    missing: str | None = None,
    groups_in_family: bool | None = None,
    interval: str | None = None,
    jackknife_groups: int | None = None,
) -> Comparison:
    """Compares runs with ``baseline`` (one of the runs, by name), or with
    ``baseline_run`` of a results file ``baseline_file`` (the CLI's
    ``--format json --per-query`` output), or, with neither, every pair of
    runs (randomized Tukey HSD); then checks ``gates``, in the CLI's
    syntax: ``"ndcg@10:at_least(0.45)"``, ``"ndcg@10:non_inferior(margin=2%)"``,
    ``"ap:superior(alpha=0.01,run=v2)"``.

    ``results`` is a :class:`Report` (``run_experiment``), or the results of
    :func:`evaluate` for several runs (``{name: Evaluation}``, or a list of
    :class:`Evaluation`): runs evaluated on the same qrels, with the same
    metrics and options, compared as ``rankeval eval --run ... --baseline``
    compares them (the same numbers, bit for bit).

    ``test`` (``t``, ``randomization``, ``bootstrap``, ``wilcoxon``,
    ``randomization_keyed``),
    ``level`` (``--confidence``), ``resamples``, ``seed``, ``bootstrap``
    (``auto``, ``multinomial``, ``double_or_nothing``), ``correction``
    (``holm``, ``bonferroni``, ``benjamini_hochberg``, ``none``), ``family``
    (``runs_x_metrics``, ``per_metric``, ``per_run``) and ``alpha`` default
    to the CLI's defaults; ``missing`` (``skip``, ``zero``: a query that
    not every run has) to the evaluation's ``missing`` (``skip`` for a
    report). For a report with groups of queries, ``groups_in_family=True``
    (``--groups-in-family``) corrects the groups' comparisons together with
    the whole runs'. ``interval="jackknife"`` (``--interval jackknife``)
    gives each difference the delete-a-group jackknife interval over
    ``jackknife_groups`` (20) groups of queries keyed by id, as a Spark
    job's ``keyed_compare``.

    Raises :class:`CompareError` when the comparison cannot be made: an
    unknown baseline or gate, fewer than two runs (without a results
    file), runs evaluated on other qrels, metrics or options; bad names of
    options raise :class:`ValueError`."""
    if isinstance(gates, str):
        gates = [gates]
    file = None if baseline_file is None else (os.fspath(baseline_file), baseline_run)
    if isinstance(results, Report):
        source: Any = results._native
    else:
        alone = baseline_file is not None or str(baseline or "").startswith("db:")
        runs = _evaluated(results, alone=alone)
        if missing is None:
            missing = runs[0][1]._basis.missing  # type: ignore[union-attr]
        source = [(name, r.metrics, r.queries, r.values) for name, r in runs]
    text, passed = _native.compare(
        source, baseline, file, list(gates), test, level, resamples, seed, correction,
        family, alpha, missing, bootstrap, groups_in_family, interval, jackknife_groups,
    )
    return Comparison(json.loads(text), passed)


def _compare_error(message: str) -> CompareError:
    """A CompareError with the attributes the native ones carry."""
    error = CompareError(message)
    error.file, error.line, error.message = None, None, message
    return error


def _evaluated(results: Any, alone: bool) -> list[tuple[str, Evaluation]]:
    """The named results of `evaluate` to compare, checked: evaluations
    made by `evaluate`, at least two (one with a results file as the
    baseline, `alone`), on the same qrels with the same metrics and
    options, as one `rankeval eval` evaluates its runs."""
    if isinstance(results, Evaluation):
        results = [results]
    if isinstance(results, Mapping):
        runs = [(str(name), value) for name, value in results.items()]
    elif isinstance(results, Sequence) and not isinstance(results, str):
        runs = [(getattr(value, "run", ""), value) for value in results]
        names = [name for name, _ in runs]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise _compare_error(
                f"several results are named {', '.join(f'`{n}`' for n in twice)}: "
                "give a dict {name: result} to name them"
            )
    else:
        raise TypeError(
            "compare: expected a Report, a dict {name: Evaluation} or a list of Evaluation "
            f"(results of evaluate), found {type(results).__name__}"
        )
    for name, value in runs:
        if not isinstance(value, Evaluation):
            raise TypeError(f"compare: run `{name}` is a {type(value).__name__}, not an Evaluation")
        if value._basis is None:
            raise _compare_error(
                f"run `{name}` was not evaluated by evaluate(): compare the Report it belongs to"
            )
    if len(runs) < (1 if alone else 2):
        raise _compare_error(
            f"compare needs at least two runs evaluated on the same qrels, got {len(runs)}"
            " (or one run and a baseline_file)"
        )
    first_name, first = runs[0]
    basis = first._basis
    assert basis is not None
    for name, value in runs[1:]:
        other = value._basis
        assert other is not None
        if not judgements(other).same_judgements(judgements(basis)):
            raise _compare_error(
                f"run `{name}` was evaluated on other qrels than run `{first_name}`: "
                "compare runs evaluated on the same qrels"
            )
        for option in ("missing", "rel", "ties", "score_threshold"):
            if getattr(other, option) != getattr(basis, option):
                raise _compare_error(
                    f"run `{name}` was evaluated with {option}={getattr(other, option)!r}, run "
                    f"`{first_name}` with {option}={getattr(basis, option)!r}: compare runs "
                    "evaluated with the same options"
                )
        if value.metrics != first.metrics:
            raise _compare_error(
                f"run `{name}` was evaluated with the metrics {value.metrics}, run `{first_name}` "
                f"with {first.metrics}: compare runs evaluated with the same metrics"
            )
    return runs


class Suite:
    """A suite of datasets (:func:`run_suite`): each experiment's
    :class:`Report`, and the runs' macro averages over the datasets.

    - ``experiments``: ``{file: Report}``, in the order given;
    - ``macro``: the CLI's ``--aggregate macro`` JSON object, parsed:
      ``datasets``, ``metrics``, ``runs`` (each with its ``means`` per
      dataset and ``macro_means``: ``value``, ``interval``,
      ``standard_error``), ``comparisons`` with the baseline (``result``:
      ``difference`` with its interval, ``p_value``), ``settings``;
    - ``means``: ``{run: {metric: macro average}}``.
    """

    def __init__(self, experiments: dict[str, Report], macro: dict[str, Any]):
        self.experiments = experiments
        self.macro = macro
        self.means: dict[str, dict[str, float]] = {
            run["name"]: {
                metric: (float("nan") if m is None else m["value"])
                for metric, m in zip(macro["metrics"], run["macro_means"])
            }
            for run in macro["runs"]
        }

    def __repr__(self) -> str:
        return f"Suite(datasets={list(self.experiments)}, runs={list(self.means)})"


def run_suite(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *,
              aggregate: str = "macro",
              baseline: str | None = None, level: float = 0.95, resamples: int = 10000,
              seed: int = 42) -> Suite:
    """Runs every experiment file of a suite of datasets, as ``rankeval run
    a.toml b.toml ... --aggregate macro`` does: each run's macro average over
    the datasets (each weighs the same, the BEIR convention) with its
    stratified bootstrap interval (``resamples`` resamples of each dataset's
    queries, drawn with ``seed``), and, with a ``baseline`` run, every other
    run compared with it across the suite, paired by (dataset, query).

    ``paths`` may also be one suite file (``experiments = [...]``, as
    ``rankeval run suite.toml`` takes it).

    Raises :class:`CompareError` when the datasets' metrics or runs differ
    (naming them) or fewer than two files are given, and
    :class:`ConfigError` for a bad suite file."""
    if aggregate != "macro":
        raise ValueError(f"aggregate={aggregate!r}: the suite's aggregate is \"macro\"")
    if isinstance(paths, (str, os.PathLike)):
        listed = _native.load_suite(paths)
        if listed is None:
            raise ValueError(f"{os.fspath(paths)}: not a suite file (it has no `experiments` key); "
                             "pass a list of experiment files")
        paths = listed[0]
    names = [os.fspath(p) for p in paths]
    reports = [run_experiment(p) for p in names]
    macro = json.loads(_native.macro_suite([r._native for r in reports], names, baseline,
                                           level, resamples, seed))
    return Suite(dict(zip(names, reports)), macro)
