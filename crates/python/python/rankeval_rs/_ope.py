"""Off-policy evaluation from Python: :func:`ope` fills the same request as
``rankeval ope``'s flags and an ``[ope]`` TOML table (docs/ope.md), and
returns the report as Python objects."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from . import _native

PathLike = str | os.PathLike[str]


class OpeReport:
    """An off-policy evaluation's report.

    - ``log``: the log's name, impressions, slate length, form, reward;
    - ``estimates``: one dict per (policy, estimator): ``policy``,
      ``estimator``, ``value``, ``standard_error``, ``lower``, ``upper``,
      ``level``, ``interval``, the diagnostics (``n``, ``ess``,
      ``max_weight``, ``support``, ``clipped``), ``refused`` (bool) and
      ``refusals`` (each a dict: ``reason`` and the numbers it compares). A refused estimate's value and interval
      are ``None`` unless ``allow_low_support=True``;
    - ``comparisons``: one dict per later policy and estimator, paired by
      impression with the first: ``candidate``, ``baseline``,
      ``estimator``, ``difference``, ``standard_error``, ``lower``,
      ``upper``, ``p_value``, ``n``, ``refused``;
    - ``gates``: one dict per gate and policy: ``gate``, ``policy``,
      ``passed`` (None when undecided), ``undecided`` (why), ``detail``;
    - ``refused``: whether any estimate is refused (``rankeval ope`` exits 2);
    - ``passed``: whether every gate passed (``rankeval ope`` exits 1 when
      one failed, 2 when one is undecided);
    - ``json``: the report as ``rankeval ope --format json`` prints it;
      ``str(report)`` is its table.
    """

    def __init__(self, json_text: str, table: str, doc: dict[str, Any] | None = None) -> None:
        self.json = json_text
        self._table = table
        if doc is None:
            doc = json.loads(json_text)
        #: One report per group of contexts (``groups=``): ``(column, value,
        #: OpeReport)``; notes say which contexts are in no group.
        self.groups: list[tuple[str, str, OpeReport]] = [
            (g["column"], g["value"], OpeReport(json.dumps(g["report"]), "", g["report"]))
            for g in doc.get("groups", [])
        ]
        self.notes: list[str] = list(doc.get("notes", []))
        self.log: dict[str, Any] = doc["log"]
        self.interval: str = doc["interval"]
        self.level: float = doc["level"]
        self.floors: dict[str, Any] = doc["floors"]
        self.allow_low_support: bool = doc["allow_low_support"]
        #: The bootstrap's resamples, seed and generator (None unless
        #: ``interval="bootstrap"``).
        self.resampling: dict[str, Any] | None = doc.get("resampling")
        #: The Plackett-Luce Monte Carlo's samples, seed and generator (None
        #: unless ``samples=`` drew a policy's marginals).
        self.sampling: dict[str, Any] | None = doc.get("sampling")
        self.estimates: list[dict[str, Any]] = [
            {
                "policy": policy["name"],
                "estimator": e["estimator"],
                "value": e["value"],
                "standard_error": e["standard_error"],
                "lower": e["interval"]["lower"],
                "upper": e["interval"]["upper"],
                "level": e["interval"]["level"],
                "interval": e["interval_kind"],
                **{k: v for k, v in e["diagnostics"].items()},
                "refused": bool(e["refusals"]),
                "refusals": list(e["refusals"]),
            }
            for policy in doc["policies"]
            for e in policy["estimates"]
        ]
        self.comparisons: list[dict[str, Any]] = [
            {
                "candidate": c["candidate"],
                "baseline": c["baseline"],
                "estimator": c["estimator"],
                "difference": c["paired"]["difference"],
                "standard_error": c["paired"]["standard_error"],
                "lower": c["paired"]["interval"]["lower"],
                "upper": c["paired"]["interval"]["upper"],
                "p_value": c["paired"]["p_value"],
                "n": c["paired"]["n"],
                "refused": c["refused"],
                "corrected_p_value": c.get("corrected_p_value"),
            }
            for c in doc["comparisons"]
        ]
        self.gates: list[dict[str, Any]] = [
            {
                "gate": g["gate"],
                "policy": g["policy"],
                "passed": None if g["outcome"] is None else g["outcome"]["passed"],
                "undecided": g["undecided"],
                "detail": None if g["outcome"] is None else g["outcome"],
            }
            for g in doc["gates"]
        ]

    @property
    def refused(self) -> bool:
        """Whether any estimate is refused."""
        return any(e["refused"] for e in self.estimates)

    @property
    def passed(self) -> bool:
        """Whether every gate passed (no gate failed, none undecided)."""
        return all(g["passed"] is True for g in self.gates)

    def to_pandas(self) -> Any:
        """The estimates as a pandas DataFrame, one row per (policy,
        estimator)."""
        import pandas as pd

        return pd.DataFrame(self.estimates)

    def comparisons_to_pandas(self) -> Any:
        """The paired comparisons as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.comparisons)

    def __str__(self) -> str:
        return self._table

    def __repr__(self) -> str:
        policies = list(dict.fromkeys(e["policy"] for e in self.estimates))
        estimators = list(dict.fromkeys(e["estimator"] for e in self.estimates))
        return f"OpeReport(policies={policies}, estimators={estimators}, refused={self.refused})"


def ope(
    log: PathLike,
    policies: Mapping[str, PathLike] | Sequence[PathLike] | PathLike | None = None,
    *,
    log_columns: Mapping[str, str] | None = None,
    form: str | None = None,
    examination: str | Sequence[float] | None = None,
    reward_per: str | None = None,
    reward_range: tuple[float, float] | None = None,
    layout: str | None = None,
    plackett_luce: float | None = None,
    target_column: str | None = None,
    reward_model: PathLike | None = None,
    estimators: Sequence[str] | str | None = None,
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
) -> OpeReport:
    """Estimates what target policies would have earned, from an impression
    log with the logging policy's propensities, as ``rankeval ope`` does
    (the same request, rules and numbers; docs/ope.md).

    ``policies``: run files whose rankings are the targets, ``{name: path}``
    (in order; the first is the baseline the others are compared with), a
    list of paths (named as ``rankeval ope --policy`` names them), or one
    path. The other keywords are ``rankeval ope``'s flags in snake case:
    ``estimators=["ips", "snips"]``, ``min_ess=50``,
    ``gates=["snips:non_inferior(margin=0.01)"]``, ``log_columns={"context":
    "user"}``, ``reward_range=(0, 1)``...

    A refused estimate does not raise: it is in the report, marked
    ``refused`` with its reasons, its value ``None`` unless
    ``allow_low_support=True``. ``groups=`` (a groups file, its query ids
    the contexts) adds a report per group of contexts (``report.groups``).
    ``samples=N`` (with ``plackett_luce=``) estimates the Plackett-Luce
    marginals from N seeded draws per impression instead of enumerating
    every ordering; ``seed=`` seeds it and the bootstrap
    (``interval="bootstrap"``) alike (``report.sampling``,
    ``report.resampling``).
    A click log (``form="examination"``: a click, 0 or 1, per position,
    and the probability that the position was examined) is estimated by
    the IPS-weighted rank metrics, ``estimators=["ips_dcg@10",
    "ips_rbp(p=0.8)", "ips_p@5"]``; ``examination="power(eta=1)"`` or
    ``examination=[1, 0.5, 0.33]`` gives the propensities per rank instead
    of a column.
    ``record="history.sqlite"`` (and ``label=``) records each policy's
    estimates in a results history, as ``rankeval ope --record`` does
    (docs/history.md), refused estimates included; the commit comes from
    the CI's variables.
    A bad value raises the error the command
    line gives (``min_ess=-1: the floor is ...``); a bad log or run,
    :class:`InputError`."""
    given = _policies(policies)
    options = _options(
        log_columns=log_columns,
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
    json_text, table = _native.ope(os.fspath(log), given, options)
    return OpeReport(json_text, table)


def _policies(
    policies: Mapping[str, PathLike] | Sequence[PathLike] | PathLike | None,
) -> list[tuple[str | None, str]]:
    """The target policies as ``(name or None, run file)``, in order: what
    :func:`ope` and ``rankeval_rs.spark.ope`` hand the request."""
    if policies is None:
        return []
    if isinstance(policies, Mapping):
        return [(str(name), os.fspath(path)) for name, path in policies.items()]
    if isinstance(policies, (str, os.PathLike)):
        return [(None, os.fspath(policies))]
    return [(None, os.fspath(path)) for path in policies]


def _options(
    *,
    log_columns: Mapping[str, str] | None,
    form: str | None,
    examination: str | Sequence[float] | None,
    reward_per: str | None,
    reward_range: tuple[float, float] | None,
    layout: str | None,
    plackett_luce: float | None,
    target_column: str | None,
    reward_model: PathLike | None,
    estimators: Sequence[str] | str | None,
    interval: str | None,
    level: float | None,
    resamples: int | None,
    samples: int | None,
    seed: int | None,
    correction: str | None,
    min_n: int | None,
    min_ess: float | None,
    min_support: float | None,
    gates: Sequence[str] | str | None,
    allow_low_support: bool | None,
    groups: PathLike | None,
    groups_in_family: bool | None,
    record: PathLike | None,
    label: str | None,
) -> dict[str, Any]:
    """The keywords of an off-policy evaluation as the native request reads
    them (``None``: not given): the one mapping of :func:`ope` and
    ``rankeval_rs.spark.ope``, whose values the one spec then checks."""
    return {
        "log_columns": None if log_columns is None else [(str(k), str(v)) for k, v in log_columns.items()],
        "form": form,
        "examination": examination if examination is None or isinstance(examination, str) else [float(p) for p in examination],
        "reward_per": reward_per,
        "reward_range": None if reward_range is None else tuple(reward_range),
        "layout": layout,
        "plackett_luce": plackett_luce,
        "target_column": target_column,
        "reward_model": None if reward_model is None else os.fspath(reward_model),
        "estimators": [estimators] if isinstance(estimators, str) else (None if estimators is None else list(estimators)),
        "interval": interval,
        "level": level,
        "resamples": resamples,
        "samples": samples,
        "seed": seed,
        "correction": correction,
        "min_n": min_n,
        "min_ess": min_ess,
        "min_support": min_support,
        "gates": [gates] if isinstance(gates, str) else (None if gates is None else list(gates)),
        "allow_low_support": allow_low_support,
        "groups": None if groups is None else os.fspath(groups),
        "groups_in_family": groups_in_family,
        "record": None if record is None else os.fspath(record),
        "label": label,
    }
