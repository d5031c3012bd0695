"""Every input type gives the same values: files, dicts of dicts, pandas
DataFrames (object, Arrow-backed and categorical string columns, integer
ids) and pyarrow tables."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import rankeval_rs

SPECS = ["ap", "ndcg@10", "ap(norm=truncated)@10", "p@10", "rr", "bpref", "recall@10", "err@10"]


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankeval_rs.RankevalWarning)
        yield


def frames(data):
    qrels = pd.DataFrame(data.qrels, columns=["user", "item", "grade"])
    run = pd.DataFrame(data.run, columns=["user", "item", "score"])
    return qrels, run


def dicts(data):
    qrels, run = {}, {}
    for q, d, g in data.qrels:
        qrels.setdefault(q, {})[d] = g
    for q, d, s in data.run:
        run.setdefault(q, {})[d] = s
    return qrels, run


def reference(files):
    return rankeval_rs.evaluate(files.qrels_trec, files.run_trec, SPECS)


def assert_equal(result, expected):
    assert result.metrics == expected.metrics
    assert result.queries == expected.queries
    assert np.array_equal(result.values, expected.values)
    assert result.means == expected.means


def test_dicts_of_dicts(files, data):
    assert_equal(rankeval_rs.evaluate(*dicts(data), SPECS), reference(files))


def test_ranked_lists_in_a_dict(files, data):
    qrels, _ = dicts(data)
    assert_equal(rankeval_rs.evaluate(qrels, data.ranked(), SPECS), reference(files))


@pytest.mark.parametrize("strings", ["object", "pyarrow", "category", "python"])
def test_pandas_dataframes(files, data, strings):
    qrels, run = frames(data)
    if strings == "object":
        qrels, run = qrels.astype({"user": object, "item": object}), run.astype({"user": object, "item": object})
    elif strings == "pyarrow":
        qrels, run = (f.astype({"user": "string[pyarrow]", "item": "string[pyarrow]"}) for f in (qrels, run))
    elif strings == "category":
        qrels, run = (f.astype({"user": "category", "item": "category"}) for f in (qrels, run))
    else:
        qrels, run = (f.astype({"user": "string[python]", "item": "string[python]"}) for f in (qrels, run))
    assert_equal(rankeval_rs.evaluate(qrels, run, SPECS), reference(files))


def test_pandas_slices_and_other_column_names(files, data):
    qrels, run = frames(data)
    run = pd.concat([run, run]).iloc[len(run):]  # a slice, not starting at row 0
    run = run.rename(columns={"user": "qid", "item": "docno"})
    qrels = qrels.rename(columns={"user": "qid", "item": "docno", "grade": "label"})
    result = rankeval_rs.evaluate(qrels, run, SPECS, query="qid", doc="docno", grade="label")
    assert_equal(result, reference(files))


def test_integer_ids_equal_their_decimal_text(tmp_path):
    qrels = pd.DataFrame({"user": [1, 1, 2, 10], "item": [5, 7, 5, 3], "grade": [1, 2, 1, 1]})
    run = pd.DataFrame({"user": [1, 1, 1, 2, 10, 10], "item": [5, 7, 9, 6, 3, 30], "score": [0.1, 0.9, 0.5, 1.0, 0.2, 0.2]})
    text = rankeval_rs.evaluate(qrels.astype(str).astype({"grade": int}), run.astype({"user": str, "item": str}), SPECS)
    ints = rankeval_rs.evaluate(qrels, run, SPECS)
    assert_equal(ints, text)
    assert ints.queries == ["1", "10", "2"]  # byte order of the text, as in a file


def test_pyarrow_tables(files, data):
    qrels, run = frames(data)
    assert_equal(
        rankeval_rs.evaluate(pa.Table.from_pandas(qrels), pa.Table.from_pandas(run), SPECS), reference(files)
    )
    large = pa.table({
        "user": pa.array(run["user"].tolist(), pa.large_string()),
        "item": pa.array(run["item"].tolist(), pa.string_view()),
        "score": pa.array(run["score"].to_numpy()),
    })
    chunked = pa.concat_tables([pa.Table.from_pandas(qrels[:50]), pa.Table.from_pandas(qrels[50:])])
    assert chunked.column("user").num_chunks == 2
    assert_equal(rankeval_rs.evaluate(chunked, large, SPECS), reference(files))


def test_csv_files_and_converted_inputs(files, data):
    assert_equal(rankeval_rs.evaluate(files.qrels_csv, files.run_csv, SPECS), reference(files))
    qrels = rankeval_rs.qrels(files.qrels_trec)
    run = rankeval_rs.run(frames(data)[1])
    assert qrels.num_queries == len({q for q, _, _ in data.qrels})
    assert_equal(rankeval_rs.evaluate(qrels, run, SPECS), reference(files))


def test_a_rank_column_orders_like_the_cli_csv_reader(files, data, tmp_path):
    ranked = data.ranked()
    rows = [(q, d, i + 1) for q, docs in ranked.items() for i, d in enumerate(docs)]
    path = tmp_path / "ranks.csv"
    path.write_text("user,item,rank\n" + "".join(f"{q},{d},{r}\n" for q, d, r in rows))
    frame = pd.DataFrame(rows, columns=["user", "item", "rank"])
    from_file = rankeval_rs.evaluate(files.qrels_trec, path, SPECS)
    assert_equal(rankeval_rs.evaluate(files.qrels_trec, frame, SPECS), from_file)
    assert_equal(from_file, reference(files))


def test_jsonl_run_with_its_own_judgements(tmp_path):
    path = tmp_path / "both.jsonl"
    path.write_text(
        '{"query": "u1", "predicted": ["A", "B", "C"], "relevant": {"B": 1}}\n'
        '{"query": "u2", "predicted": ["D"], "relevant": {"E": 2}}\n'
    )
    result = rankeval_rs.evaluate(None, path, ["rr", "p@2"])
    assert result.means == {"rr": 0.25, "p@2": 0.25}
    assert result.per_query()["rr"].to_dict() == {"u1": 0.5, "u2": 0.0}


def test_results_as_dataframe_and_arrow(files):
    result = reference(files)
    frame = result.per_query()
    assert list(frame.columns) == result.metrics and list(frame.index) == result.queries
    assert result.metrics[6] == "r@10"  # canonical names
    table = result.to_arrow()
    assert table.column_names == ["query", *result.metrics]
    assert np.array_equal(table.column("ndcg@10").to_numpy(), result.values[:, 1])
    assert result["ap"] == result.means["ap"]
