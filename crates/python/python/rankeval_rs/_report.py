"""TOML experiments and comparisons: :func:`run_experiment` runs an
experiment file as ``rankeval run`` does and returns a :class:`Report`;
:func:`compare` compares its runs with a baseline and checks gates. Every
number comes from the native engine and the runner's comparison API."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _native
from ._evaluation import Evaluation, RankevalWarning


class RunReport(Evaluation):
    """One run of a :class:`Report`: an :class:`Evaluation` (``means`` holds
    the ``mean`` aggregate when the experiment asks for it) with every
    aggregate and the corpus metrics.

    - ``aggregates``: ``{metric: {aggregator: value}}``;
    - ``corpus``: ``{corpus metric: value}`` (one value for the whole run).
    """

    __slots__ = ("aggregates", "corpus")

    def __init__(self, run: str, metrics: list[str], queries: list[str], values: np.ndarray,
                 aggregators: list[str], aggregates: np.ndarray, corpus: dict[str, float],
                 warnings: list[str]):
        self.aggregates = {
            metric: dict(zip(aggregators, (float(v) for v in aggregates[index])))
            for index, metric in enumerate(metrics)
        }
        means = [self.aggregates[m]["mean"] for m in metrics] if "mean" in aggregators else []
        super().__init__(run, metrics, queries, values, means, warnings)
        self.corpus = corpus


class Report:
    """The results of an experiment, as ``rankeval run`` reports them.

    - ``metrics``, ``aggregators``, ``corpus``: canonical names, in report order;
    - ``runs``: ``{name: RunReport}``, in the experiment's order;
    - ``warnings``: the warnings, as the CLI prints them (also issued as
      :class:`RankevalWarning`).
    """

    def __init__(self, native: Any):
        self._native = native
        self.metrics: list[str] = list(native.metrics)
        self.aggregators: list[str] = list(native.aggregators)
        self.corpus: list[str] = list(native.corpus)
        self.warnings: list[str] = list(native.warnings)
        self.runs: dict[str, RunReport] = {}
        for name, queries, values, aggregates, corpus in native.runs():
            prefix = f"run `{name}`: "
            own = [w for w in self.warnings if w.startswith(prefix)]
            self.runs[name] = RunReport(name, self.metrics, queries, values, self.aggregators,
                                        aggregates, dict(zip(self.corpus, corpus)), own)

    def render(self, format: str = "table", *, per_query: bool = False) -> str:
        """The report as the CLI prints it with ``--format`` (``table``,
        ``json``, ``csv``, ``markdown``, ``trec``, ``html``) and ``--per-query``."""
        return str(self._native.render(format, per_query))

    def to_dict(self, *, per_query: bool = True) -> dict[str, Any]:
        """The CLI's JSON report (``--format json``), parsed."""
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

    def cell(self, run: str, metric: str) -> dict[str, Any]:
        """The comparison of ``run`` on ``metric``."""
        for cell in self.comparisons:
            if cell["run"] == run and cell["metric"] == metric:
                return cell
        raise KeyError(f"no comparison of run {run!r} on {metric!r}")

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(self._document))  # a copy

    def __repr__(self) -> str:
        failed = [g["gate"] + " on " + g["run"] for g in self.gates if not g["passed"]]
        return (f"Comparison(baseline={(self.baseline or {}).get('name')!r}, "
                f"comparisons={len(self.comparisons)}, passed={self.passed}"
                + (f", failed={failed}" if failed else "") + ")")


def compare(
    report: Report,
    baseline: str | None = None,
    *,
    baseline_file: str | os.PathLike[str] | None = None,
    baseline_run: str | None = None,
    gates: Sequence[str] = (),
    test: str | None = None,
    level: float | None = None,
    resamples: int | None = None,
    seed: int | None = None,
    correction: str | None = None,
    family: str | None = None,
    alpha: float | None = None,
    missing: str | None = None,
) -> Comparison:
    """Compares the runs of ``report`` with ``baseline`` (one of its runs,
    by name), or with ``baseline_run`` of a results file ``baseline_file``
    (the CLI's ``--format json --per-query`` output), or, with neither,
    every pair of runs (randomized Tukey HSD); then checks ``gates``, in
    the CLI's syntax: ``"ndcg@10:at_least(0.45)"``,
    ``"ndcg@10:non_inferior(margin=2%)"``, ``"ap:superior(alpha=0.01,run=v2)"``.

    ``test`` (``t``, ``randomization``, ``bootstrap``, ``wilcoxon``),
    ``level``, ``resamples``, ``seed``, ``correction`` (``holm``,
    ``bonferroni``, ``benjamini_hochberg``, ``none``), ``family``
    (``runs_x_metrics``, ``per_metric``, ``per_run``), ``alpha`` and
    ``missing`` (``skip``, ``zero``) default to the CLI's defaults.

    Raises :class:`CompareError` when the comparison cannot be made."""
    if isinstance(gates, str):
        gates = [gates]
    file = None if baseline_file is None else (os.fspath(baseline_file), baseline_run)
    text, passed = _native.compare(
        report._native, baseline, file, list(gates), test, level, resamples, seed, correction,
        family, alpha, missing,
    )
    return Comparison(json.loads(text), passed)
