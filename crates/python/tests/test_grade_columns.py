"""A grade column is never guessed in silence: one the user names and the
data lack is an InputError naming it and the columns there are (as on the
command line), whatever the input; one left at its default and absent is
grade 1 for every row with a RankevalWarning naming the columns found."""

from __future__ import annotations

import warnings

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankeval_rs
from rankeval_rs import InputError, RankevalWarning

# q1: b (grade 4) at rank 2 is the one relevant document, AP 1/2. Read with
# grade 1 for every row, a (grade 0) counts too and AP is 1.
RUN = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "score": [0.9, 0.5, 0.7]})
QRELS = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "relevance": [0, 4, 1]})


def _mixed_ids(frame: pd.DataFrame) -> pd.DataFrame:
    """The same judgements with ids pyarrow cannot convert (ints and strs in
    one column), so that the DataFrame is read without Arrow."""
    mixed = frame.astype({"docno": object})
    mixed.loc[mixed["qid"] == "q2", "docno"] = 3  # q2's document, never retrieved
    return mixed


def _inputs(tmp_path):
    csv = tmp_path / "qrels.csv"
    QRELS.to_csv(csv, index=False)
    parquet = tmp_path / "qrels.parquet"
    pq.write_table(pa.Table.from_pandas(QRELS, preserve_index=False), parquet)
    inputs = {
        "pandas": QRELS,
        "pandas-without-arrow": _mixed_ids(QRELS),
        "pyarrow": pa.Table.from_pandas(QRELS, preserve_index=False),
        "csv": csv,
        "parquet": parquet,
    }
    try:
        import polars as pl
    except ImportError:
        pass
    else:
        inputs["polars"] = pl.from_pandas(QRELS)
    return inputs


def _evaluate(qrels, **columns):
    return rankeval_rs.evaluate(qrels, RUN, ["ap"], query="qid", doc="docno", **columns)


@pytest.mark.parametrize("kind", ["pandas", "pandas-without-arrow", "pyarrow", "polars", "csv", "parquet"])
def test_a_named_grade_column_the_data_lack_is_an_error(tmp_path, kind):
    inputs = _inputs(tmp_path)
    if kind not in inputs:
        pytest.skip("polars is not installed")
    with pytest.raises(InputError) as raised:
        _evaluate(inputs[kind], grade="labl")
    message = str(raised.value)
    assert "`labl`" in message and "relevance" in message and "qid" in message, message


@pytest.mark.parametrize("kind", ["pandas", "pandas-without-arrow", "pyarrow", "polars", "csv", "parquet"])
def test_an_absent_default_grade_column_is_a_warning_and_a_named_one_is_read(tmp_path, kind):
    inputs = _inputs(tmp_path)
    if kind not in inputs:
        pytest.skip("polars is not installed")
    with pytest.warns(RankevalWarning, match=r"no `grade` column \(columns: qid, docno, relevance\)"):
        ungraded = _evaluate(inputs[kind])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        graded = _evaluate(inputs[kind], grade="relevance")
    assert graded.warnings == []
    q1 = graded.queries.index("q1")
    assert graded.values[q1][0] == 0.5
    assert ungraded.values[ungraded.queries.index("q1")][0] == 1.0
    assert any("no `grade` column" in w and w.endswith("name it with grade=)") for w in ungraded.warnings)


def test_a_named_score_column_is_not_replaced_by_ranks():
    qrels = QRELS.rename(columns={"relevance": "grade"})
    ranked = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "rank": [1, 2, 1]})
    with pytest.raises(InputError, match="`prob`"):
        rankeval_rs.evaluate(qrels, ranked, ["ap"], query="qid", doc="docno", score="prob")
    with pytest.raises(InputError, match="`prob`"):
        rankeval_rs.evaluate(qrels, pa.Table.from_pandas(ranked), ["ap"], query="qid", doc="docno", score="prob")
    # Left at its default, the score column gives way to ranks, as before.
    result = rankeval_rs.evaluate(qrels, ranked, ["ap"], query="qid", doc="docno")
    assert result.queries == ["q1", "q2"]
