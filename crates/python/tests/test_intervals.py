"""Confidence intervals of means (issue 26): Evaluation.interval and the
`ci` aggregator of experiments give the command line's bounds, which equal
scipy's t interval (within 1e-12) and scipy's BCa bootstrap (within Monte
Carlo error) on the fixtures scripts/data/compare.py stored with scipy."""

from __future__ import annotations

import json
import math
import struct

import numpy as np
import pytest

import rankeval_rs
from rankeval_rs import Evaluation, Interval, MetricError, RankevalWarning

from conftest import ROOT, cli

QUICKSTART = ROOT / "examples" / "quickstart"
FIXTURES = ROOT / "crates" / "stats" / "tests" / "data" / "intervals.json"


def scipy_cases() -> list[dict]:
    return json.loads(FIXTURES.read_text())["cases"]


def values_of(case: dict) -> list[float]:
    return [struct.unpack("<d", struct.pack("<Q", bits))[0] for bits in case["values_bits"]]


def evaluation_of(values: list[float]) -> Evaluation:
    column = np.array(values, dtype=np.float64).reshape(-1, 1)
    queries = [f"q{i}" for i in range(len(values))]
    return Evaluation("run", ["m"], queries, column, [float(np.mean(column))], [])


@pytest.mark.parametrize("case", scipy_cases(), ids=lambda c: c["name"])
def test_t_interval_is_scipys(case):
    interval = evaluation_of(values_of(case)).interval("m", level=case["level"])
    assert isinstance(interval, Interval)
    # 1e-12 absolute for bounds up to 1 (per-query values are), relative
    # beyond (2 values at level 0.999 give bounds near +-234).
    for side in ("lower", "upper"):
        want = case["t"][side]
        assert abs(getattr(interval, side) - want) <= 1e-12 * max(1.0, abs(want)), side
    assert interval.method == ("ci" if case["level"] == 0.95 else f"ci(level={case['level']})")


@pytest.mark.parametrize("case", [c for c in scipy_cases() if len(c["values_bits"]) <= 200],
                         ids=lambda c: c["name"])
def test_bca_is_scipys_within_monte_carlo_error(case):
    scipy = case["bca"]
    interval = evaluation_of(values_of(case)).interval(
        "m", level=case["level"], method="bca", resamples=scipy["resamples"], seed=42)
    assert interval.method.endswith(f"method=bca,resamples={scipy['resamples']},seed=42)")
    for side in ("lower", "upper"):
        # scipy's bounds over 40 seeds spread this much; two independent
        # draws differ by sqrt(2) of it. The floor covers a side whose
        # replications all hit the same order statistic.
        spread = max(scipy[f"{side}_sd"], scipy["standard_error"] / 100)
        assert abs(getattr(interval, side) - scipy[side]) <= 5 * math.sqrt(2) * spread, side


def test_bca_is_seeded():
    evaluation = evaluation_of([0.1, 0.5, 0.0, 0.9, 0.3, 0.3, 1.0, 0.0])
    first = evaluation.interval("m", method="bca", seed=3)
    assert first == evaluation.interval("m", method="bca", seed=3)
    assert first != evaluation.interval("m", method="bca", seed=4)
    assert first.mean == evaluation.means["m"]


def test_every_metric_at_once_and_the_clis_bounds():
    qrels = QUICKSTART / "qrels.txt"
    run = QUICKSTART / "runs" / "baseline.trec"
    evaluation = rankeval_rs.evaluate(qrels, run, ["ap", "ndcg@10"])
    intervals = evaluation.interval(level=0.9)
    assert list(intervals) == ["ap", "ndcg@10"]
    done = cli("eval", "--qrels", str(qrels), "--run", str(run), "-m", "ap", "-m", "ndcg@10",
               "-a", "ci(level=0.9)", "--format", "json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)["runs"][0]["metrics"]
    for metric, interval in intervals.items():
        assert interval.lower == shown[metric]["ci(level=0.9).lower"]
        assert interval.upper == shown[metric]["ci(level=0.9).upper"]
        assert interval.mean == evaluation.means[metric]


def test_experiment_aggregates_carry_the_bounds(tmp_path):
    experiment = tmp_path / "exp.toml"
    experiment.write_text(
        f'qrels = "{QUICKSTART / "qrels.txt"}"\nmetrics = ["ap"]\n'
        'aggregators = ["mean", "ci"]\n\n'
        f'[[runs]]\nname = "v2"\npath = "{QUICKSTART / "runs" / "v2.jsonl"}"\n')
    report = rankeval_rs.run_experiment(experiment)
    ap = report.runs["v2"].aggregates["ap"]
    assert set(ap) == {"mean", "ci", "ci.lower", "ci.upper"}
    assert ap["ci"] == ap["mean"]
    expected = rankeval_rs.evaluate(QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "v2.jsonl",
                                    "ap").interval("ap")
    assert (ap["ci.lower"], ap["ci.upper"]) == (expected.lower, expected.upper)
    assert report.to_dict(per_query=False)["runs"][0]["metrics"]["ap"]["ci.upper"] == ap["ci.upper"]


def test_one_query_gives_nan_bounds_and_a_warning():
    evaluation = evaluation_of([0.5])
    with pytest.warns(RankevalWarning, match=r"m: no interval: an interval of a mean needs at least 2 values"):
        interval = evaluation.interval("m")
    assert interval.mean == 0.5
    assert math.isnan(interval.lower) and math.isnan(interval.upper)


def test_bad_parameters_are_errors():
    evaluation = evaluation_of([0.1, 0.2, 0.4])
    with pytest.raises(MetricError, match="level must be strictly between 0 and 1"):
        evaluation.interval("m", level=95)
    with pytest.raises(MetricError, match="method"):
        evaluation.interval("m", method="normal")
    with pytest.raises(MetricError, match="need method=bca"):
        evaluation.interval("m", seed=3)
    with pytest.raises(KeyError, match="no metric 'ndcg'"):
        evaluation.interval("ndcg")
