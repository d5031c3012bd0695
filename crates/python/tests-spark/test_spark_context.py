"""The metrics that read more than the qrels and the run, on Spark: the
diversity metrics over subtopic judgements (``subtopic_qrels=``), the
group-fairness metrics over document groups (``doc_groups=``) and
per-query group targets (``group_targets=``), and the metrics that read
the whole qrels (``psp``, ``psndcg``: a normaliser over every query, with
``label_counts=``/``inverse_propensities=``; ``hole``: the documents
judged anywhere), gathered by a first pass over the judgements, give the
command line's numbers bit for bit, per query and as means, for two
partitionings; an input not given is refused before any job, naming the
metric and the keyword."""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path

import pandas as pd
import pytest

from rankeval_rs import spark as rs

from conftest import cli

METRICS = [
    "alpha_ndcg@10",
    "alpha_dcg@5",
    "err_ia@10",
    "nerr_ia@10",
    "nrbp",
    "nnrbp(alpha=0.3,beta=0.8)",
    "p_ia@5",
    "map_ia",
    "strec@10",
    "awrf@10",
    "awrf(target=uniform)@5",
    "trec_fair@10",
    # Expected exposure of a deterministic run (one sample), which reads
    # no input beyond the qrels: the command line's without --samples.
    "ee_l",
    "ee_r(model=rbp,p=0.8)",
    "ndcg@10",
]


def bits(x: float) -> bytes:
    return b"nan" if math.isnan(x) else struct.pack("<d", x)


def make_inputs(seed: int, where: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Path]]:
    """Two runs over 80 queries with tied scores, graded judgements (some
    queries judged only, some in the runs only), subtopic judgements for
    most judged queries (ndeval's lines) and document groups with weights,
    some documents in two groups and some in none (a CSV table)."""
    rng = random.Random(seed)
    run: list[tuple] = []
    qrels: list[tuple] = []
    subtopics: list[tuple] = []
    for q in range(80):
        query = f"q{q}"
        docs = rng.sample(range(200), 30)
        if q >= 5:
            for name in ("x", "y"):
                for d in docs[: rng.randrange(1, 30)]:
                    run.append((query, f"d{d}", round(rng.random(), 1), name))
        if not 5 <= q < 10:
            judged = rng.sample(docs, rng.randrange(1, 12))
            for d in judged:
                qrels.append((query, f"d{d}", rng.choice([0.0, 1.0, 2.0])))
            if q % 7 != 0:
                for s in range(rng.randrange(1, 5)):
                    for d in rng.sample(judged, rng.randrange(1, len(judged) + 1)):
                        subtopics.append((query, f"s{s}", f"d{d}", rng.choice([0, 1, 1])))
    groups: list[tuple] = []
    for d in range(200):
        if d % 11 == 0:
            continue
        groups.append((f"d{d}", f"g{d % 4}", 1.0))
        if d % 5 == 0:
            groups.append((f"d{d}", "g9", rng.choice([0.25, 0.5])))
    paths = {
        "qrels": where / "qrels.txt",
        "subtopics": where / "subtopics.txt",
        "groups": where / "groups.csv",
    }
    with paths["qrels"].open("w") as f:
        for query, doc, grade in qrels:
            f.write(f"{query} 0 {doc} {grade!r}\n")
    with paths["subtopics"].open("w") as f:
        for query, subtopic, doc, grade in subtopics:
            f.write(f"{query} {subtopic} {doc} {grade}\n")
    with paths["groups"].open("w") as f:
        f.write("doc,group,weight\n")
        for doc, group, weight in groups:
            f.write(f"{doc},{group},{weight!r}\n")
    run_df = pd.DataFrame(run, columns=["query", "doc", "score", "sys"])
    for name, rows in run_df.groupby("sys", sort=True):
        path = where / f"{name}.trec"
        with path.open("w") as f:
            for rank, (query, doc, score, _) in enumerate(rows.itertuples(index=False)):
                f.write(f"{query} Q0 {doc} {rank} {score!r} {name}\n")
        paths[name] = path
    return run_df, pd.DataFrame(qrels, columns=["query", "doc", "grade"]), paths


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return make_inputs(11, tmp_path_factory.mktemp("context"))


def cli_report(paths: dict[str, Path], missing: str) -> dict:
    args = [
        "eval", "--qrels", str(paths["qrels"]), "--run", str(paths["x"]), "--run", str(paths["y"]),
        "--subtopic-qrels", str(paths["subtopics"]), "--doc-groups", str(paths["groups"]),
        "--missing", missing, "--format", "json", "--per-query", "-a", "mean",
    ]
    for m in METRICS:
        args += ["-m", m]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("partitions", "missing"), [(1, "skip"), (3, "skip"), (3, "zero")])
def test_context_metrics_equal_the_cli_for_any_partitioning(spark, inputs, partitions, missing):
    run_pd, qrels_pd, paths = inputs
    report = cli_report(paths, missing)
    result = rs.evaluate(
        spark.createDataFrame(run_pd), spark.createDataFrame(qrels_pd), METRICS,
        run="sys", missing=missing, partitions=partitions,
        subtopic_qrels=str(paths["subtopics"]), doc_groups=str(paths["groups"]),
    )
    want = {}
    for run in report["runs"]:
        for m, values in run["per_query"].items():
            for q, v in values.items():
                want[(run["name"], m, q)] = math.nan if v is None else v
    got = {}
    for row in result.per_query.collect():
        for m in result.metrics:
            got[(row["run"], m, row["query"])] = row[m]
    assert set(got) == set(want)
    differ = [k for k in want if bits(got[k]) != bits(want[k])]
    assert not differ, [(k, got[k], want[k]) for k in differ[:5]]
    # Some values are neither 0 nor 1: the inputs were read.
    for m in ("alpha_ndcg@10", "awrf@10", "trec_fair@10", "map_ia"):
        assert any(0 < v < 1 for (_, metric, _), v in got.items() if metric == m), m
    means = result.aggregate(["mean"])
    for run in report["runs"]:
        for m in result.metrics:
            want = run["metrics"][m]["mean"]
            got = means[run["name"]][m]["mean"]
            assert bits(got) == bits(math.nan if want is None else want), (run["name"], m)


def test_an_input_not_given_is_refused_before_any_job(spark, inputs):
    run_pd, qrels_pd, paths = inputs
    run_df, qrels_df = spark.createDataFrame(run_pd), spark.createDataFrame(qrels_pd)
    given = dict(subtopic_qrels=str(paths["subtopics"]), doc_groups=str(paths["groups"]))
    for metric, keywords, message in [
        ("psp@5", given, r"psp@5 needs label propensities .*give label_counts=\"FILE\" with train_instances=N"),
        ("psndcg@5", dict(label_counts=str(paths["groups"])), r"label_counts=.*needs the number of training instances N .*give train_instances="),
        ("awrf(target=given)@10", given, r"awrf\(target=given\)@10 needs per-query target distributions .*give group_targets="),
        ("alpha_ndcg@10", {}, r"alpha_ndcg@10 needs subtopic judgements .*give subtopic_qrels=\"FILE\""),
        ("awrf@10", {"subtopic_qrels": given["subtopic_qrels"]}, r"awrf@10 needs document groups .*give doc_groups=\"FILE\""),
    ]:
        with pytest.raises(Exception, match=message):
            rs.evaluate(run_df, qrels_df, ["ap", metric], run="sys", **keywords)
    # A file that cannot be read is named, on the driver.
    with pytest.raises(Exception, match="no-such-groups.csv"):
        rs.evaluate(run_df, qrels_df, ["awrf@10"], run="sys", doc_groups=str(paths["qrels"].parent / "no-such-groups.csv"))


#: The metrics that read the whole qrels (a normaliser over every query,
#: the documents judged anywhere) or per-query group targets, with
#: non-default propensity models, levels and cutoffs.
WHOLE_METRICS = [
    "psp@5",
    "psp",
    "psp(a=0.3,b=4)@3",
    "psndcg@10",
    "psndcg(family=amazon)@5",
    "psndcg(rel=2,family=wikipedia)@10",
    "hole@10",
    "hole",
    "awrf(target=given)@10",
    "trec_fair(target=given)@10",
    "ndcg@10",
]

TRAIN_INSTANCES = 1000


def whole_inputs(paths: dict[str, Path], where: Path) -> dict[str, Path]:
    """Training label frequencies for the documents (every third left out:
    count 0), inverse propensities for every document, and each judged
    query's target over the groups (some shares 0)."""
    counts = where / "counts.csv"
    counts.write_text("label,count\n" + "".join(f"d{d},{(7 * d) % 97}\n" for d in range(200) if d % 3))
    inverse = where / "inverse.tsv"
    inverse.write_text("label\tinverse_propensity\n" + "".join(f"d{d}\t{1 + (d % 13) / 4!r}\n" for d in range(200)))
    queries = dict.fromkeys(line.split()[0] for line in paths["qrels"].read_text().splitlines())
    targets = where / "targets.csv"
    targets.write_text("query,group,share\n" + "".join(
        f"{q},g0,{i % 4}\n{q},g1,1\n{q},g2,{1 + i % 3}\n{q},g9,0.5\n" for i, q in enumerate(queries)))
    return {"counts": counts, "inverse": inverse, "targets": targets}


@pytest.mark.parametrize(("partitions", "missing", "table"), [(1, "skip", "counts"), (3, "skip", "counts"), (3, "zero", "inverse"), (3, "skip", "inverse")])
def test_metrics_of_the_whole_qrels_equal_the_cli_for_any_partitioning(spark, inputs, tmp_path, partitions, missing, table):
    run_pd, qrels_pd, paths = inputs
    extra = whole_inputs(paths, tmp_path)
    if table == "counts":
        cli_table = ["--label-counts", str(extra["counts"]), "--train-instances", str(TRAIN_INSTANCES)]
        keywords = dict(label_counts=str(extra["counts"]), train_instances=TRAIN_INSTANCES)
    else:
        cli_table = ["--inverse-propensities", str(extra["inverse"])]
        keywords = dict(inverse_propensities=str(extra["inverse"]))
    args = [
        "eval", "--qrels", str(paths["qrels"]), "--run", str(paths["x"]), "--run", str(paths["y"]),
        "--doc-groups", str(paths["groups"]), "--group-targets", str(extra["targets"]), *cli_table,
        "--missing", missing, "--format", "json", "--per-query", "-a", "mean",
    ]
    for m in WHOLE_METRICS:
        args += ["-m", m]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    result = rs.evaluate(
        spark.createDataFrame(run_pd), spark.createDataFrame(qrels_pd), WHOLE_METRICS,
        run="sys", missing=missing, partitions=partitions,
        doc_groups=str(paths["groups"]), group_targets=str(extra["targets"]), **keywords,
    )
    want = {}
    for run in report["runs"]:
        for m, values in run["per_query"].items():
            for q, v in values.items():
                want[(run["name"], m, q)] = math.nan if v is None else v
    got = {}
    for row in result.per_query.collect():
        for m in result.metrics:
            got[(row["run"], m, row["query"])] = row[m]
    assert set(got) == set(want)
    differ = [k for k in want if bits(got[k]) != bits(want[k])]
    assert not differ, [(k, got[k], want[k]) for k in differ[:5]]
    # The inputs were read: values neither 0 nor 1, and documents judged
    # for another query only are not holes (hole@10 < unjudged share).
    for m in ("psp@5", "psndcg(rel=2,family=wikipedia)@10", "hole@10", "awrf(target=given)@10"):
        assert any(0 < v < 1 for (_, metric, _), v in got.items() if metric == m), m
    means = result.aggregate(["mean"])
    for run in report["runs"]:
        for m in result.metrics:
            want_mean = run["metrics"][m]["mean"]
            assert bits(means[run["name"]][m]["mean"]) == bits(math.nan if want_mean is None else want_mean), m


def test_a_task_alone_would_give_other_numbers(spark, inputs, tmp_path):
    """What the first pass is for: the judgements of one partition's
    queries give another normaliser and other holes than the whole
    qrels, so the per-query values above could not come from a task's
    own queries."""
    run_pd, qrels_pd, paths = inputs
    extra = whole_inputs(paths, tmp_path)
    part = qrels_pd[qrels_pd["query"].isin({"q11", "q12", "q13"})]
    qrels = tmp_path / "part.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g!r}\n" for q, d, g in part.itertuples(index=False)))
    metrics = ["psp@5", "hole@10"]
    reports = []
    for judged in (paths["qrels"], qrels):
        done = cli("eval", "--qrels", str(judged), "--run", str(paths["x"]), "--label-counts", str(extra["counts"]),
                   "--train-instances", str(TRAIN_INSTANCES), "--format", "json", "--per-query",
                   *sum((["-m", m] for m in metrics), []))
        assert done.returncode == 0, done.stderr
        reports.append(json.loads(done.stdout)["runs"][0]["per_query"])
    for m in metrics:
        assert [reports[0][m][q] for q in ("q11", "q12", "q13")] != [reports[1][m][q] for q in ("q11", "q12", "q13")], m
    result = rs.evaluate(spark.createDataFrame(run_pd), spark.createDataFrame(qrels_pd), metrics, run="sys",
                         partitions=3, label_counts=str(extra["counts"]), train_instances=TRAIN_INSTANCES)
    got = {(r["run"], r["query"]): (r["psp@5"], r["hole@10"]) for r in result.per_query.collect()}
    for q in ("q11", "q12", "q13"):
        assert bits(got[("x", q)][0]) == bits(reports[0]["psp@5"][q]), q
        assert bits(got[("x", q)][1]) == bits(reports[0]["hole@10"][q]), q


def test_bad_whole_qrels_inputs_are_named(spark, inputs, tmp_path):
    run_pd, qrels_pd, paths = inputs
    run_df, qrels_df = spark.createDataFrame(run_pd), spark.createDataFrame(qrels_pd)
    # Given inverse propensities that miss a judged label: named by file,
    # as on the command line, from the first pass.
    short = tmp_path / "short.csv"
    short.write_text("label,inverse_propensity\nd1,2.0\n")
    with pytest.raises(Exception, match=r"short.csv.*is judged but has no inverse propensity"):
        rs.evaluate(run_df, qrels_df, ["psp@5"], run="sys", partitions=3, inverse_propensities=str(short)).per_query.collect()
    # A judged query without a target: refused, naming the targets' file.
    targets = tmp_path / "few-targets.csv"
    targets.write_text("query,group,share\nq11,g0,1\n")
    with pytest.raises(Exception, match=r"few-targets.csv.*no target for query"):
        rs.evaluate(run_df, qrels_df, ["awrf(target=given)@10"], run="sys", partitions=3,
                    doc_groups=str(paths["groups"]), group_targets=str(targets)).per_query.collect()


SAMPLED_METRICS = ["ee_d", "ee_r", "ee_l", "ee_l(model=rbp,p=0.8,norm=false)", "ndcg@10", "ap", "awrf@10", "psp@5", "hole@10"]


def make_sampled(seed: int, where: Path) -> tuple[pd.DataFrame, dict[str, Path]]:
    """Two stochastic policies' sampled rankings (``query sample doc
    score``), 1 to 5 samples a query with tied scores, the samples' rows
    shuffled in the DataFrame; for the command line, TREC lines whose
    second column is the sample, in the same shuffled order (both take a
    query's samples in byte order of their ids, whatever the rows' order)."""
    rng = random.Random(seed)
    rows: list[tuple] = []
    for q in range(60):
        docs = rng.sample(range(200), 12)
        for name in ("x", "y"):
            if q < 3 and name == "y":
                continue
            for s in rng.sample(range(10), rng.randrange(1, 6)):
                for d in rng.sample(docs, rng.randrange(1, 12)):
                    rows.append((f"q{q}", f"s{s}", f"d{d}", round(rng.random(), 1), name))
    rng.shuffle(rows)
    run_df = pd.DataFrame(rows, columns=["query", "sample", "doc", "score", "sys"])
    paths = {}
    for name, part in run_df.groupby("sys", sort=True):
        path = where / f"sampled-{name}.trec"
        with path.open("w") as f:
            for rank, (query, sample, doc, score, _) in enumerate(part.itertuples(index=False)):
                f.write(f"{query} {sample} {doc} {rank} {score!r} {name}\n")
        paths[name] = path
    return run_df, paths


@pytest.mark.parametrize(("partitions", "missing"), [(1, "skip"), (3, "zero")])
def test_sampled_rankings_equal_the_cli_for_any_partitioning(spark, inputs, tmp_path, partitions, missing):
    _, qrels_pd, paths = inputs
    run_pd, sampled = make_sampled(5, tmp_path)
    counts = whole_inputs(paths, tmp_path)["counts"]
    args = [
        "eval", "--qrels", str(paths["qrels"]), "--samples", "--run", f"x={sampled['x']}", "--run", f"y={sampled['y']}",
        "--doc-groups", str(paths["groups"]), "--missing", missing, "--format", "json", "--per-query", "-a", "mean",
        "--label-counts", str(counts), "--train-instances", str(TRAIN_INSTANCES),
    ]
    for m in SAMPLED_METRICS:
        args += ["-m", m]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    result = rs.evaluate(
        spark.createDataFrame(run_pd), spark.createDataFrame(qrels_pd), SAMPLED_METRICS,
        run="sys", sample="sample", missing=missing, partitions=partitions, doc_groups=str(paths["groups"]),
        label_counts=str(counts), train_instances=TRAIN_INSTANCES,
    )
    want = {}
    for run in report["runs"]:
        for m, values in run["per_query"].items():
            for q, v in values.items():
                want[(run["name"], m, q)] = math.nan if v is None else v
    got = {}
    for row in result.per_query.collect():
        for m in result.metrics:
            got[(row["run"], m, row["query"])] = row[m]
    assert set(got) == set(want)
    differ = [k for k in want if bits(got[k]) != bits(want[k])]
    assert not differ, [(k, got[k], want[k]) for k in differ[:5]]
    assert any(0 < v < 1 for (_, m, _), v in got.items() if m == "ee_l"), "ee_l"
    means = result.aggregate(["mean"])
    for run in report["runs"]:
        for m in result.metrics:
            want_mean = run["metrics"][m]["mean"]
            assert bits(means[run["name"]][m]["mean"]) == bits(math.nan if want_mean is None else want_mean), m


def test_sampled_rankings_are_refused_where_the_command_line_refuses_them(spark, inputs):
    run_pd, qrels_pd, paths = inputs
    run_df = spark.createDataFrame(run_pd.assign(sample="s0"))
    qrels_df = spark.createDataFrame(qrels_pd)
    for keywords, message in [
        (dict(metrics=["ndcg@10"], ties="average"), "sampled runs are not evaluated with ties"),
        (dict(metrics=["alpha_ndcg@10"], subtopic_qrels=str(paths["subtopics"])), "not evaluated by alpha_ndcg@10"),
        (dict(metrics=["ee_l"], corpus=["gini@10"]), "the corpus metric gini@10 reads one list per query"),
    ]:
        with pytest.raises(Exception, match=message):
            rs.evaluate(run_df, qrels_df, run="sys", sample="sample", **keywords)
    with pytest.raises(Exception, match="no column `draw`"):
        rs.evaluate(run_df, qrels_df, ["ee_l"], run="sys", sample="draw")
