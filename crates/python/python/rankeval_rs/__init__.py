"""rankeval_rs: ranking evaluation from Python, computed by rankeval's Rust
engine (the numbers of the ``rankeval`` command, bit for bit).

>>> import rankeval_rs
>>> result = rankeval_rs.evaluate("qrels.txt", "run.trec", ["ndcg@10", "ap"])  # doctest: +SKIP
>>> result.means, result.to_dict()  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from . import _native
from ._evaluation import (
    DEFAULT_METRICS,
    Evaluation,
    Evaluations,
    Interval,
    Means,
    RankevalWarning,
    evaluate,
    report,
)
from ._inputs import to_qrels, to_run
from ._ope import OpeReport, ope
from ._report import Comparison, Report, RunReport, Suite, compare, run_experiment, run_suite
from ._native import (
    CompareError,
    ConfigError,
    InputError,
    MetricError,
    Qrels,
    RankevalError,
    Run,
    python_metrics,
    register_metric,
    unregister_metric,
)

#: The package's version: the workspace's, as ``rankeval --version`` prints it.
__version__: str = _native.__version__

__all__ = [
    "__version__",
    "Comparison",
    "CompareError",
    "ConfigError",
    "DEFAULT_METRICS",
    "Evaluation",
    "Evaluations",
    "InputError",
    "Interval",
    "Means",
    "MetricError",
    "OpeReport",
    "Qrels",
    "RankevalError",
    "RankevalWarning",
    "Report",
    "Run",
    "RunReport",
    "Suite",
    "compare",
    "evaluate",
    "metric_names",
    "ope",
    "python_metrics",
    "qrels",
    "register_metric",
    "report",
    "run",
    "run_experiment",
    "run_suite",
    "unregister_metric",
]


def qrels(data: Any, *, query: str = "user", doc: str = "item", grade: str = "grade",
          format: str | None = None, delimiter: str | None = None) -> Qrels:
    """Reads qrels once, to evaluate many runs against them (see :func:`evaluate`
    for what ``data`` may be)."""
    return to_qrels(data, query=query, doc=doc, grade=grade, format=format, delimiter=delimiter)


def run(data: Any, *, query: str = "user", doc: str = "item", score: str = "score",
        rank: str = "rank", format: str | None = None, delimiter: str | None = None,
        duplicates: str = "error", ties: str = "docid") -> Run:
    """Converts a run once (a file is read when evaluated, as the CLI does).
    Tied scores of Python data are ordered as ``ties`` says: by document id
    (``"docid"`` or ``"average"``) or as given (``"input"``); evaluate it
    with a ``ties`` that orders them the same way."""
    return to_run(data, query=query, doc=doc, score=score, rank=rank, format=format,
                  delimiter=delimiter, duplicates=duplicates, ties=ties)


def metric_names() -> list[str]:
    """The built-in metrics' names, sorted (as ``rankeval metrics`` lists them),
    then the registered Python metrics."""
    return list(_native.metric_names()) + list(python_metrics())
