"""Errors are Python exceptions carrying the file, line and message of the
Rust error; bad arguments are ValueError/TypeError."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rankeval_rs
from rankeval_rs import InputError, MetricError, RankevalError

from conftest import cli


def test_a_bad_line_names_file_and_line_as_the_cli_does(files, tmp_path):
    run = tmp_path / "bad.trec"
    run.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.4 tag\nq1 Q0 d3 3 high tag\n")
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(files.qrels_trec, run, "ap")
    error = raised.value
    assert isinstance(error, RankevalError)
    assert (error.file, error.line) == (str(run), 3)
    assert error.message == "score `high` is not a number"
    done = cli("eval", "--qrels", str(files.qrels_trec), "--run", str(run), "-m", "ap")
    assert done.returncode == 2 and f"{run}:3: {error.message}" in done.stderr
    assert str(error) == f"{run}:3: {error.message}"


def test_a_bad_qrels_line_and_a_missing_file(tmp_path, files):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2\n")
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(qrels, files.run_trec, "ap")
    assert (raised.value.file, raised.value.line) == (str(qrels), 2)
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(tmp_path / "nope.txt", files.run_trec, "ap")
    assert raised.value.file == str(tmp_path / "nope.txt") and raised.value.line is None


def test_a_header_without_the_column_names_the_keyword_that_fixes_it(files, tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("qid,docno,score\nq1,d1,0.5\n")
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(files.qrels_trec, run, "ap")
    message = raised.value.message
    assert "no column `user` in the header (columns: qid, docno, score)" in message
    assert 'query="qid"' in message and "rankeval_rs.run(...)" in message
    assert "--" not in message and "TOML" not in message
    # The command line names its flag for the same file.
    done = cli("eval", "--qrels", str(files.qrels_trec), "--run", str(run), "-m", "ap")
    assert done.returncode == 2 and "--run-columns query=qid" in done.stderr
    # Named as the message says, the file is read (its one query leaves the
    # other judged queries out, with the usual warning).
    named = rankeval_rs.run(run, query="qid", doc="docno")
    with pytest.warns(rankeval_rs.RankevalWarning, match="left out"):
        rankeval_rs.evaluate(files.qrels_trec, named, "ap")


def test_a_repeated_document_names_both_places(files, tmp_path):
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(files.qrels_trec, {"q1": ["d1", "d2", "d1"]}, "ap")
    assert raised.value.line == 4  # the query is entry 1, its documents 2, 3, 4
    assert 'duplicates="first"' in raised.value.message
    run = pd.DataFrame({"user": ["q1", "q1", "q1"], "item": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]})
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(files.qrels_trec, run, "ap")
    assert (raised.value.file, raised.value.line) == ("run table", 3)


def test_bad_table_values_name_the_row(files):
    run = pd.DataFrame({"user": ["q1", "q1", "q2"], "item": ["a", "b", "c"], "score": [1.0, math.nan, 3.0]})
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(files.qrels_trec, run, "ap")
    assert raised.value.line == 2 and "NaN" in raised.value.message
    missing = pd.DataFrame({"user": ["q1", None], "item": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InputError) as raised:
        rankeval_rs.evaluate(files.qrels_trec, missing, "ap")
    assert raised.value.line == 2 and "null" in raised.value.message
    with pytest.raises(InputError, match="no column `score`"):
        rankeval_rs.evaluate(files.qrels_trec, run.drop(columns="score"), "ap")
    qrels = pd.DataFrame({"user": ["q1"], "item": ["a"], "grade": ["high"]})
    with pytest.raises(InputError, match=r"column `grade` is \w+; expected numbers"):
        rankeval_rs.evaluate(qrels, run.fillna(0), "ap")
    with pytest.raises(TypeError, match="str or int"):
        rankeval_rs.evaluate({"q1": {"d1": 1}}, {"q1": {2.5: 1.0}}, "ap")


def test_conflicting_grades_in_a_table_are_refused():
    with pytest.raises(InputError, match="judged 2 here but 1 on row 1") as raised:
        rankeval_rs.evaluate(
            pd.DataFrame({"user": ["q", "q"], "item": ["d", "d"], "grade": [1, 2]}), {"q": ["d"]}, "ap"
        )
    assert (raised.value.file, raised.value.line) == ("qrels table", 2)
    assert str(raised.value) == "qrels table: " + raised.value.message


def test_metric_errors():
    qrels, run = {"q": {"d": 1}}, {"q": ["d"]}
    with pytest.raises(MetricError, match="did you mean `ap`") as raised:
        rankeval_rs.evaluate(qrels, run, "apx")
    assert raised.value.file is None and raised.value.line is None
    with pytest.raises(MetricError, match="normalization"):
        rankeval_rs.evaluate(qrels, run, "ap(norm=sideways)")
    with pytest.raises(ValueError, match="missing"):
        rankeval_rs.evaluate(qrels, run, "ap", missing="maybe")
    with pytest.raises(ValueError, match="rel=0"):
        rankeval_rs.evaluate(qrels, run, "ap", rel=0)
    with pytest.raises(ValueError, match="duplicates"):
        rankeval_rs.evaluate(qrels, run, "ap", duplicates="last")


def test_metric_errors_are_the_clis_and_every_bad_metric_is_named(files):
    qrels, run = {"q": {"d": 1}}, {"q": ["d"]}
    for spec in ["P_10", "map_cut_100", "ap(nrom=truncated)"]:
        with pytest.raises(MetricError) as raised:
            rankeval_rs.evaluate(qrels, run, spec)
        done = cli("eval", "--qrels", str(files.qrels_trec), "--run", str(files.run_trec), "-m", spec)
        assert done.returncode == 2
        cli_message = done.stderr.removeprefix(f"error: -m {spec}: ").rstrip("\n")
        assert str(raised.value) == f"metric `{spec}`: {cli_message}"
    with pytest.raises(MetricError) as raised:
        rankeval_rs.evaluate(qrels, run, ["ndgc@10", "ap", "P_10"])
    lines = str(raised.value).splitlines()
    assert [line.split(":")[0] for line in lines] == ["metric `ndgc@10`", "metric `P_10`"]
    assert "trec_eval's name for `p@10`" in lines[1]


def test_a_run_without_qrels_needs_jsonl_judgements(files):
    with pytest.raises(InputError, match="no qrels"):
        rankeval_rs.evaluate(None, files.run_trec, "ap")


def test_a_grade_or_score_that_is_not_a_number_names_document_and_query():
    with pytest.raises(TypeError) as raised:
        rankeval_rs.evaluate({"q1": {"d1": "high"}}, {"q1": {"d1": 0.5}}, "ap")
    assert "the grade of document 'd1' in query 'q1' must be a number, found 'high'" in str(
        raised.value
    )
    with pytest.raises(TypeError) as raised:
        rankeval_rs.run({"q1": {"d1": None}})
    assert "the score of document 'd1' in query 'q1' must be a number, found None" in str(
        raised.value
    )
