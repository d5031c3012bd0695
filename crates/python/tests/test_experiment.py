"""run_experiment gives the CLI's report for a TOML experiment (every
format, bit for bit); compare and gates run the runner's comparison on it,
with a baseline run or a results file the CLI wrote."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import rankeval_rs
from rankeval_rs import CompareError, ConfigError

from conftest import ROOT, cli

EXPERIMENT = ROOT / "examples" / "quickstart" / "experiment.toml"


@pytest.fixture(scope="module")
def report():
    return rankeval_rs.run_experiment(EXPERIMENT)


def test_the_report_equals_the_clis_json(report):
    done = cli("run", str(EXPERIMENT), "--format", "json", "--per-query")
    assert done.returncode == 0, done.stderr
    assert report.to_dict() == json.loads(done.stdout)
    assert list(report.runs) == ["baseline", "v2"]
    assert report.aggregators == ["mean"]


@pytest.mark.parametrize("format", ["table", "csv", "markdown", "trec", "json"])
def test_every_format_renders_as_the_cli_prints_it(report, format):
    for per_query in (False, True):
        args = ["run", str(EXPERIMENT), "--format", format] + (["--per-query"] if per_query else [])
        done = cli(*args)
        assert done.returncode == 0, done.stderr
        assert report.render(format, per_query=per_query).rstrip("\n") == done.stdout.rstrip("\n")


def test_runs_hold_the_per_query_values_and_means(report):
    expected = report.to_dict()
    for run in expected["runs"]:
        result = report.runs[run["name"]]
        for index, metric in enumerate(report.metrics):
            column = run["per_query"][metric]
            assert list(column) == result.queries
            assert np.array_equal(result.values[:, index], np.array(list(column.values())))
            assert result.means[metric] == run["metrics"][metric]["mean"]
            assert result.aggregates[metric] == run["metrics"][metric]
    # The same runs evaluated one by one give the same values.
    quick = ROOT / "examples" / "quickstart"
    alone = rankeval_rs.evaluate(quick / "qrels.txt", quick / "runs" / "baseline.trec", report.metrics)
    assert np.array_equal(alone.values, report.runs["baseline"].values)


def test_a_bad_experiment_names_file_and_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('qrels = "qrels.txt"\n[[runs]]\npath = "run.trec"\n[[metrics]]\ntype = "ndcgx"\n')
    (tmp_path / "qrels.txt").write_text("q 0 d 1\n")
    (tmp_path / "run.trec").write_text("q Q0 d 1 1.0 t\n")
    with pytest.raises(ConfigError) as raised:
        rankeval_rs.run_experiment(path)
    assert raised.value.file == str(path) and raised.value.line == 5
    assert "ndcgx" in raised.value.message
    done = cli("run", str(path))
    assert done.returncode == 2 and str(raised.value) in done.stderr


def test_compare_with_a_baseline_run_and_gates(report):
    v2 = report.runs["v2"].means["ndcg@10"]
    comparison = report.compare("baseline", gates=[f"ndcg@10:at_least({v2})", "ap:non_inferior(margin=0.5)"])
    assert comparison.baseline["name"] == "baseline"
    cell = comparison.cell("v2", "ndcg@10")
    assert cell["baseline_mean"] == report.runs["baseline"].means["ndcg@10"]
    assert cell["candidate_mean"] == v2
    assert cell["difference"] == pytest.approx(v2 - cell["baseline_mean"], abs=1e-15)
    assert [(g["run"], g["passed"]) for g in comparison.gates] == [("v2", True), ("v2", True)]
    assert comparison.gates[1]["outcome"]["threshold"] == -0.5
    assert comparison.passed
    failing = report.compare("baseline", gates=[f"ndcg@10:at_least({v2 + 1e-9})"])
    assert not failing.passed and failing.gates[0]["outcome"]["value"] == v2


def test_a_results_file_from_the_cli_is_the_same_baseline(report, tmp_path):
    done = cli("run", str(EXPERIMENT), "--format", "json", "--per-query")
    results = tmp_path / "results.json"
    results.write_text(done.stdout)
    from_run = report.compare("baseline", test="randomization", seed=7, correction="none")
    from_file = report.compare(baseline_file=results, baseline_run="baseline", test="randomization", seed=7,
                               correction="none")
    assert from_file.baseline["source"] == {"kind": "results", "path": str(results)}
    by_run = {(c["run"], c["metric"]): c for c in from_run.comparisons}
    for cell in from_file.comparisons:
        if cell["run"] == "baseline":
            continue
        assert cell == by_run[(cell["run"], cell["metric"])]


def test_comparisons_are_deterministic_and_take_the_settings(report):
    first = report.compare("baseline", test="bootstrap", resamples=500, seed=3).to_dict()
    again = report.compare("baseline", test="bootstrap", resamples=500, seed=3).to_dict()
    assert first == again
    assert first["provenance"]["seed"] == 3 and first["provenance"]["resamples"] == 500
    pairs = rankeval_rs.compare(report, correction="none", resamples=200)
    assert pairs.baseline is None and pairs.provenance["test"] == "randomized_tukey_hsd"
    # The settings take the command line's spellings and TOML's alike.
    spelled = [
        report.compare("baseline", test="bootstrap", resamples=300, correction=c, bootstrap=b,
                       family=f).to_dict()
        for c, b, f in [("benjamini_hochberg", "double_or_nothing", "per_metric"),
                        ("benjamini-hochberg", "double-or-nothing", "per-metric")]
    ]
    assert spelled[0] == spelled[1]
    assert spelled[0]["provenance"]["correction"] == "benjamini_hochberg"


def test_compare_errors(report):
    with pytest.raises(CompareError, match="baseline `nope` is not a run"):
        report.compare("nope")
    with pytest.raises(CompareError, match="gate `ndcg@10:fast`"):
        report.compare("baseline", gates=["ndcg@10:fast"])
    with pytest.raises(CompareError, match="level"):
        report.compare("baseline", level=1.5)
    with pytest.raises(ValueError, match="test=\"z\""):
        report.compare("baseline", test="z")


def test_warnings_of_an_experiment_are_python_warnings(tmp_path):
    quick = ROOT / "examples" / "quickstart"
    path = tmp_path / "e.toml"
    path.write_text(
        f'qrels = "{quick / "qrels.txt"}"\n[[runs]]\nname = "one"\npath = "{tmp_path / "one.trec"}"\n'
        '[[metrics]]\ntype = "reciprocal_rank"\n'
    )
    (tmp_path / "one.trec").write_text("q1 Q0 d1 1 1.0 t\nzz Q0 d1 1 1.0 t\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = rankeval_rs.run_experiment(path)
    assert report.warnings and [str(w.message) for w in caught] == report.warnings
    assert report.runs["one"].warnings


def test_an_experiment_with_a_baseline_and_gates_equals_the_cli():
    path = ROOT / "examples" / "compare" / "experiment.toml"
    report = rankeval_rs.run_experiment(path)
    done = cli("run", str(path), "--format", "json", "--per-query")
    assert done.returncode == 1, done.stderr  # a gate fails: the CLI exits 1
    assert report.to_dict() == json.loads(done.stdout)
    assert report.comparison is not None and not report.comparison.passed
    assert report.comparison.to_dict() == json.loads(done.stdout)["comparison"]
    for format in ("table", "markdown"):
        assert report.render(format).rstrip("\n") == cli("run", str(path), "--format", format).stdout.rstrip("\n")
    assert rankeval_rs.run_experiment(EXPERIMENT).comparison is None
