"""A run that never ran on the qrels (no shared query, or only empty lists)
is an InputError naming the run, as on the command line; allow_empty_run=True
evaluates it as before."""

from __future__ import annotations

import pytest

import rankeval_rs
from rankeval_rs import InputError

QRELS = {"301": {"a": 1, "b": 0}, "302": {"c": 2}}


def test_a_run_sharing_no_query_is_refused_under_missing_zero():
    run = {"q301": {"a": 0.9}, "q302": {"c": 0.8}}
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(QRELS, run, "ap", missing="zero", name="renamed")
    message = raised.value.message
    assert "run `renamed` never ran on these qrels" in message
    assert "`q301`" in message and "`301`" in message
    assert "allow_empty_run=True" in message and "--" not in message
    with pytest.warns(rankeval_rs.RankevalWarning):
        evaluation = rankeval_rs.evaluate(QRELS, run, "ap", missing="zero", allow_empty_run=True)
    assert evaluation.means == {"ap": 0.0}


def test_empty_lists_are_refused(tmp_path):
    run = tmp_path / "empty.jsonl"
    run.write_text('{"query": "301", "predicted": []}\n{"query": "302", "predicted": []}\n')
    with pytest.raises(InputError, match=r"its lists for the 2 judged queries it holds are all empty"):
        rankeval_rs.evaluate(QRELS, run, "ap")


def test_a_run_sharing_a_query_is_evaluated():
    with pytest.warns(rankeval_rs.RankevalWarning, match="left out"):
        evaluation = rankeval_rs.evaluate(QRELS, {"301": {"a": 0.9}}, "ap")
    assert evaluation.means == {"ap": 1.0}
