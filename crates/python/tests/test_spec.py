"""What the command line has, from Python, through the library's one
experiment spec: keyword arguments checked by the spec's resolve (messages
naming the keyword), corpus metrics, groups from Arrow tables and polars,
runs told apart by a column, the HTML report without a TOML file, results
looked up by the name typed, and notebook tables with the test, the
warnings and the gates' deciding numbers."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import rankeval_rs
from conftest import ROOT, cli

QUICKSTART = ROOT / "examples" / "quickstart"
RECOMMENDER = ROOT / "examples" / "recommender"
CORPUS = ["ndcg@3", "catalog_coverage@3", "novelty@3", "ild@3"]


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankeval_rs.RankevalWarning)
        return call(*args, **kwargs)


def test_messages_name_the_keyword_as_the_spec_says_it():
    results = quiet(rankeval_rs.evaluate, QUICKSTART / "qrels.txt",
                    {"a": QUICKSTART / "runs" / "baseline.trec", "b": QUICKSTART / "runs" / "v2.jsonl"},
                    ["ap"])
    with pytest.raises(rankeval_rs.CompareError) as raised:
        results.compare("a", jackknife_groups=5)
    assert str(raised.value) == 'jackknife_groups=5: goes with interval="jackknife"'
    with pytest.raises(rankeval_rs.CompareError) as raised:
        results.compare("a", alpha=2.0)
    assert str(raised.value) == "alpha=2: must be in (0, 1], e.g. 0.05"
    # The spec's rule on runs, as the command line's: one file is one run.
    with pytest.raises(rankeval_rs.InputError) as raised:
        quiet(rankeval_rs.evaluate, QUICKSTART / "qrels.txt",
              {"a": QUICKSTART / "runs" / "baseline.trec", "b": QUICKSTART / "runs" / "baseline.trec"}, ["ap"])
    assert str(raised.value).startswith('run_or_runs="b": ') and "is the same file as" in str(raised.value)


def test_corpus_metrics_equal_the_clis():
    run = RECOMMENDER / "runs" / "popular.csv"
    done = cli("eval", "--qrels", str(RECOMMENDER / "truth.csv"), "--run", str(run), "--format", "json",
               "--catalog", str(RECOMMENDER / "catalog.txt"), "--train", str(RECOMMENDER / "train.csv"),
               "--item-features", str(RECOMMENDER / "item_features.csv"), *sum((["-m", m] for m in CORPUS), []))
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)["runs"][0]
    result = quiet(rankeval_rs.evaluate, RECOMMENDER / "truth.csv", run, CORPUS,
                   catalog=RECOMMENDER / "catalog.txt", train=RECOMMENDER / "train.csv",
                   item_features=RECOMMENDER / "item_features.csv")
    assert result.metrics == ["ndcg@3"]
    assert result.corpus == expected["corpus"] and len(result.corpus) == 3
    assert result.means["ndcg@3"] == expected["metrics"]["ndcg@3"]["mean"]
    # The training interactions as a table, read as qrels are.
    import pandas as pd

    train = pd.read_csv(RECOMMENDER / "train.csv")
    assert quiet(rankeval_rs.evaluate, RECOMMENDER / "truth.csv", run, ["novelty@3"],
                 train=train).corpus == {"novelty@3": expected["corpus"]["novelty@3"]}
    # A corpus metric without its input names the keyword that gives it.
    with pytest.raises(rankeval_rs.MetricError, match="give catalog="):
        quiet(rankeval_rs.evaluate, RECOMMENDER / "truth.csv", run, ["catalog_coverage@3"])


NDEVAL = ROOT / "crates" / "rankeval" / "tests" / "data" / "ndeval"
DIVERSITY = ["alpha_ndcg@20", "err_ia@20", "nnrbp", "map_ia", "strec@10", "ap"]


def test_diversity_metrics_equal_the_clis():
    subtopics, run = NDEVAL / "subtopics.txt", NDEVAL / "run.trec"
    done = cli("eval", "--subtopic-qrels", str(subtopics), "--run", str(run), "--format", "json",
               *sum((["-m", m] for m in DIVERSITY), []))
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)["runs"][0]["metrics"]
    # Without qrels: the qrels are made from the subtopic judgements.
    result = quiet(rankeval_rs.evaluate, None, run, DIVERSITY, subtopic_qrels=subtopics)
    assert result.means == {m: expected[m]["mean"] for m in DIVERSITY}
    # A diversity metric without them names the keyword that gives them.
    with pytest.raises(rankeval_rs.MetricError, match="give subtopic_qrels="):
        quiet(rankeval_rs.evaluate, QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "baseline.trec",
              ["alpha_ndcg@10"])


GROUPS = {"q1": "head", "q2": "tail", "q3": "head", "q4": "tail", "q5": "head"}


def test_groups_from_arrow_and_polars_tables():
    pa = pytest.importorskip("pyarrow")
    by_dict = quiet(rankeval_rs.evaluate, QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "baseline.trec",
                    ["ap"], groups={q: {"segment": s} for q, s in GROUPS.items()})
    table = pa.table({"query": list(GROUPS), "segment": list(GROUPS.values())})
    by_arrow = quiet(rankeval_rs.evaluate, QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "baseline.trec",
                     ["ap"], groups=table)
    assert set(by_arrow.groups["segment"]) == {"head", "tail"}
    for value in ("head", "tail"):
        assert by_arrow.groups["segment"][value].means == by_dict.groups["segment"][value].means
    pl = pytest.importorskip("polars")
    by_polars = quiet(rankeval_rs.evaluate, QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "baseline.trec",
                      ["ap"], groups=pl.DataFrame({"query": list(GROUPS), "segment": list(GROUPS.values())}))
    assert by_polars.groups["segment"]["tail"].queries == by_dict.groups["segment"]["tail"].queries


def test_runs_told_apart_by_a_column_of_one_long_table(files):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    alone = quiet(rankeval_rs.evaluate, files.qrels_trec, files.run_csv, ["ap", "p@5"])
    frame = pd.read_csv(files.run_csv)
    long = pd.concat([frame.assign(model="b"), frame.assign(model="a")])
    for table in (long, pa.Table.from_pandas(long, preserve_index=False)):
        together = quiet(rankeval_rs.evaluate, files.qrels_trec, table, ["ap", "p@5"], run="model")
        assert list(together) == ["a", "b"]
        for name in ("a", "b"):
            assert together[name].means == alone.means
    with pytest.raises(rankeval_rs.InputError, match="no column `system`"):
        rankeval_rs.evaluate(files.qrels_trec, long, ["ap"], run="system")


def test_an_html_report_without_an_experiment_file(tmp_path: Path):
    runs = {"baseline": QUICKSTART / "runs" / "baseline.trec", "v2": QUICKSTART / "runs" / "v2.jsonl"}
    out = tmp_path / "report.html"
    page = quiet(rankeval_rs.report, QUICKSTART / "qrels.txt", runs, ["ap", "ndcg@10"], baseline="baseline",
                 gates=["ap:superior"], output=out)
    assert out.read_text() == page
    done = cli("eval", "--qrels", str(QUICKSTART / "qrels.txt"), "--run", f"baseline={runs['baseline']}",
               "--run", f"v2={runs['v2']}", "-m", "ap", "-m", "ndcg@10", "--baseline", "baseline",
               "--gate", "ap:superior", "--format", "html")
    assert page == done.stdout
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    # The other formats too, without a comparison.
    table = quiet(rankeval_rs.report, QUICKSTART / "qrels.txt", runs, ["ap"], format="markdown")
    assert "| ap |" in table or "ap" in table.splitlines()[2]


def test_a_title_names_the_page_as_the_command_lines_does():
    # One spec field, one resolve rule: `title=` is `--title`.
    runs = {"baseline": QUICKSTART / "runs" / "baseline.trec", "v2": QUICKSTART / "runs" / "v2.jsonl"}
    page = quiet(rankeval_rs.report, QUICKSTART / "qrels.txt", runs, ["ap"], title="Weekly <v2>")
    done = cli("eval", "--qrels", str(QUICKSTART / "qrels.txt"), "--run", f"baseline={runs['baseline']}",
               "--run", f"v2={runs['v2']}", "-m", "ap", "--format", "html", "--title", "Weekly <v2>")
    assert page == done.stdout
    assert "<h1>Weekly &lt;v2&gt;</h1>" in page
    with pytest.raises(ValueError, match="title=.*a title cannot be blank nor hold a tab"):
        rankeval_rs.report(QUICKSTART / "qrels.txt", runs, ["ap"], title="a\tb")


def test_results_are_found_by_the_name_typed():
    result = quiet(rankeval_rs.evaluate, QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "baseline.trec",
                   ["recall@20", "MAP@10", "ndcg@10"])
    assert result.metrics == ["r@20", "ap@10", "ndcg@10"]
    assert result.means["recall@20"] == result.means["r@20"] == result["recall@20"]
    assert result.means["MAP@10"] == result.means["ap@10"]
    assert "recall@20" in result.means and "recall@30" not in result.means
    assert result.means.get("recall@30") is None
    assert list(result.per_query("recall@20")) == list(result.per_query("r@20"))
    assert result.interval("recall@20").mean == result.means["r@20"]
    with pytest.raises(KeyError, match="recall@30"):
        result.means["recall@30"]


def test_notebook_tables_show_the_test_the_warnings_and_the_deciding_number():
    runs = {"baseline": QUICKSTART / "runs" / "baseline.trec", "v2": QUICKSTART / "runs" / "v2.jsonl"}
    results = quiet(rankeval_rs.evaluate, QUICKSTART / "qrels.txt", runs, ["ap", "map@10"])
    html = results._repr_html_()
    assert results["v2"].warnings and 'class="warnings"' in html
    assert "trec_eval&#x27;s map_cut_10" in html or "map_cut_10" in html
    compared = results.compare("baseline", gates=["ap:superior", "ap@10:at_least(0.1)"])
    html = compared._repr_html_()
    assert "test: t" in html and "correction: holm" in html
    superior = compared.gates[0]["outcome"]
    assert f"corrected_p_value {superior['value']:.4g}" in html
    assert "mean " in html and "&gt;= 0.1" in html


def test_a_list_of_cutoffs_and_ir_measures_names_read_as_the_command_line_reads_them():
    # One rule in rankeval-core: `ndcg@1,3` is one metric per cutoff, and
    # ir_measures' names are the rankeval metrics that give its values.
    qrels, run = QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "baseline.trec"
    listed = quiet(rankeval_rs.evaluate, qrels, run, ["ndcg@1,3,5", "nDCG(dcg='exp-log2')@10", "NumRet"])
    assert listed.metrics == ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg(gain=exponential)@10", "num_ret"]
    single = quiet(rankeval_rs.evaluate, qrels, run, "ndcg@1,3,5")
    assert single.metrics == ["ndcg@1", "ndcg@3", "ndcg@5"]
    done = cli("eval", "--qrels", str(qrels), "--run", str(run), "-m", "ndcg@1,3,5",
               "-m", "nDCG(dcg='exp-log2')@10", "-m", "NumRet", "--format", "json")
    means = {name: values["mean"] for name, values in json.loads(done.stdout)["runs"][0]["metrics"].items()}
    assert means == {name: listed.means[name] for name in listed.metrics}
    with pytest.raises(ValueError, match="NumQ.*number of queries"):
        rankeval_rs.evaluate(qrels, run, ["NumQ"])
    with pytest.raises(ValueError, match="another cutoff after `,`"):
        rankeval_rs.evaluate(qrels, run, ["ndcg@10,ap"])


def test_record_keeps_the_values_the_command_line_records(tmp_path):
    # One spec field, one resolve rule: `record=` and `label=` are
    # `--record` and `--label`; the record holds every per-query value.
    import sqlite3

    qrels, run = QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "baseline.trec"
    db = tmp_path / "history.sqlite"
    result = quiet(rankeval_rs.evaluate, qrels, run, ["ap", "ndcg@10"], record=db, label="nightly")
    done = cli("eval", "--qrels", str(qrels), "--run", str(run), "-m", "ap", "-m", "ndcg@10",
               "--record", str(db), "--label", "nightly")
    assert done.returncode == 0, done.stderr
    listed = json.loads(cli("history", str(db), "--format", "json").stdout)
    assert [(r["run"], r["label"]) for r in listed["records"]] == [("baseline", "nightly")] * 2
    assert listed["records"][0]["means"] == listed["records"][1]["means"]
    assert listed["records"][0]["qrels_fingerprint"] == listed["records"][1]["qrels_fingerprint"]
    exported = [json.loads(line) for line in
                cli("history", "export", str(db), "--format", "jsonl").stdout.splitlines()]
    assert exported[0]["per_query"]["ap"] == dict(zip(result.queries, result.values[:, 0].tolist()))
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM records").fetchone() == (2,)
    with pytest.raises(ValueError, match="label=.*must be one line"):
        rankeval_rs.evaluate(qrels, run, ["ap"], record=db, label="a\nb")
    with pytest.raises(ValueError, match="label=.*names a record: give record= too"):
        rankeval_rs.evaluate(qrels, run, ["ap"], label="x")


def test_a_record_is_a_baseline_of_report_checked_as_the_command_line_checks_it(tmp_path):
    # `baseline="db:..."` goes through the spec as `--baseline db:...`: the
    # same comparison, and other options refused naming both values.
    qrels, run, other = tmp_path / "qrels.txt", tmp_path / "bm25.trec", tmp_path / "dense.trec"
    qrels.write_text("q1 0 a 1\nq1 0 b 2\nq2 0 c 2\nq2 0 d 1\nq3 0 e 1\n")
    run.write_text("q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 c 1 2 t\nq2 Q0 d 2 1 t\nq3 Q0 x 1 1 t\n")
    other.write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 d 1 2 t\nq2 Q0 c 2 1 t\n"
                     "q3 Q0 e 1 1 t\n")
    db = tmp_path / "history.sqlite"
    done = cli("eval", "--qrels", str(qrels), "--run", str(run), "-m", "ap", "--record", str(db))
    assert done.returncode == 0, done.stderr
    assert cli("history", str(db), "--accept", "1").returncode == 0
    text = quiet(rankeval_rs.report, qrels, other, ["ap"], format="json",
                 baseline=f"db:{db}")
    done = cli("eval", "--qrels", str(qrels), "--run", str(other), "-m", "ap",
               "--baseline", f"db:{db}", "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(text)["comparison"] == json.loads(done.stdout)["comparison"]
    with pytest.raises(rankeval_rs.CompareError,
                       match=r"option rel= differs \(2 here, 1 in the record\); compare anyway "
                             r"with allow_changed_options=True"):
        rankeval_rs.report(qrels, other, ["ap"], format="json", baseline=f"db:{db}", rel=2)
    with pytest.warns(rankeval_rs.RankevalWarning, match="rel= is 2 here, 1 in the record"):
        rankeval_rs.report(qrels, other, ["ap"], format="json", baseline=f"db:{db}", rel=2,
                           allow_changed_options=True)
    evaluated = quiet(rankeval_rs.evaluate, qrels, [other], ["ap"])
    with pytest.raises(rankeval_rs.CompareError, match="give the baseline to report"):
        rankeval_rs.compare(evaluated, baseline=f"db:{db}")


PYXCLIB = ROOT / "crates" / "rankeval" / "tests" / "data" / "pyxclib"
PROPENSITY = ["psp@5", "psndcg(family=amazon)@3", "hole@10"]


def test_propensity_metrics_equal_the_clis():
    qrels, run, counts = PYXCLIB / "qrels.txt", PYXCLIB / "run.trec", PYXCLIB / "counts.csv"
    done = cli("eval", "--qrels", str(qrels), "--run", str(run), "--label-counts", str(counts),
               "--train-instances", "1000", "--format", "json",
               *sum((["-m", m] for m in PROPENSITY), []))
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)["runs"][0]["metrics"]
    result = quiet(rankeval_rs.evaluate, qrels, run, PROPENSITY, label_counts=counts,
                   train_instances=1000)
    assert result.means == {m: expected[m]["mean"] for m in PROPENSITY}
    # Without propensities, the metric names the keywords that give them.
    with pytest.raises(rankeval_rs.MetricError, match="give label_counts="):
        quiet(rankeval_rs.evaluate, qrels, run, ["psp@5"])
    with pytest.raises(rankeval_rs.InputError, match="train_instances="):
        quiet(rankeval_rs.evaluate, qrels, run, ["psp@5"], label_counts=counts)


EXPEVAL = ROOT / "crates" / "rankeval" / "tests" / "data" / "expeval"
FAIRNESS = ["ee_d(model=rbp)", "ee_l(model=rbp,norm=false)", "awrf@10", "trec_fair@10"]


def test_fairness_metrics_equal_the_clis():
    qrels, run, groups = EXPEVAL / "qrels.txt", EXPEVAL / "run.trec", EXPEVAL / "groups.csv"
    done = cli("eval", "--qrels", str(qrels), "--run", str(run), "--doc-groups", str(groups),
               "--samples", "--format", "json", *sum((["-m", m] for m in FAIRNESS), []))
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)["runs"][0]["metrics"]
    result = quiet(rankeval_rs.evaluate, qrels, run, FAIRNESS, doc_groups=groups, samples=True)
    assert result.means == {m: expected[m]["mean"] for m in FAIRNESS}
    # Without document groups, the metric names the keyword that gives them.
    with pytest.raises(rankeval_rs.MetricError, match="give doc_groups="):
        quiet(rankeval_rs.evaluate, qrels, run, ["awrf@10"], samples=True)
    # A sampled run is read from its file: data has no sample column.
    with pytest.raises(ValueError, match="samples=True reads every run from its file"):
        quiet(rankeval_rs.evaluate, qrels, {"q1": {"d1": 1.0}}, ["ee_l"], samples=True)


def test_a_sampled_run_of_json_lines_rows_equals_its_trec_lines(tmp_path):
    # A sampled run named .jsonl is rows (query, sample, doc, score), not
    # rankeval's one list per query; it holds no judgements, so qrels are
    # required, in this front end's words.
    qrels, run = EXPEVAL / "qrels.txt", EXPEVAL / "run.trec"
    rows = tmp_path / "rows.jsonl"
    with rows.open("w") as out:
        for line in run.read_text().splitlines():
            query, sample, doc, _rank, score = line.split()[:5]
            out.write(json.dumps({"query": query, "sample": sample, "doc": doc, "score": float(score)}) + "\n")
    metrics = ["ee_d", "ee_r", "ee_l"]
    expected = quiet(rankeval_rs.evaluate, qrels, run, metrics, samples=True).means
    assert quiet(rankeval_rs.evaluate, qrels, rows, metrics, samples=True).means == expected
    with pytest.raises(rankeval_rs.InputError, match="no qrels: a sampled run holds no judgements"):
        quiet(rankeval_rs.evaluate, None, rows, metrics, samples=True)


def test_awrf_against_given_targets_equals_the_clis(tmp_path):
    # group_targets= (--group-targets): each query's own target over the
    # groups, read by awrf(target=given); its numbers are the CLI's.
    qrels, run, groups = EXPEVAL / "qrels.txt", EXPEVAL / "run.trec", EXPEVAL / "groups.csv"
    queries = sorted({line.split()[0] for line in qrels.read_text().splitlines() if line.strip()})
    targets = tmp_path / "targets.csv"
    targets.write_text("query,group,share\n" + "".join(
        f"{q},north,{i + 1}\n{q},south,1\n{q},east,{i % 3}\n" for i, q in enumerate(queries)))
    metrics = ["awrf(target=given)", "trec_fair(target=given)@10", "ee_d(groups=true)"]
    done = cli("eval", "--qrels", str(qrels), "--run", str(run), "--doc-groups", str(groups),
               "--group-targets", str(targets), "--samples", "--format", "json",
               *sum((["-m", m] for m in metrics), []))
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)["runs"][0]["metrics"]
    result = quiet(rankeval_rs.evaluate, qrels, run, metrics, doc_groups=groups,
                   group_targets=targets, samples=True)
    assert result.means == {m: expected[m]["mean"] for m in metrics}
    assert all(result.means[m] > 0 for m in metrics[:2])
    # Without targets, the metric names the keyword that gives them.
    with pytest.raises(rankeval_rs.MetricError, match="give group_targets="):
        quiet(rankeval_rs.evaluate, qrels, run, ["awrf(target=given)"], doc_groups=groups,
              samples=True)
