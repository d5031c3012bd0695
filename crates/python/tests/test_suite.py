"""A suite of datasets (issue 26): run_suite gives the CLI's --aggregate
macro numbers (the same JSON object), each dataset weighing the same."""

from __future__ import annotations

import json
import random

import pytest

import rankeval_rs
from rankeval_rs import CompareError

from conftest import cli


@pytest.fixture()
def suite(tmp_path):
    rng = random.Random(11)
    files = []
    for dataset, size in (("a", 12), ("b", 5), ("c", 30)):
        qrels, runs = [], {"bm25": [], "dense": []}
        for q in range(size):
            qrels.append(f"{dataset}{q} 0 y 1")
            for d in range(6):
                if rng.random() < 0.3:
                    qrels.append(f"{dataset}{q} 0 x{d} {rng.randint(1, 3)}")
                for name, lines in runs.items():
                    lines.append(f"{dataset}{q} Q0 x{d} {d + 1} {rng.random():.6f} {name}")
        (tmp_path / f"{dataset}.qrels").write_text("\n".join(qrels) + "\n")
        for name, lines in runs.items():
            (tmp_path / f"{dataset}-{name}.trec").write_text("\n".join(lines) + "\n")
        toml = tmp_path / f"{dataset}.toml"
        toml.write_text(
            f'qrels = "{dataset}.qrels"\nmetrics = ["ap", "ndcg@10"]\nbaseline = "bm25"\n\n'
            f'[[runs]]\nname = "bm25"\npath = "{dataset}-bm25.trec"\n\n'
            f'[[runs]]\nname = "dense"\npath = "{dataset}-dense.trec"\n')
        files.append(toml)
    return files


def test_run_suite_equals_the_clis_macro_object(suite):
    result = rankeval_rs.run_suite(suite, baseline="bm25")
    done = cli("run", *map(str, suite), "--aggregate", "macro", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert result.macro == json.loads(done.stdout)["macro"]
    assert list(result.experiments) == [str(p) for p in suite]
    means = [result.experiments[str(p)].runs["dense"].means["ap"] for p in suite]
    assert result.means["dense"]["ap"] == pytest.approx(sum(means) / 3, abs=1e-15)
    comparison = result.macro["comparisons"][0]
    assert (comparison["run"], comparison["baseline"], comparison["metric"]) == ("dense", "bm25", "ap")
    assert comparison["paired"] == [12, 5, 30]


def test_the_seed_decides_the_interval(suite):
    first = rankeval_rs.run_suite(suite, seed=1)
    again = rankeval_rs.run_suite(suite, seed=1)
    other = rankeval_rs.run_suite(suite, seed=2)
    interval = lambda s: s.macro["runs"][0]["macro_means"][0]["interval"]  # noqa: E731
    assert interval(first) == interval(again)
    assert interval(first) != interval(other)
    assert first.macro["comparisons"] == []


def test_a_suite_needs_two_datasets_with_the_same_metrics(suite, tmp_path):
    with pytest.raises(CompareError, match="at least 2 experiment files"):
        rankeval_rs.run_suite(suite[:1])
    other = tmp_path / "other.toml"
    other.write_text(suite[0].read_text().replace('metrics = ["ap", "ndcg@10"]', 'metrics = ["ap"]'))
    with pytest.raises(CompareError, match="need the same metrics"):
        rankeval_rs.run_suite([suite[0], other])
    with pytest.raises(ValueError, match="level must be strictly between 0 and 1"):
        rankeval_rs.run_suite(suite, level=95)


def test_systems_of_several_runs_equal_the_clis():
    from conftest import ROOT

    experiment = ROOT / "examples" / "seeds" / "experiment.toml"
    report = rankeval_rs.run_experiment(experiment)
    done = cli("run", str(experiment), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert report.systems == json.loads(done.stdout)["systems"]
    names = [s["name"] for s in report.systems["systems"]]
    assert names == ["v1", "v2"]
    assert list(report.runs)[:3] == ["v1/v1-seed1", "v1/v1-seed2", "v1/v1-seed3"]
    ap = report.systems["comparisons"][0]["result"]
    # Ignoring the seeds would call v2 better on AP; counting them, it is not.
    assert ap["seed_blind_p_value"] < 0.05 < ap["p_value"]
    assert rankeval_rs.run_experiment(ROOT / "examples" / "quickstart" / "experiment.toml").systems is None


def test_a_suite_file(suite, tmp_path):
    suite_file = tmp_path / "suite.toml"
    suite_file.write_text('experiments = ["a.toml", "b.toml", "c.toml"]\n')
    from_file = rankeval_rs.run_suite(suite_file, baseline="bm25")
    listed = rankeval_rs.run_suite(suite, baseline="bm25")
    assert from_file.macro["runs"] == listed.macro["runs"]
    suite_file.write_text('experiments = ["a.toml"]\n')
    with pytest.raises(rankeval_rs.ConfigError, match="at least 2 experiment files"):
        rankeval_rs.run_suite(suite_file)
    with pytest.raises(ValueError, match="not a suite file"):
        rankeval_rs.run_suite(suite[0])


def test_evaluate_with_systems_equals_the_clis_system_flag():
    from conftest import ROOT

    seeds = ROOT / "examples" / "seeds"
    results = rankeval_rs.evaluate(
        seeds / "qrels.txt", None, ["ap", "ndcg@10"],
        systems={"v1": str(seeds / "runs" / "v1-seed*.trec"),
                 "v2": [seeds / "runs" / f"v2-seed{i}.trec" for i in (1, 2, 3)]})
    assert list(results)[:2] == ["v1/v1-seed1", "v1/v1-seed2"]
    done = cli("eval", "--qrels", str(seeds / "qrels.txt"), "-m", "ap", "-m", "ndcg@10",
               "--system", f"v1={seeds / 'runs' / 'v1-seed*.trec'}",
               "--system", f"v2={seeds / 'runs' / 'v2-seed*.trec'}", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert results.systems == json.loads(done.stdout)["systems"]
    with pytest.raises(ValueError, match="needs at least 2"):
        rankeval_rs.evaluate(seeds / "qrels.txt", None, "ap",
                             systems={"v1": [seeds / "runs" / "v1-seed1.trec"]})
    with pytest.raises(ValueError, match="matches no file"):
        rankeval_rs.evaluate(seeds / "qrels.txt", None, "ap", systems={"v1": "nothing-*.trec"})
