"""rankeval_rs.spark imports without pyspark (an optional extra), and says
how to install it when it is used without it."""

from __future__ import annotations

import importlib.util

import pytest

from rankeval_rs import spark as rs


@pytest.mark.skipif(importlib.util.find_spec("pyspark") is not None, reason="pyspark is installed here")
def test_without_pyspark_the_error_says_how_to_install_it():
    with pytest.raises(ImportError, match=r'rankeval-rs\[spark\]'):
        rs.evaluate(None, None, "ap")  # type: ignore[arg-type]


def test_the_median_of_counted_values_is_the_cli_median():
    # The same rule as `median`: the middle value, or the mean of the middle two.
    assert rs._median_of_counts([(0.5, 2), (0.1, 1)]) == 0.5
    assert rs._median_of_counts([(0.9, 1), (0.1, 1), (0.5, 1), (0.2, 1)]) == (0.2 + 0.5) / 2
    assert rs._median_of_counts([]) != rs._median_of_counts([])  # NaN


def test_a_column_state_sums_logarithms_only_for_a_geometric_mean():
    import math

    import numpy as np

    from rankeval_rs import _native

    values = np.array([0.5, 0.0, 0.25])
    n, total, logs, low, high, squares = _native.column_state(values, None)
    assert (n, _native.fsum_partials([total]), logs, low, high, squares) == (3, 0.75, [], 0.0, 0.5, None)
    _, _, logs, _, _, _ = _native.column_state(values, 1e-5)
    assert _native.fsum_partials([logs]) == math.fsum(math.log(max(v, 1e-5)) for v in values)
