"""rankeval_rs.spark imports without pyspark (an optional extra), and says
how to install it when it is used without it; the aggregates its tasks and
driver compute (states updated, sent as bytes, merged and finished in Rust)
follow the command line's rules without a Spark session."""

from __future__ import annotations

import importlib.util

import pytest

from rankeval_rs import spark as rs


@pytest.mark.skipif(importlib.util.find_spec("pyspark") is not None, reason="pyspark is installed here")
def test_without_pyspark_the_error_says_how_to_install_it():
    with pytest.raises(ImportError, match=r'rankeval-rs\[spark\]'):
        rs.evaluate(None, None, "ap")  # type: ignore[arg-type]


def aggregates(values: list[float | None], aggregators: list[str], parts: int = 1) -> list[float]:
    """The aggregates of one column as the Spark API computes them: each
    part's states updated in Rust (``SparkAggregates``), sent as bytes,
    merged and finished on the driver (``spark_aggregate_values``)."""
    import pyarrow as pa

    from rankeval_rs import _native

    specs = _native.spark_aggregators(aggregators, 0.00001, 1)
    sent: list[bytes] = []
    for p in range(parts):
        states = _native.SparkAggregates(["m"], specs, ["r"])
        mine = [(f"q{i:03}", v) for i, v in enumerate(values) if i % parts == p]
        states.push(
            pa.RecordBatch.from_pydict(
                {"query": [q for q, _ in mine], "run": ["r"] * len(mine), "_m0": [v for _, v in mine]},
                schema=pa.schema([("query", pa.string()), ("run", pa.string()), ("_m0", pa.float64())]),
            )
        )
        sent += [b for _, b in states.finish()]
    (row,) = _native.spark_aggregate_values(["m"], specs, sent[::-1])
    return row


def test_the_median_of_merged_states_is_the_cli_median():
    # The same rule as `median`: the middle value, or the mean of the middle two.
    for parts in (1, 2, 3):
        assert aggregates([0.5, 0.5, 0.1], ["median"], parts) == [0.5]
        assert aggregates([0.9, 0.1, 0.5, 0.2], ["median"], parts) == [(0.2 + 0.5) / 2]
    (nothing,) = aggregates([], ["median"])
    assert nothing != nothing  # NaN


def test_merged_states_give_sums_extremes_and_the_geometric_mean():
    import math

    values = [0.5, 0.0, 0.25]
    for parts in (1, 2, 3):
        total, low, high, mean = aggregates(values, ["sum", "min", "max", "mean"], parts)
        assert (total, low, high, mean) == (0.75, 0.0, 0.5, 0.25)
        (gm,) = aggregates(values, ["gmean"], parts)
        assert math.isclose(gm, math.exp(math.fsum(math.log(max(v, 1e-5)) for v in values) / 3), rel_tol=1e-15)


def test_an_aggregator_with_an_interval_is_refused_on_spark():
    with pytest.raises(ValueError, match="on Spark, one of"):
        aggregates([0.5], ["ci"])


def test_merged_medians_sort_as_the_cli_sorts():
    """The median of merged states orders values in IEEE total order
    (-0.0 before 0.0, subnormals and infinities in place, NaN last), as
    the command line's median sorts them, and gives each value's bits."""
    import math
    import struct

    values = [math.inf, 0.5, -0.0, 0.0, -math.inf, 5e-324, -5e-324, -2.5, 1e308, math.nan, 0.1]

    def total_order(v: float) -> int:
        # IEEE 754 totalOrder as Rust's f64::total_cmp computes it.
        i = struct.unpack("<q", struct.pack("<d", v))[0]
        return i ^ ((i >> 63) & 0x7FFF_FFFF_FFFF_FFFF)

    ordered = sorted(values, key=total_order)
    assert math.isnan(ordered[-1]) and ordered[:3] == [-math.inf, -2.5, -5e-324]
    for n in range(1, len(values) + 1):
        column = values[:n]
        mine = sorted(column, key=total_order)
        want = mine[n // 2] if n % 2 else (mine[n // 2 - 1] + mine[n // 2]) / 2
        for parts in (1, 3):
            (got,) = aggregates(column, ["median"], parts)
            assert struct.pack("<d", got) == struct.pack("<d", want) or (math.isnan(got) and math.isnan(want)), (n, parts)
    # -0.0 then 0.0 in the middle: the middle value keeps its sign.
    (got,) = aggregates([-0.0, 1.0, 0.0, -1.0, -0.0], ["median"], 2)
    assert math.copysign(1, got) == -1


def test_the_spark_evaluator_checks_its_options_with_the_spec_rules():
    # The same rules and messages as `evaluate`'s keywords (rankeval::spec),
    # checked when the evaluator is built, before any Spark task.
    from rankeval_rs import _native

    def refused(specs: list[str] = ["ap"], **options: object) -> str:
        with pytest.raises(ValueError) as raised:
            _native.SparkEvaluator(specs, ["r"], **options)
        return str(raised.value)

    assert refused(rel=0.0).startswith("rel=0: the relevance level must be a positive grade")
    assert refused(rel=3e9).startswith("rel=3000000000: the relevance level is too large")
    assert refused(missing="drop") == 'missing="drop": expected "skip" or "zero"'
    assert refused(score_threshold=float("nan")).startswith("score_threshold=NaN: ")
    assert refused(["bpref"], ties="average").startswith('ties="average": ')
