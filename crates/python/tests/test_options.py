"""The command line's `--ties` and `--score-threshold` as evaluate()'s
`ties=` and `score_threshold=`: the same names, defaults, numbers (bit for
bit against the CLI on the same files) and messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankeval_rs

from conftest import Data, Files, cli, cli_json
from test_cli_parity import assert_same

SPECS = ["ap", "ndcg@10", "p@5", "rr", "recall@10", "ndcg"]


def evaluated(qrels, run, metrics=SPECS, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankeval_rs.RankevalWarning)
        return rankeval_rs.evaluate(qrels, run, metrics, **options)


def cli_usage_error(*args: str) -> str:
    """The reason of a usage error (exit code 2), after the flag and value."""
    done = cli(*args)
    assert done.returncode == 2, done.stderr
    return done.stderr.strip()


@pytest.mark.parametrize("ties", ["docid", "input", "average"])
@pytest.mark.parametrize("run", ["run_trec", "run_csv"])
def test_ties_equal_the_cli(files: Files, ties, run):
    path = getattr(files, run)
    report = cli_json(files.qrels_trec, path, SPECS, "--ties", ties)
    assert_same(evaluated(files.qrels_trec, path, ties=ties), report)


def test_ties_change_the_values_as_the_cli_says(files: Files):
    by_doc = evaluated(files.qrels_trec, files.run_trec)
    assert np.array_equal(by_doc.values, evaluated(files.qrels_trec, files.run_trec, ties="docid").values)
    as_given = evaluated(files.qrels_trec, files.run_trec, ties="input")
    averaged = evaluated(files.qrels_trec, files.run_trec, ties="average")
    # The seeded run has tied scores: each treatment gives other values.
    assert not np.array_equal(by_doc.values, as_given.values)
    assert not np.array_equal(by_doc.values, averaged.values)


def test_ties_of_python_data_follow_the_order_given(files: Files, data: Data):
    """A dict keeps its order, a DataFrame its rows: with ties="input" they
    give the values of the TREC file whose lines are in that order."""
    import pandas as pd

    report = cli_json(files.qrels_trec, files.run_trec, SPECS, "--ties", "input")
    scored: dict[str, dict[str, float]] = {}
    for q, d, s in data.run:
        scored.setdefault(q, {})[d] = s
    qrels = rankeval_rs.qrels(files.qrels_trec)
    assert_same(evaluated(qrels, scored, ties="input"), report)
    frame = pd.DataFrame(data.run, columns=["user", "item", "score"])
    assert_same(evaluated(qrels, frame, ties="input"), report)
    assert_same(evaluated(qrels, _arrow(frame), ties="input"), report)
    # A run converted once keeps the order it was converted with.
    converted = rankeval_rs.run(frame, ties="input")
    assert_same(evaluated(qrels, converted, ties="input"), report)
    with pytest.raises(ValueError, match='ties="docid": run `run` was converted with its tied scores in input order'):
        evaluated(qrels, converted)
    with pytest.raises(ValueError, match='convert it with ties="input"'):
        evaluated(qrels, rankeval_rs.run(frame), ties="input")
    # average does not depend on the order: a run ordered by document id serves it.
    averaged = cli_json(files.qrels_trec, files.run_trec, SPECS, "--ties", "average")
    assert_same(evaluated(qrels, rankeval_rs.run(frame), ties="average"), averaged)


def _arrow(frame):
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def test_bad_ties_raise_with_the_clis_message(files: Files):
    with pytest.raises(ValueError, match='ties="random": expected "docid", "input" or "average"'):
        evaluated(files.qrels_trec, files.run_trec, ties="random")
    # A metric without a closed form for averaged ties: the CLI's reason.
    prefix = "error: --ties average: "
    reason = cli_usage_error("eval", "--qrels", str(files.qrels_trec), "--run", str(files.run_trec),
                             "-m", "bpref", "--ties", "average")
    assert reason.startswith(prefix)
    with pytest.raises(ValueError) as raised:
        evaluated(files.qrels_trec, files.run_trec, ["bpref"], ties="average")
    assert str(raised.value) == 'ties="average": ' + reason.removeprefix(prefix).splitlines()[0]


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.0, -1.0])
def test_score_threshold_equals_the_cli(files: Files, threshold):
    report = cli_json(files.qrels_trec, files.run_trec, SPECS, f"--score-threshold={threshold}")
    result = evaluated(files.qrels_trec, files.run_trec, score_threshold=threshold)
    assert_same(result, report)
    # The same cut on Python data.
    assert_same(evaluated(files.qrels_trec, files.run_csv, score_threshold=threshold),
                cli_json(files.qrels_trec, files.run_csv, SPECS, f"--score-threshold={threshold}"))


def test_a_score_threshold_cuts_the_lists(files: Files):
    whole = evaluated(files.qrels_trec, files.run_trec)
    assert np.array_equal(whole.values, evaluated(files.qrels_trec, files.run_trec, score_threshold=None).values)
    cut = evaluated(files.qrels_trec, files.run_trec, ["p@5"], score_threshold=0.5)
    # Precision counts the entries cut as not retrieved: it can only fall.
    assert (cut.values[:, 0] <= whole.per_query("p@5").reindex(cut.queries).to_numpy()).all()
    assert cut.means["p@5"] < whole.means["p@5"]


def test_bad_score_thresholds_raise_with_the_clis_message(files: Files, tmp_path):
    prefix = "error: --score-threshold inf: "
    reason = cli_usage_error("eval", "--qrels", str(files.qrels_trec), "--run", str(files.run_trec),
                             "-m", "ap", "--score-threshold", "inf")
    assert reason.startswith(prefix)
    with pytest.raises(ValueError) as raised:
        evaluated(files.qrels_trec, files.run_trec, ["ap"], score_threshold=float("inf"))
    assert str(raised.value) == "score_threshold=inf: " + reason.removeprefix(prefix).splitlines()[0]
    # An MS MARCO run has ranks, no scores.
    run = tmp_path / "ranked.tsv"
    run.write_text("q1\td1\t1\nq1\td2\t2\n")
    prefix = "error: --score-threshold 0.5: "
    reason = cli_usage_error("eval", "--qrels", str(files.qrels_trec), "--run", str(run), "--run-format",
                             "msmarco", "-m", "ap", "--score-threshold", "0.5")
    with pytest.raises(ValueError) as raised:
        evaluated(files.qrels_trec, run, ["ap"], score_threshold=0.5, format="msmarco")
    assert str(raised.value) == "score_threshold=0.5: " + reason.removeprefix(prefix).splitlines()[0]


@pytest.mark.parametrize("rel", [0.5, 1.5, 2, 3.5])
def test_a_decimal_relevance_level_equals_the_cli(files: Files, rel):
    report = cli_json(files.qrels_trec, files.run_trec, SPECS + ["p(rel=2)@5"], f"--rel={rel}")
    assert_same(evaluated(files.qrels_trec, files.run_trec, SPECS + ["p(rel=2)@5"], rel=rel), report)


@pytest.mark.parametrize("rel", [0, -1.5, 3e9])
def test_bad_relevance_levels_raise_with_the_clis_message(files: Files, rel):
    reason = cli_usage_error("eval", "--qrels", str(files.qrels_trec), "--run", str(files.run_trec),
                             "-m", "ap", f"--rel={rel}")
    error, flag, reason = reason.splitlines()[0].split(": ", 2)
    assert (error, flag.split()[0]) == ("error", "--rel")
    with pytest.raises(ValueError) as raised:
        evaluated(files.qrels_trec, files.run_trec, ["ap"], rel=rel)
    assert str(raised.value).split(": ", 1) == [f"rel={flag.split()[1]}", reason]


def test_an_ms_marco_run_reads_as_on_the_cli(files: Files, data: Data, tmp_path):
    run = tmp_path / "ranked.tsv"
    ranked = data.ranked()
    run.write_text("".join(f"{q}\t{d}\t{i + 1}\n" for q, docs in ranked.items() for i, d in enumerate(docs)))
    report = cli_json(files.qrels_trec, run, SPECS, "--run-format", "msmarco")
    assert_same(evaluated(files.qrels_trec, run, format="msmarco"), report)


def test_ties_of_every_conversion_path_of_python_data():
    """Dicts, Arrow tables, pandas through pyarrow, and pandas columns that
    pyarrow cannot convert (ids `str` and `int` mixed, read as NumPy
    objects): tied scores as given with "input", by id otherwise."""
    import pandas as pd

    qrels = {"q": {"1": 1}}
    items, scores = ["b", 1, "a", "c"], [0.5, 0.5, 0.5, 0.1]
    frame = pd.DataFrame({"user": ["q"] * 4, "item": pd.Series(items, dtype=object), "score": scores})
    as_dict = {"q": {str(i): s for i, s in zip(items, scores)}}
    text = pd.DataFrame({"user": ["q"] * 4, "item": [str(i) for i in items], "score": scores})
    # By document id descending: b, a, 1; as given: b, 1, a; averaged: 1 is
    # first, second or third of three tied documents.
    expected = {"docid": 1 / 3, "input": 1 / 2, "average": (1 + 1 / 2 + 1 / 3) / 3}
    for ties, rr in expected.items():
        for run in (as_dict, frame, text, _arrow(text)):
            assert rankeval_rs.evaluate(qrels, run, ["rr"], ties=ties).means["rr"] == pytest.approx(rr, abs=1e-15), (
                ties, type(run).__name__)


def test_judged_only_equals_the_cli(files: Files):
    report = cli_json(files.qrels_trec, files.run_trec, SPECS, "--judged-only")
    result = evaluated(files.qrels_trec, files.run_trec, judged_only=True)
    assert_same(result, report)
    assert all("judged_only=true" in name for name in result.metrics)
    # The same on Python data.
    assert_same(evaluated(files.qrels_trec, files.run_csv, judged_only=True),
                cli_json(files.qrels_trec, files.run_csv, SPECS, "--judged-only"))


def test_judged_only_as_a_metric_parameter_equals_the_flag(files: Files):
    flag = evaluated(files.qrels_trec, files.run_trec, ["ap", "p@5"], judged_only=True)
    own = evaluated(files.qrels_trec, files.run_trec, ["ap(judged_only=true)", "p(judged_only=true)@5"])
    assert flag.metrics == own.metrics
    assert np.array_equal(flag.values, own.values)
    plain = evaluated(files.qrels_trec, files.run_trec, ["ap", "p@5"])
    assert plain.metrics == ["ap", "p@5"]


def test_bounds_equal_the_cli(files: Files):
    report = cli_json(files.qrels_trec, files.run_trec, ["p@5", "ap"], "--bounds")
    result = evaluated(files.qrels_trec, files.run_trec, ["p@5", "ap"], bounds=True)
    assert_same(result, report)
    assert result.metrics == ["p@5", "p(unjudged=nonrelevant)@5", "p(unjudged=relevant)@5",
                              "ap", "ap(unjudged=nonrelevant)", "ap(unjudged=relevant)", "unjudged"]
    # The completion judging every unjudged document relevant can only
    # raise precision.
    assert (result.per_query("p(unjudged=relevant)@5") >= result.per_query("p@5")).all()


def test_bounds_refuse_python_metrics():
    rankeval_rs.register_metric("first_grade_bounds", lambda grades, retrieved, ideal: 0.0)
    try:
        with pytest.raises(rankeval_rs.MetricError, match="Python metric"):
            evaluated({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["first_grade_bounds"], bounds=True)
    finally:
        rankeval_rs.unregister_metric("first_grade_bounds")


def test_bounds_with_judged_only_are_refused_with_the_reason(files: Files):
    # Judged-only scores have no unjudged documents to complete: before,
    # bounds=True beside judged_only=True gave no bounds and no hole rate.
    for kwargs, metrics in [({"judged_only": True}, ["p@5"]), ({}, ["p@5", "ap(judged_only=true)"])]:
        with pytest.raises(rankeval_rs.MetricError, match="scored on judged documents only"):
            evaluated(files.qrels_trec, files.run_trec, metrics, bounds=True, **kwargs)
