"""compare() on the results of evaluate(): several runs evaluated on the
same qrels are compared as `rankeval eval --run ... --baseline` compares
them, with the runner's statistics: the CLI's JSON comparison, bit for bit
(p-values, intervals, verdicts), for every test and option; gates; and an
error for runs that were not evaluated together."""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest

import rankeval_rs
from rankeval_rs import CompareError

from conftest import SEED, Data, Files, cli

METRICS = ["ap", "ndcg@10", "p@5", "rr"]


@pytest.fixture(scope="module")
def runs(data: Data, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three TREC runs of the seeded queries: the seeded run, and two with
    its scores moved by seeded noise (one better on the relevant documents)."""
    judged = {(q, d): g for q, d, g in data.qrels}
    rng = random.Random(SEED + 1)
    root = tmp_path_factory.mktemp("runs")
    paths = [root / "a.trec", root / "b.trec", root / "c.trec"]
    for index, path in enumerate(paths):
        lines = []
        for line, (q, d, s) in enumerate(data.run):
            if index == 1:
                s = round(s + rng.uniform(-0.3, 0.3), 3)
            elif index == 2:
                s = round(s + 0.4 * max(judged.get((q, d), 0), 0) + rng.uniform(-0.2, 0.2), 3)
            lines.append(f"{q} Q0 {d} {line + 1} {s} tag{index}\n")
        path.write_text("".join(lines))
    return paths


def evaluated(qrels, runs, metrics=METRICS, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankeval_rs.RankevalWarning)
        return rankeval_rs.evaluate(qrels, runs, metrics, **options)


def cli_comparison(qrels: Path, runs: list[Path], metrics: list[str], *flags: str) -> tuple[dict, int]:
    """The `comparison` object of the CLI's JSON, and its exit code."""
    args = ["eval", "--qrels", str(qrels), "--format", "json", "--per-query", *flags]
    for run in runs:
        args += ["--run", str(run)]
    for metric in metrics:
        args += ["-m", metric]
    done = cli(*args)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)["comparison"], done.returncode


@pytest.mark.parametrize(
    "options,flags",
    [
        ({}, []),
        ({"test": "randomization", "seed": 7}, ["--test", "randomization", "--seed", "7"]),
        ({"test": "randomization", "resamples": 300, "correction": "bonferroni"},
         ["--test", "randomization", "--resamples", "300", "--correction", "bonferroni"]),
        ({"test": "bootstrap", "seed": 11, "resamples": 500},
         ["--test", "bootstrap", "--seed", "11", "--resamples", "500"]),
        ({"test": "bootstrap", "bootstrap": "multinomial", "level": 0.9, "resamples": 400},
         ["--test", "bootstrap", "--bootstrap", "multinomial", "--confidence", "0.9", "--resamples", "400"]),
        ({"test": "bootstrap", "bootstrap": "double_or_nothing", "seed": 5, "resamples": 400},
         ["--test", "bootstrap", "--bootstrap", "double-or-nothing", "--seed", "5", "--resamples", "400"]),
        ({"test": "wilcoxon", "correction": "benjamini_hochberg", "family": "per_metric"},
         ["--test", "wilcoxon", "--correction", "benjamini-hochberg", "--family", "per-metric"]),
        ({"test": "t", "correction": "none", "alpha": 0.01, "family": "per_run"},
         ["--test", "t", "--correction", "none", "--alpha", "0.01", "--family", "per-run"]),
        ({"interval": "jackknife", "jackknife_groups": 7}, ["--interval", "jackknife", "--jackknife-groups", "7"]),
        ({"test": "randomization_keyed", "interval": "jackknife", "seed": 3},
         ["--test", "randomization-keyed", "--interval", "jackknife", "--seed", "3"]),
        ({"test": "bootstrap_keyed", "seed": 4, "resamples": 300, "level": 0.9},
         ["--test", "bootstrap-keyed", "--seed", "4", "--resamples", "300", "--confidence", "0.9"]),
    ],
)
def test_compare_on_evaluate_equals_the_clis_comparison(files: Files, runs, options, flags):
    expected, _ = cli_comparison(files.qrels_trec, runs, METRICS, "--baseline", "a", *flags)
    results = evaluated(files.qrels_trec, runs)
    assert isinstance(results, rankeval_rs.Evaluations) and list(results) == ["a", "b", "c"]
    comparison = rankeval_rs.compare(results, "a", **options)
    assert comparison.to_dict() == expected
    # The method on the results is the same function.
    assert results.compare("a", **options).to_dict() == expected
    # Every cell has numbers: the comparison is not vacuous.
    assert len(comparison.comparisons) == 2 * len(METRICS)
    assert all("p_value" in cell and "interval" in cell for cell in comparison.comparisons)


def test_a_bad_interval_is_refused(files: Files, runs):
    results = evaluated(files.qrels_trec, runs)
    with pytest.raises(ValueError, match="goes with interval"):
        rankeval_rs.compare(results, "a", jackknife_groups=5)
    with pytest.raises(ValueError, match="at least 2"):
        rankeval_rs.compare(results, "a", interval="jackknife", jackknife_groups=1)
    with pytest.raises(ValueError, match='"test"'):
        rankeval_rs.compare(results, "a", interval="bca")
    with pytest.raises(CompareError, match="baseline"):
        rankeval_rs.compare(results, interval="jackknife")


def test_all_pairs_and_missing_zero_equal_the_cli(files: Files, runs):
    expected, _ = cli_comparison(files.qrels_trec, runs, METRICS, "--all-pairs", "--resamples", "500",
                                 "--missing", "zero")
    results = evaluated(files.qrels_trec, runs, missing="zero")
    comparison = results.compare(resamples=500)
    assert comparison.to_dict() == expected
    assert comparison.baseline is None and comparison.provenance["test"] == "randomized_tukey_hsd"
    # The evaluation's `missing` is the comparison's, as on the command line.
    assert comparison.provenance["missing"] == "zero"
    # The keyed randomized Tukey HSD, too.
    expected, _ = cli_comparison(files.qrels_trec, runs, METRICS, "--all-pairs", "--resamples", "300",
                                 "--missing", "zero", "--test", "randomization-keyed")
    keyed = results.compare(resamples=300, test="randomization_keyed")
    assert keyed.to_dict() == expected
    assert keyed.provenance["test"] == "randomized_tukey_hsd_keyed"


def test_gates_pass_and_fail_as_on_the_cli(files: Files, runs):
    results = evaluated(files.qrels_trec, runs)
    c_ndcg = results["c"].means["ndcg@10"]
    passing = [f"ndcg@10:at_least({c_ndcg},run=c)", "ap:non_inferior(margin=0.5)", "ndcg@10:superior(run=c)"]
    failing = passing + [f"ndcg@10:at_least({c_ndcg + 1e-9},run=c)"]
    for gates, code in ((passing, 0), (failing, 1)):
        flags = ["--baseline", "a"] + [f"--gate={gate}" for gate in gates]
        expected, returncode = cli_comparison(files.qrels_trec, runs, METRICS, *flags)
        comparison = rankeval_rs.compare(results, "a", gates=gates)
        assert comparison.to_dict() == expected
        assert returncode == code and comparison.passed == (code == 0)
    assert [g["passed"] for g in comparison.gates if g["run"] == "c"] == [True, True, True, False]
    assert [g["passed"] for g in comparison.gates if g["run"] == "b"] == [True]
    assert comparison.gates[-1]["outcome"]["value"] == c_ndcg


def test_the_seed_is_reported(files: Files, runs):
    results = evaluated(files.qrels_trec, runs)
    drawn = results.compare("a", test="randomization", seed=1234, resamples=200)
    assert drawn.seed == 1234 == drawn.provenance["seed"]
    assert drawn.provenance["rng"] and "seed=1234" in repr(drawn)
    assert results.compare("a", test="randomization", resamples=200).seed == 42  # the CLI's default
    assert results.compare("a", test="t").seed is None


def test_a_baseline_results_file_with_one_run(files: Files, runs, tmp_path):
    done = cli("eval", "--qrels", str(files.qrels_trec), "--run", str(runs[0]), "-m", "ap", "-m", "ndcg@10",
               "-m", "p@5", "-m", "rr", "--format", "json", "--per-query")
    saved = tmp_path / "a.json"
    saved.write_text(done.stdout)
    expected, _ = cli_comparison(files.qrels_trec, runs[2:], METRICS, "--baseline", str(saved))
    (single,) = evaluated(files.qrels_trec, runs[2:]).values()
    comparison = rankeval_rs.compare([single], baseline_file=saved)
    assert comparison.to_dict() == expected


def test_the_same_qrels_from_two_calls_and_two_inputs(files: Files, data: Data, runs):
    a = evaluated(files.qrels_trec, runs[0])
    qrels = {}
    for q, d, g in data.qrels:
        qrels.setdefault(q, {})[d] = g
    b = evaluated(qrels, runs[1])  # the same judgements, as a dict
    c = evaluated(files.qrels_csv, runs[2])  # and as CSV
    expected, _ = cli_comparison(files.qrels_trec, runs, METRICS, "--baseline", "a")
    assert rankeval_rs.compare({"a": a, "b": b, "c": c}, "a").to_dict() == expected
    assert rankeval_rs.compare([a, b, c], "a").to_dict() == expected


def test_runs_evaluated_apart_are_refused(files: Files, data: Data, runs, tmp_path):
    results = evaluated(files.qrels_trec, runs)
    with pytest.raises(CompareError, match="at least two runs") as raised:
        rankeval_rs.compare({"a": results["a"]}, "a")
    assert raised.value.message.startswith("compare needs") and raised.value.file is None
    with pytest.raises(CompareError, match="at least two runs"):
        rankeval_rs.compare(results["a"])
    # Other qrels: one judgement less.
    fewer = tmp_path / "fewer.txt"
    fewer.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in data.qrels[1:]))
    other = evaluated(fewer, runs[1])
    with pytest.raises(CompareError, match="run `b` was evaluated on other qrels than run `a`"):
        rankeval_rs.compare({"a": results["a"], "b": other}, "a")
    # A grade changed is other qrels too.
    q, d, g = data.qrels[0]
    changed = tmp_path / "changed.txt"
    changed.write_text(f"{q} 0 {d} {g + 1}\n" + "".join(f"{q} 0 {d} {g}\n" for q, d, g in data.qrels[1:]))
    with pytest.raises(CompareError, match="other qrels"):
        rankeval_rs.compare([results["a"], evaluated(changed, runs[1])])
    # Other metrics, other options.
    with pytest.raises(CompareError, match="the same metrics"):
        rankeval_rs.compare([results["a"], evaluated(files.qrels_trec, runs[1], ["ap"])])
    with pytest.raises(CompareError, match=r"rel=2, run `a` with rel=1"):
        rankeval_rs.compare([results["a"], evaluated(files.qrels_trec, runs[1], rel=2)])
    with pytest.raises(CompareError, match="missing='zero'"):
        rankeval_rs.compare([results["a"], evaluated(files.qrels_trec, runs[1], missing="zero")])
    # Two results of one name, and things that are not results.
    with pytest.raises(CompareError, match="several results are named `a`"):
        rankeval_rs.compare([results["a"], results["a"]])
    with pytest.raises(TypeError, match="not an Evaluation"):
        rankeval_rs.compare({"a": results["a"], "b": 0.5})
    with pytest.raises(CompareError, match="baseline `nope` is not a run"):
        results.compare("nope")
    with pytest.raises(CompareError, match="gate `p@5:fast`"):
        results.compare("a", gates=["p@5:fast"])
    with pytest.raises(CompareError, match="the experiment has no metric `ndcg@20`"):
        results.compare("a", gates=["ndcg@20:at_least(0.1)"])
    with pytest.raises(ValueError, match='bootstrap="fast": expected one of auto, multinomial, double_or_nothing'):
        results.compare("a", test="bootstrap", bootstrap="fast")


def test_results_of_an_experiment_are_compared_as_its_report(files: Files, runs):
    from conftest import ROOT

    report = rankeval_rs.run_experiment(ROOT / "examples" / "quickstart" / "experiment.toml")
    with pytest.raises(CompareError, match="not evaluated by evaluate"):
        rankeval_rs.compare(report.runs)
    # The report itself takes the bootstrap variant too.
    comparison = report.compare("baseline", test="bootstrap", bootstrap="double_or_nothing", resamples=100)
    assert comparison.provenance["bootstrap"] == "double_or_nothing"
    assert {cell["bootstrap"] for cell in comparison.comparisons} == {"double_or_nothing"}


def test_qrels_in_another_order_are_the_same_qrels(files: Files, data: Data, runs, tmp_path):
    shuffled = list(data.qrels)
    random.Random(SEED).shuffle(shuffled)
    path = tmp_path / "shuffled.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in shuffled))
    a = evaluated(files.qrels_trec, runs[0])
    b = evaluated(path, runs[1])
    expected, _ = cli_comparison(files.qrels_trec, runs[:2], METRICS, "--baseline", "a")
    assert rankeval_rs.compare([a, b], "a").to_dict() == expected
    # One Qrels object evaluated twice: the same object, no fingerprint needed.
    qrels = rankeval_rs.qrels(path)
    first, second = evaluated(qrels, runs[0]), evaluated(qrels, runs[2])
    assert first._basis.qrels is qrels and second._basis.qrels is qrels
    assert rankeval_rs.compare([first, second], "a").comparisons
    # Equal judgements in another order, as two objects, are the same qrels.
    assert qrels.same_judgements(rankeval_rs.qrels(files.qrels_trec))


def test_python_metrics_are_compared_and_gated_like_built_ins(files: Files, runs):
    """A Python metric computing p@5 compares exactly as the built-in p@5."""
    import numpy as np

    def precision(grades, num_relevant, ideal):
        return float(np.count_nonzero(grades >= 1)) / 5

    rankeval_rs.register_metric("my_precision", precision)
    try:
        results = evaluated(files.qrels_trec, runs, ["p@5", "my_precision@5"])
        comparison = results.compare("a", test="bootstrap", resamples=300,
                                     gates=["my_precision@5:non_inferior(margin=0.5)"])
    finally:
        rankeval_rs.unregister_metric("my_precision")
    for run in ("b", "c"):
        built_in, mine = comparison.cell(run, "p@5"), comparison.cell(run, "my_precision@5")
        assert {**mine, "metric": "p@5"} == built_in
    assert [g["metric"] for g in comparison.gates] == ["my_precision@5", "my_precision@5"]
    assert comparison.passed


def test_a_comparison_as_rows_a_dataframe_an_arrow_table_and_html():
    import pyarrow as pa

    root = Path(__file__).resolve().parents[3] / "examples" / "quickstart"
    runs = {"baseline": root / "runs" / "baseline.trec", "v2": root / "runs" / "v2.jsonl"}
    results = rankeval_rs.evaluate(root / "qrels.txt", runs, ["ap", "ndcg@10"])
    compared = results.compare("baseline", gates=["ap:superior"])
    rows = compared.rows()
    assert [(r["run"], r["metric"]) for r in rows] == [("v2", "ap"), ("v2", "ndcg@10")]
    for row, cell in zip(rows, compared.comparisons):
        assert list(row) == list(compared.COLUMNS)
        assert row["difference"] == cell["difference"] and row["p_value"] == cell["p_value"]
        assert (row["interval_lower"], row["interval_upper"]) == (cell["interval"]["lower"], cell["interval"]["upper"])
    frame = compared.to_pandas()
    assert list(frame.columns) == list(compared.COLUMNS) and len(frame) == 2
    assert frame["corrected_p_value"].tolist() == [r["corrected_p_value"] for r in rows]
    table = compared.to_arrow()
    assert isinstance(table, pa.Table) and table.column_names == list(compared.COLUMNS)
    assert table.column("candidate_mean").to_pylist() == [r["candidate_mean"] for r in rows]
    html = compared._repr_html_()
    assert html.count("<tr>") == 3 and f"<td>{rows[0]['difference']:.4f}</td>" in html
    assert ("FAIL" in html) != compared.passed
