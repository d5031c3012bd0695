"""Results per group of queries (issue 26): evaluate(..., groups=) and a
TOML experiment's `groups` give each group's results; a group's mean equals
the correctly rounded sum (math.fsum) of the CLI's --per-query CSV values
over the group's queries, divided by their count, to the last bits."""

from __future__ import annotations

import csv
import io
import math

import pytest

import rankeval_rs
from rankeval_rs import InputError, RankevalWarning

from conftest import ROOT, cli

QUICKSTART = ROOT / "examples" / "quickstart"
QRELS = QUICKSTART / "qrels.txt"
RUN = QUICKSTART / "runs" / "baseline.trec"
GROUPS = "query,segment,language\nq1,head,de\nq2,head,en\nq3,head,de\nq4,tail,en\nq5,tail,de\nq6,tail,\n"


@pytest.fixture()
def groups_file(tmp_path):
    path = tmp_path / "groups.csv"
    path.write_text(GROUPS)
    return path


def membership() -> dict[tuple[str, str], set[str]]:
    rows = list(csv.DictReader(io.StringIO(GROUPS)))
    out: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        for column in ("segment", "language"):
            if row[column]:
                out.setdefault((column, row[column]), set()).add(row["query"])
    return out


def test_group_means_are_correctly_rounded_sums_of_the_clis_per_query_values(groups_file):
    metrics = ["ap", "ndcg@10", "p@5"]
    with pytest.warns(RankevalWarning, match=r"1 evaluated query has no group in column `language`"):
        evaluation = rankeval_rs.evaluate(QRELS, RUN, metrics, groups=groups_file)
    args = ["eval", "--qrels", str(QRELS), "--run", str(RUN), "--format", "csv", "--per-query"]
    for metric in metrics:
        args += ["-m", metric]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    per_query = {row["query"]: row for row in csv.DictReader(io.StringIO(done.stdout)) if row["query"]}
    checked = 0
    for (column, value), queries in membership().items():
        group = evaluation.groups[column][value]
        assert sorted(group.queries) == sorted(queries)
        for metric in metrics:
            exact = math.fsum(float(per_query[q][metric]) for q in queries) / len(queries)
            assert group.means[metric] == pytest.approx(exact, rel=4e-16, abs=1e-17), (column, value)
            checked += 1
    assert checked == 4 * 3


def test_groups_from_a_dict_or_a_dataframe_equal_the_files(groups_file):
    by_file = rankeval_rs.evaluate(QRELS, RUN, "ap", groups=groups_file)
    rows = list(csv.DictReader(io.StringIO(GROUPS)))
    by_dict = rankeval_rs.evaluate(
        QRELS, RUN, "ap", groups={r["query"]: {"segment": r["segment"], "language": r["language"]} for r in rows})
    for column in ("segment", "language"):
        assert list(by_dict.groups[column]) == list(by_file.groups[column])
        for value, group in by_file.groups[column].items():
            assert by_dict.groups[column][value].means == group.means
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(groups_file, dtype=str, keep_default_na=False)
    by_frame = rankeval_rs.evaluate(QRELS, RUN, "ap", groups=frame)
    assert by_frame.groups["segment"]["tail"].means == by_file.groups["segment"]["tail"].means


def test_a_group_is_an_evaluation_with_an_interval(groups_file):
    evaluation = rankeval_rs.evaluate(QRELS, RUN, "ap", groups=groups_file)
    tail = evaluation.groups["segment"]["tail"]
    assert tail.run == "baseline [segment=tail]"
    interval = tail.interval("ap")
    assert interval.lower <= tail.means["ap"] <= interval.upper


def test_experiment_groups(tmp_path, groups_file):
    experiment = tmp_path / "exp.toml"
    experiment.write_text(
        f'qrels = "{QRELS}"\ngroups = "{groups_file}"\nmetrics = ["ap"]\n\n'
        f'[[runs]]\nname = "baseline"\npath = "{RUN}"\n')
    with pytest.warns(RankevalWarning):
        report = rankeval_rs.run_experiment(experiment)
    direct = rankeval_rs.evaluate(QRELS, RUN, "ap", groups=groups_file)
    run = report.runs["baseline"]
    assert run.groups["segment"]["head"].means == direct.groups["segment"]["head"].means
    shown = report.to_dict(per_query=False)["runs"][0]["groups"]["segment"]["head"]
    assert shown["num_queries"] == 3
    assert shown["metrics"]["ap"]["mean"] == direct.groups["segment"]["head"].means["ap"]


def test_a_bad_groups_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("query,segment\nq1,head\nq1,tail\n")
    with pytest.raises(InputError, match="given again") as raised:
        rankeval_rs.evaluate(QRELS, RUN, "ap", groups=bad)
    assert raised.value.line == 3
    with pytest.raises(TypeError, match="groups: a file path"):
        rankeval_rs.evaluate(QRELS, RUN, "ap", groups=42)
