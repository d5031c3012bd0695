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


def test_document_ids_written_differently_are_warned_of():
    # `7` in the run, `007` in the qrels: every metric 0, now with a word.
    qrels = {"q1": {"007": 1, "008": 0}, "q2": {"012": 1}}
    run = {"q1": {"7": 2.0, "8": 1.0}, "q2": {"12": 1.0}}
    with pytest.warns(rankeval_rs.RankevalWarning, match="written the same way") as caught:
        evaluation = rankeval_rs.evaluate(qrels, run, ["ndcg@10", "p@5"])
    assert evaluation.means == {"ndcg@10": 0.0, "p@5": 0.0}
    text = " ".join(str(w.message) for w in caught)
    assert "`7`, `8`" in text and "`007`, `008`" in text


def test_map_at_k_carries_the_command_lines_note():
    # The command line notes that map@10 is trec_eval's map_cut_10, not
    # Kaggle's MAP@10; Python said nothing.
    with pytest.warns(rankeval_rs.RankevalWarning, match="Kaggle") as caught:
        rankeval_rs.evaluate(QRELS, {"301": {"a": 0.9}, "302": {"c": 0.8}}, "MAP@10")
    assert any("ap(norm=truncated)@10" in str(w.message) for w in caught)


def test_a_repeat_in_a_long_table_of_two_models_does_not_advise_merging_them():
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"user": ["301", "301", "301", "301"], "item": ["a", "b", "b", "a"],
                        "score": [2.0, 1.0, 2.0, 1.0], "model": ["A", "A", "B", "B"]})
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(QRELS, run, "ap")
    message = raised.value.message
    assert "`model`" in message and "several runs" in message
    assert 'duplicates="first"' not in message
