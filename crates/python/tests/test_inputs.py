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


def test_mixed_int_and_str_objects_fall_back_to_numpy(tmp_path):
    # pyarrow cannot convert a column of both ints and strs: read element-wise.
    qrels = pd.DataFrame({"user": [1, "b"], "item": ["x", 2], "grade": [1, 1]}, dtype=object)
    run = pd.DataFrame({"user": [1, "b", "b"], "item": ["x", 2, "y"], "score": [1.0, 0.5, 0.9]})
    result = rankeval_rs.evaluate(qrels.astype({"grade": int}), run, ["rr"])
    assert result.queries == ["1", "b"] and result.means == {"rr": 0.75}


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


def arrow_tables(data, ids):
    """The seeded data as pyarrow tables with ids of the Arrow type `ids`
    (`int64` ids are the data's numbers without their q/d prefix)."""
    def column(values):
        if ids == "int64":
            return pa.array([int(v[1:]) if v[1:].isdigit() else 10**6 for v in values], pa.int64())
        if ids == "dictionary":
            return pa.array(values, pa.string()).dictionary_encode()
        return pa.array(values, getattr(pa, ids)())
    q, d, g = zip(*data.qrels)
    rq, rd, rs = zip(*data.run)
    qrels = pa.table({"user": column(q), "item": column(d), "grade": pa.array(g, pa.int64())})
    run = pa.table({"user": column(rq), "item": column(rd), "score": pa.array(rs, pa.float64())})
    return qrels, run


def reference_of(tables):
    """The same tables' rows as dicts of dicts (ids as text)."""
    qrels, run = (t.to_pylist() for t in tables)
    return rankeval_rs.evaluate(_dict_of(qrels, "grade"), _dict_of(run, "score"), SPECS)


def _dict_of(rows, value):
    out: dict = {}
    for row in rows:
        out.setdefault(str(row["user"]), {})[str(row["item"])] = row[value]
    return out


@pytest.mark.parametrize("ids", ["string", "large_string", "string_view", "int64", "dictionary"])
def test_arrow_tables_of_every_id_type(files, data, ids):
    qrels, run = arrow_tables(data, ids)
    result = rankeval_rs.evaluate(qrels, run, SPECS)
    if ids == "int64":
        # Integer ids are their decimal text, as in a file.
        assert result.queries == sorted(result.queries)
        assert_equal(result, reference_of((qrels, run)))
    else:
        assert_equal(result, reference(files))


def test_arrow_record_batches_streams_and_chunks(files, data):
    qrels, run = arrow_tables(data, "string")
    expected = reference(files)
    # One record batch (__arrow_c_array__), a stream of small batches
    # (__arrow_c_stream__), a table of many chunks.
    assert_equal(rankeval_rs.evaluate(qrels.to_batches()[0], run.combine_chunks().to_batches()[0], SPECS), expected)
    reader = pa.RecordBatchReader.from_batches(run.schema, run.to_batches(max_chunksize=7))
    assert_equal(rankeval_rs.evaluate(qrels, reader, SPECS), expected)
    chunked = pa.Table.from_batches(run.to_batches(max_chunksize=13))
    assert chunked.column("user").num_chunks > 1
    assert_equal(rankeval_rs.evaluate(qrels, chunked, SPECS), expected)


def test_arrow_list_columns_as_recommenders_write_them(files, data):
    ranked = data.ranked()
    lists = pa.table({"user": list(ranked), "items": list(ranked.values())})
    qrels, _ = arrow_tables(data, "string")
    assert_equal(rankeval_rs.evaluate(qrels, lists, SPECS), reference(files))


def test_arrow_errors_name_the_row_and_column(files):
    run = pa.table({"user": ["q1", "q1", None], "item": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
    with pytest.raises(rankeval_rs.InputError) as raised:
        rankeval_rs.evaluate(files.qrels_trec, run, "ap")
    assert (raised.value.file, raised.value.line) == ("run table", 3)
    assert raised.value.message == "row 3, column `user`: the value is null"
    with pytest.raises(rankeval_rs.InputError, match="no column `score` .* or `rank`"):
        rankeval_rs.evaluate(files.qrels_trec, run.drop_columns(["score"]), "ap")
    with pytest.raises(rankeval_rs.InputError, match="no column `qid`"):
        rankeval_rs.evaluate(files.qrels_trec, run, "ap", query="qid")
    repeated = pa.table({"user": ["q1", "q1"], "item": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(rankeval_rs.InputError, match='pass duplicates="first"') as raised:
        rankeval_rs.evaluate(files.qrels_trec, repeated, "ap")
    assert raised.value.line == 2
    assert rankeval_rs.evaluate(files.qrels_trec, repeated, "ap", duplicates="first").queries == ["q1"]
    with pytest.raises(rankeval_rs.InputError, match="has no rows|no rows|empty"):
        rankeval_rs.evaluate(files.qrels_trec, repeated.slice(0, 0), "ap")


def test_parquet_and_arrow_files_with_column_names(files, data, tmp_path):
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    qrels, run = arrow_tables(data, "string")
    qrels = qrels.rename_columns(["qid", "docno", "label"])
    run = run.rename_columns(["qid", "docno", "sim"])
    pq.write_table(qrels, tmp_path / "qrels.parquet")
    feather.write_feather(run, tmp_path / "run.bin")
    names = dict(query="qid", doc="docno", grade="label", score="sim")
    with pytest.raises(rankeval_rs.InputError):  # `.bin` is read as TREC without format=
        rankeval_rs.evaluate(tmp_path / "qrels.parquet", tmp_path / "run.bin", SPECS, **names)
    qrels_file = rankeval_rs.qrels(tmp_path / "qrels.parquet", query="qid", doc="docno", grade="label")
    result = rankeval_rs.evaluate(qrels_file, rankeval_rs.run(tmp_path / "run.bin", format="arrow", query="qid",
                                                              doc="docno", score="sim"), SPECS)
    assert_equal(result, reference(files))


def test_polars_dataframes(files, data):
    pl = pytest.importorskip("polars", reason="polars is not installed (pip install polars)")
    qrels, run = frames(data)
    qrels, run = pl.from_pandas(qrels), pl.from_pandas(run)
    assert run.schema["user"] in (pl.String, pl.Utf8)
    assert_equal(rankeval_rs.evaluate(qrels, run, SPECS), reference(files))
    cats = run.with_columns(pl.col("user").cast(pl.Categorical))
    assert_equal(rankeval_rs.evaluate(qrels, cats, SPECS), reference(files))


def _chunked_polars(pl, frame, pieces: int):
    """`frame` (pandas) as a polars DataFrame in `pieces` chunks, as polars'
    readers (`read_csv`, `scan_*().collect()`) make them; ids are
    `string_view` in Arrow."""
    rows = len(frame)
    cuts = [rows * i // pieces for i in range(pieces + 1)]
    chunked = pl.concat([pl.from_pandas(frame.iloc[a:b]) for a, b in zip(cuts, cuts[1:])], rechunk=False)
    assert chunked.n_chunks("all") == [pieces] * len(frame.columns)
    return chunked


def test_polars_string_views_in_chunks_read_as_pyarrow_tables_and_stay_as_they_are(files, data):
    pl = pytest.importorskip("polars", reason="polars is not installed (pip install polars)")
    qrels, run = frames(data)
    qrels, run = _chunked_polars(pl, qrels, 3), _chunked_polars(pl, run, 4)
    expected = reference(files)
    assert_equal(rankeval_rs.evaluate(qrels, run, SPECS), expected)
    # What the polars path must match: the same frames as pyarrow tables,
    # `large_string` (`.to_arrow()`) and `string_view`.
    for compat in [pl.CompatLevel.oldest(), pl.CompatLevel.newest()]:
        tables = qrels.to_arrow(compat_level=compat), run.to_arrow(compat_level=compat)
        assert_equal(rankeval_rs.evaluate(*tables, SPECS), expected)
    assert pa.types.is_string_view(run.to_arrow(compat_level=pl.CompatLevel.newest()).schema.field("user").type)
    # Each column is read in its chunks, where it is: the frames are not
    # made one chunk each (polars' own `DataFrame.__arrow_c_stream__` does
    # that, in place: a copy of the whole frame on every first read).
    assert_equal(rankeval_rs.evaluate(rankeval_rs.qrels(qrels), rankeval_rs.run(run), SPECS), expected)
    assert qrels.n_chunks("all") == [3, 3, 3]
    assert run.n_chunks("all") == [4, 4, 4]
    # Columns the reader does not need are not read; a misaligned one
    # (chunked otherwise) does not cut the batches of the others.
    extra = pl.concat([pl.Series("note", ["x"] * 5), pl.Series("note", ["y"] * (len(run) - 5))], rechunk=False)
    wider = run.with_columns(extra, pl.lit(1).alias("one"))
    assert_equal(rankeval_rs.evaluate(qrels, wider, SPECS), expected)
    assert run.n_chunks("all") == [4, 4, 4]


def test_polars_errors_and_warnings_name_the_frame_columns(data):
    pl = pytest.importorskip("polars", reason="polars is not installed (pip install polars)")
    qrels, run = frames(data)
    run = _chunked_polars(pl, run.assign(extra=1), 2)
    with pytest.raises(rankeval_rs.InputError, match=r"no column `qid` \(columns: user .*item .*score .*extra"):
        rankeval_rs.run(run, query="qid")
    ungraded = _chunked_polars(pl, qrels.assign(label=0).drop(columns="grade"), 2)
    with pytest.warns(rankeval_rs.RankevalWarning, match=r"no `grade` column \(columns: user, item, label\)"):
        rankeval_rs.evaluate(ungraded, run, ["ap"])


def test_duckdb_results(files, data):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install duckdb)")
    connection = duckdb.connect()
    connection.execute(f"CREATE TABLE qrels AS SELECT * FROM read_csv('{files.qrels_csv}', header=true)")
    connection.execute(f"CREATE TABLE run AS SELECT * FROM read_csv('{files.run_csv}', header=true)")
    qrels = connection.sql("SELECT user AS qid, item AS docno, grade FROM qrels")
    run = connection.sql("SELECT user AS qid, item AS docno, score FROM run")
    result = rankeval_rs.evaluate(qrels, run, SPECS, query="qid", doc="docno")
    assert_equal(result, reference(files))


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


@pytest.mark.parametrize(
    "options,cli_options", [({}, []), ({"missing": "zero"}, ["--missing", "zero"]), ({"rel": 2}, ["--rel", "2"])]
)
@pytest.mark.parametrize("order", ["grouped", "batches of 7 rows", "shuffled"])
def test_a_table_equals_the_cli_for_every_metric_grouped_or_not(files, data, options, cli_options, order,
                                                                tmp_path):
    # evaluate() reads a table grouped by query while scoring it, query by
    # query (batches in parallel, a query across batches joined); any other
    # table is read whole first. Either gives the CLI's numbers.
    from test_cli_parity import (TRAIN_INSTANCES, all_specs, assert_same, doc_groups_of,
                                 label_counts_of, subtopics_of)

    from conftest import cli_json

    subtopics = subtopics_of(files.qrels_trec, tmp_path)
    counts = label_counts_of(files.qrels_trec, tmp_path)
    groups = doc_groups_of(files.qrels_trec, tmp_path)
    propensities = {"label_counts": counts, "train_instances": TRAIN_INSTANCES,
                    "doc_groups": groups}
    _, run = arrow_tables(data, "string")
    if order == "batches of 7 rows":
        run = pa.Table.from_batches(run.to_batches(max_chunksize=7))
    elif order == "shuffled":
        run = run.take(np.random.Generator(np.random.PCG64(7)).permutation(run.num_rows))
    specs = all_specs()
    report = cli_json(files.qrels_trec, files.run_trec, specs, *cli_options,
                      "--subtopic-qrels", str(subtopics), "--label-counts", str(counts),
                      "--train-instances", str(TRAIN_INSTANCES), "--doc-groups", str(groups))
    assert_same(rankeval_rs.evaluate(files.qrels_trec, run, specs, **options,
                                     subtopic_qrels=subtopics, **propensities), report)
    assert_same(rankeval_rs.evaluate(files.qrels_trec, run.to_pandas(), specs, **options,
                                     subtopic_qrels=subtopics, **propensities), report)


@pytest.mark.parametrize("chunk", [5, 1000])
def test_repeats_in_a_table_are_kept_best_first_or_refused_as_the_cli_does(files, data, tmp_path, chunk):
    from test_cli_parity import assert_same

    from conftest import cli_json

    rows = list(data.run)
    # q0's first document again, later in its list and ranked higher: the
    # best-ranked occurrence is kept. q1's second document again, lower.
    first_q0, first_q1 = rows[0], next(r for r in rows if r[0] == "q1")
    i0 = max(i for i, r in enumerate(rows) if r[0] == "q0")
    rows.insert(i0 + 1, ("q0", first_q0[1], first_q0[2] + 10))
    second_q1 = [r for r in rows if r[0] == "q1"][1]
    i1 = max(i for i, r in enumerate(rows) if r[0] == "q1")
    rows.insert(i1 + 1, ("q1", second_q1[1], second_q1[2] - 10))
    path = tmp_path / "repeats.trec"
    path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} t\n" for i, (q, d, s) in enumerate(rows)))
    q, d, s = zip(*rows)
    table = pa.Table.from_batches(
        pa.table({"user": q, "item": d, "score": pa.array(s, pa.float64())}).to_batches(max_chunksize=chunk)
    )
    report = cli_json(files.qrels_trec, path, SPECS, "--duplicates", "first")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rankeval_rs.evaluate(files.qrels_trec, table, SPECS, duplicates="first")
    assert_same(result, report)
    assert any("2 entries of the run repeated a document" in str(w.message) for w in caught)
    with pytest.raises(rankeval_rs.InputError) as raised:
        rankeval_rs.evaluate(files.qrels_trec, table, SPECS)
    # The same row as the run converted whole names.
    with pytest.raises(rankeval_rs.InputError) as whole:
        rankeval_rs.evaluate(files.qrels_trec, rankeval_rs.run(table), SPECS)
    assert (raised.value.line, str(raised.value)) == (whole.value.line, str(whole.value))
    assert raised.value.line == i0 + 2 and f"first on row 1)" in str(raised.value)


@pytest.mark.parametrize("ties", ["docid", "input", "average"])
def test_a_table_read_while_evaluated_orders_ties_as_the_file_does(files, data, ties):
    specs = [s for s in SPECS if s not in ("bpref", "err@10")]  # these refuse ties="average"
    _, run = arrow_tables(data, "string")
    expected = rankeval_rs.evaluate(files.qrels_trec, files.run_trec, specs, ties=ties)
    assert_equal(rankeval_rs.evaluate(files.qrels_trec, run, specs, ties=ties), expected)
    batches = pa.Table.from_batches(run.to_batches(max_chunksize=7))
    assert_equal(rankeval_rs.evaluate(files.qrels_trec, batches, specs, ties=ties), expected)
