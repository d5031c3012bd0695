"""The package gives the CLI's numbers bit for bit: every metric `rankeval
metrics` lists, by default and with its example parameters, on the same
files, with each option."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import rankeval_rs

from conftest import cli, cli_json


def cli_metrics() -> list[tuple[str, str, bool, bool]]:
    """(name, example, takes a cutoff k, has a required parameter) of every
    metric `rankeval metrics` lists."""
    done = cli("metrics")
    assert done.returncode == 0, done.stderr
    text = done.stdout.split("Aggregators")[0]
    blocks = re.split(r"^  (?=[a-z])", text, flags=re.M)[1:]
    listed = []
    for block in blocks:
        name = re.match(r"[a-z][a-z0-9_]*", block).group(0)
        example = re.search(r"^      example: (\S+)$", block, re.M).group(1)
        cutoff = re.search(r"^      k ", block, re.M) is not None
        required = re.search(r"^      [a-z_]+(?: \([a-z_]+\))?\s+required\b", block, re.M)
        listed.append((name, example, cutoff, required is not None))
    assert listed
    return listed


def all_specs() -> list[str]:
    specs = []
    for name, example, cutoff, required in cli_metrics():
        if required:
            # No bare form: the example gives the required parameter.
            specs.append(example)
        else:
            specs += [name, f"{name}@5", example] if cutoff else [name, example]
    return list(dict.fromkeys(specs))


def subtopics_of(qrels: Path, directory: Path) -> Path:
    """Subtopic judgements made from TREC qrels, so that the diversity
    metrics (which need them) are compared too: each judgement for subtopic
    `a`, and every other one for subtopic `b` with its grade minus 1."""
    lines = []
    for i, line in enumerate(qrels.read_text().splitlines()):
        if not line.strip():
            continue
        query, _, doc, grade = line.split()
        lines.append(f"{query} a {doc} {grade}")
        if i % 2:
            lines.append(f"{query} b {doc} {float(grade) - 1!r}")
    path = directory / "subtopics.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


TRAIN_INSTANCES = 1000


def label_counts_of(qrels: Path, directory: Path) -> Path:
    """Training label frequencies for every document of TREC qrels (every
    third left out: count 0), so that the propensity-scored metrics (which
    need them) are compared too; out of `TRAIN_INSTANCES`."""
    docs = dict.fromkeys(line.split()[2] for line in qrels.read_text().splitlines() if line.strip())
    rows = [f"{doc},{(7 * i) % 97}" for i, doc in enumerate(docs) if i % 3]
    path = directory / "counts.csv"
    path.write_text("label,count\n" + "\n".join(rows) + "\n")
    return path


def doc_groups_of(qrels: Path, directory: Path) -> Path:
    """Document groups for every document of TREC qrels (every fifth in
    none, every fourth in a second group with weight 0.5), so that the
    group-fairness metrics (which need them) are compared too."""
    docs = dict.fromkeys(line.split()[2] for line in qrels.read_text().splitlines() if line.strip())
    rows = []
    for i, doc in enumerate(docs):
        if i % 5:
            rows.append(f"{doc},{'abc'[i % 3]},1")
        if i % 4 == 0:
            rows.append(f"{doc},d,0.5")
    path = directory / "groups.csv"
    path.write_text("doc,group,weight\n" + "\n".join(rows) + "\n")
    return path


def test_the_cli_lists_the_metrics_the_package_knows():
    assert [name for name, _, _, _ in cli_metrics()] == list(rankeval_rs.metric_names())


def assert_same(result: rankeval_rs.Evaluation, report: dict) -> None:
    (run,) = report["runs"]
    assert result.metrics == list(run["metrics"])
    for index, metric in enumerate(result.metrics):
        expected = run["per_query"][metric]
        assert result.queries == list(expected)
        values = result.values[:, index]
        for query, value in zip(result.queries, values):
            assert value == expected[query] and type(expected[query]) in (int, float), (metric, query)
        assert result.means[metric] == run["metrics"][metric]["mean"], metric


@pytest.mark.parametrize(
    "options,cli_options",
    [
        ({}, []),
        ({"missing": "zero"}, ["--missing", "zero"]),
        ({"rel": 2}, ["--rel", "2"]),
    ],
)
def test_every_metric_equals_the_cli_bit_for_bit(files, options, cli_options, tmp_path):
    specs = all_specs()
    subtopics = subtopics_of(files.qrels_trec, tmp_path)
    counts = label_counts_of(files.qrels_trec, tmp_path)
    groups = doc_groups_of(files.qrels_trec, tmp_path)
    report = cli_json(files.qrels_trec, files.run_trec, specs, *cli_options,
                      "--subtopic-qrels", str(subtopics), "--label-counts", str(counts),
                      "--train-instances", str(TRAIN_INSTANCES), "--doc-groups", str(groups))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankeval_rs.RankevalWarning)
        result = rankeval_rs.evaluate(files.qrels_trec, files.run_trec, specs, **options,
                                      subtopic_qrels=subtopics, label_counts=counts,
                                      train_instances=TRAIN_INSTANCES, doc_groups=groups)
    assert len(result.metrics) == len(specs)
    assert_same(result, report)


@pytest.mark.parametrize("run", ["run_trec", "run_csv", "run_jsonl"])
def test_each_file_format_equals_the_cli(files, run):
    specs = ["ap", "ndcg@10", "ap(norm=truncated)@10", "p@10", "rr", "bpref"]
    path = getattr(files, run)
    report = cli_json(files.qrels_trec, path, specs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankeval_rs.RankevalWarning)
        assert_same(rankeval_rs.evaluate(files.qrels_trec, path, specs), report)


def test_duplicates_first_equals_the_cli(files, tmp_path):
    run = tmp_path / "dup.trec"
    lines = files.run_trec.read_text().splitlines()
    run.write_text("\n".join(lines + lines[:3]) + "\n")
    report = cli_json(files.qrels_trec, run, ["ap", "p@5"], "--duplicates", "first")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rankeval_rs.evaluate(files.qrels_trec, run, ["ap", "p@5"], duplicates="first")
    assert "run `dup`: 3 entries of the run repeated a document" in [str(w.message)[:51] for w in caught]
    assert_same(result, report)


def test_warnings_say_what_the_cli_says(files):
    done = cli("eval", "--qrels", str(files.qrels_trec), "--run", str(files.run_trec), "-m", "ap")
    expected = [line.removeprefix("warning: ") for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert len(expected) == 2  # queries only in the run, queries only in the qrels
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rankeval_rs.evaluate(files.qrels_trec, files.run_trec, "ap")
    texts = [str(w.message) for w in caught if issubclass(w.category, rankeval_rs.RankevalWarning)]
    # The same words, but the option named as Python takes it (a keyword
    # argument), not as a flag and a TOML key.
    in_python = [e.replace('--missing zero; TOML: missing = "zero"', 'missing="zero"') for e in expected]
    assert in_python != expected, "the CLI's warning names --missing"
    assert texts == in_python == result.warnings
    assert not any("--" in text or "TOML" in text for text in texts), texts


def test_several_runs_are_named_as_the_cli_names_them(files):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankeval_rs.RankevalWarning)
        results = rankeval_rs.evaluate(files.qrels_trec, [files.run_trec, files.run_csv], ["ap"])
    # Both stems are `run`, so the paths name them, as on the command line.
    assert list(results) == [str(files.run_trec), str(files.run_csv)]
    first, second = results.values()
    assert np.array_equal(first.values, second.values)


def test_a_gzipped_run_is_named_as_every_command_names_it(files, tmp_path):
    # One naming rule (`rankeval::naming`): `bm25.trec.gz` is `bm25` in
    # `evaluate` as in `rankeval eval`, `ppi`, `agree`, `expected`, `spans`.
    import gzip
    run = tmp_path / "bm25.trec.gz"
    run.write_bytes(gzip.compress(files.run_trec.read_bytes()))
    results = rankeval_rs.evaluate(files.qrels_trec, [run], ["ap"])
    done = cli("eval", "--qrels", str(files.qrels_trec), "--run", str(run), "-m", "ap",
               "--format", "json")
    assert done.returncode == 0, done.stderr
    assert list(results) == ["bm25"]
    assert [r["name"] for r in json.loads(done.stdout)["runs"]] == ["bm25"]
