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


def test_total_order_keys_sort_as_the_cli_sorts_and_read_back():
    """The keys of the radix median: their order is IEEE total order
    (-0.0 before 0.0, subnormals and infinities in place), every NaN and
    null the largest key; each key reads back as its value."""
    import math
    import struct

    import numpy as np
    import pyarrow as pa

    values = [math.inf, 0.5, -0.0, 0.0, -math.inf, 5e-324, -5e-324, -2.5, 1e308, math.nan, None, 0.1]
    keys = [int(k) for k in rs._total_order_keys(pa.array(values, type=pa.float64()))]
    assert keys[9] == keys[10] == (1 << 64) - 1
    finite = [v for v in values if v is not None and not math.isnan(v)]
    order = sorted(range(len(values)), key=lambda i: keys[i])
    by_key = [values[i] for i in order if values[i] is not None and not math.isnan(values[i])]

    def total_order(v: float) -> int:
        # IEEE 754 totalOrder as Rust's f64::total_cmp computes it.
        i = struct.unpack("<q", struct.pack("<d", v))[0]
        return i ^ ((i >> 63) & 0x7FFF_FFFF_FFFF_FFFF)

    by_total_order = sorted(finite, key=total_order)
    assert [struct.pack("<d", v) for v in by_key] == [struct.pack("<d", v) for v in by_total_order]
    assert by_key[:3] == [-math.inf, -2.5, -5e-324] and by_key[-1] == math.inf
    assert math.copysign(1, by_key[3]) == -1 and math.copysign(1, by_key[4]) == 1  # -0.0, then 0.0
    for key, value in zip(keys, values):
        back = rs._value_of_key(key)
        if value is None or math.isnan(value):
            assert math.isnan(back)
        else:
            assert struct.pack("<d", back) == struct.pack("<d", value)
    assert np.all(np.diff(np.sort(np.array(keys, dtype=np.uint64))) >= 0)
