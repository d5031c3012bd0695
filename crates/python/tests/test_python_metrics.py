"""Metrics written in Python, registered by name and used in the metric
syntax next to the built-ins."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import rankeval_rs
from rankeval_rs import MetricError


@pytest.fixture(autouse=True)
def registered():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankeval_rs.RankevalWarning)
        yield
    for name in rankeval_rs.python_metrics():
        rankeval_rs.unregister_metric(name)


def precision(grades, num_relevant, ideal):
    return float(np.count_nonzero(grades >= 1)) / 10


def recall(grades, num_relevant, ideal):
    return float(np.count_nonzero(grades >= 1)) / num_relevant if num_relevant else 0.0


def test_a_python_metric_equals_the_builtin_it_reimplements(files):
    rankeval_rs.register_metric("my_p", precision)
    rankeval_rs.register_metric("my_recall", recall)
    result = rankeval_rs.evaluate(files.qrels_trec, files.run_trec, ["p@10", "my_p@10", "r@7", "my_recall@7"])
    assert result.metrics == ["p@10", "my_p@10", "r@7", "my_recall@7"]
    assert np.array_equal(result.values[:, 0], result.values[:, 1])
    assert np.array_equal(result.values[:, 2], result.values[:, 3])
    assert result.means["p@10"] == result.means["my_p@10"]
    assert "my_p" in rankeval_rs.metric_names()


def test_it_sees_grades_by_rank_the_relevant_count_and_the_ideal_grades():
    seen = []

    def record(grades, num_relevant, ideal):
        seen.append((grades.tolist(), num_relevant, ideal.tolist(), grades.dtype, ideal.dtype))
        return 0.0

    rankeval_rs.register_metric("record", record)
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "z": 3, "n": -1}}
    run = {"q": ["x", "a", "b", "c", "n", "y"]}
    rankeval_rs.evaluate(qrels, run, ["record@5"])
    rankeval_rs.evaluate(qrels, run, ["record"], rel=2)
    assert seen == [
        ([0, 2, 0, 1, -1], 3, [3, 2, 1, 0, -1], np.float64, np.float64),
        ([0, 2, 0, 1, -1, 0], 2, [3, 2, 1, 0, -1], np.float64, np.float64),
    ]


def test_an_exception_in_a_metric_is_raised_with_its_cause(files):
    def broken(grades, num_relevant, ideal):
        raise ZeroDivisionError("no luck")

    rankeval_rs.register_metric("broken", broken)
    with pytest.raises(MetricError, match="broken") as raised:
        rankeval_rs.evaluate(files.qrels_trec, files.run_trec, ["ap", "broken@3"])
    assert isinstance(raised.value.__cause__, ZeroDivisionError)
    rankeval_rs.register_metric("text", lambda g, n, i: "high")
    with pytest.raises(MetricError, match="text"):
        rankeval_rs.evaluate(files.qrels_trec, files.run_trec, ["text"])


def test_names_and_parameters_are_checked():
    with pytest.raises(ValueError, match="built-in"):
        rankeval_rs.register_metric("ndcg", precision)
    with pytest.raises(ValueError, match="built-in"):
        rankeval_rs.register_metric("mrr", precision)  # an alias
    with pytest.raises(ValueError, match="lowercase"):
        rankeval_rs.register_metric("My KPI", precision)
    with pytest.raises(ValueError, match="function"):
        rankeval_rs.register_metric("kpi", 3)
    rankeval_rs.register_metric("kpi", precision)
    with pytest.raises(MetricError, match="only a cutoff"):
        rankeval_rs.evaluate({"q": {"d": 1}}, {"q": ["d"]}, ["kpi(rel=2)@3"])
    assert rankeval_rs.unregister_metric("kpi") and not rankeval_rs.unregister_metric("kpi")
    with pytest.raises(MetricError, match="unknown metric `kpi`"):
        rankeval_rs.evaluate({"q": {"d": 1}}, {"q": ["d"]}, ["kpi"])


def test_evaluation_releases_the_gil(files):
    # A Python metric runs on the engine's worker threads, which must take
    # the GIL: this finishes only if `evaluate` released it. Meanwhile
    # another Python thread keeps running.
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    rankeval_rs.register_metric("my_p", precision)
    try:
        for _ in range(5):
            rankeval_rs.evaluate(files.qrels_trec, files.run_trec, ["my_p@10", "ndcg@10"])
    finally:
        stop.set()
        thread.join()
    assert ticks


# A metric that lets the GIL go (here by sleeping; a long function does too,
# when the interpreter switches threads), on several engine threads at
# once. Run in a child process: a deadlock there fails the test by timeout
# instead of hanging the suite.
_LETS_THE_GIL_GO = """
import sys, time
import numpy as np
import rankeval_rs

def slow(grades, num_relevant, ideal):
    time.sleep(0.0005)
    return float(np.count_nonzero(grades >= 1))

rankeval_rs.register_metric("slow", slow)
qrels = {f"q{q}": {f"d{d}": 1 for d in range(0, 20, 3)} for q in range(400)}
run = {f"q{q}": {f"d{d}": float(d % 7) for d in range(20)} for q in range(400)}
result = rankeval_rs.evaluate(qrels, run, ["slow@5", "p@5"])
assert all(result.values[:, 0] == 5 * result.values[:, 1]), result.values[:5]
print("done")
"""


def test_a_python_metric_that_lets_the_gil_go_does_not_deadlock_the_engine_threads():
    import os
    import subprocess
    import sys

    env = dict(os.environ, RAYON_NUM_THREADS="4")
    try:
        done = subprocess.run([sys.executable, "-c", _LETS_THE_GIL_GO], capture_output=True, text=True,
                              timeout=60, env=env, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("evaluating a Python metric that releases the GIL hung (deadlock between the GIL and the error lock)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
