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
