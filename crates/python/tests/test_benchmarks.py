"""`qrels="irds:<id>"`: an ir_datasets id's qrels read from ir_datasets'
cache (``$IR_DATASETS_HOME``), in the format ir_datasets keeps them, as
``rankeval eval --qrels irds:<id>`` reads them (docs/benchmarks.md)."""

from __future__ import annotations

import pytest

import rankeval_rs


def test_irds_qrels_are_read_from_ir_datasets_cache(tmp_path, monkeypatch):
    home = tmp_path / "home"
    beir = home / "beir" / "scifact"
    beir.mkdir(parents=True)
    # BEIR's TSV with its header, where ir_datasets extracts it.
    (beir / "test.qrels").write_text("query-id\tcorpus-id\tscore\n1\ta\t1\n1\tb\t1\n2\tc\t1\n")
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 3 t\n1 Q0 x 2 2 t\n2 Q0 c 1 1 t\n")
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    result = rankeval_rs.evaluate("irds:beir/scifact/test", str(run), ["recall", "rr"])
    assert result["recall"] == pytest.approx((0.5 + 1.0) / 2)
    assert result["rr"] == 1.0


def test_a_missing_cache_gives_the_command_that_fills_it(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path))
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 3 t\n")
    with pytest.raises(rankeval_rs.InputError) as raised:
        rankeval_rs.evaluate("irds:beir/arguana", str(run), ["rr"])
    assert "ir_datasets export beir/arguana qrels > /dev/null" in str(raised.value)


def _beir_toy(tmp_path, monkeypatch):
    """beir-cellar/beir#187's toy in ir_datasets' cache for beir/arguana: query
    `0` whose relevant documents are `0`..`9`, a run retrieving exactly them;
    with BEIR's convention nDCG@10 is 0.936379, without it 1."""
    home = tmp_path / "home"
    arguana = home / "beir" / "arguana"
    arguana.mkdir(parents=True)
    arguana.joinpath("test.qrels").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"0\t{d}\t1\n" for d in range(10)))
    run = tmp_path / "run.trec"
    run.write_text("".join(f"0 Q0 {d} {d + 1} {10 - d} t\n" for d in range(10))
                   + "1 Q0 5 1 2 t\n1 Q0 0 2 1 t\n")
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    return run


def test_drop_identical_ids_is_the_flags_convention(tmp_path, monkeypatch):
    run = _beir_toy(tmp_path, monkeypatch)
    assert rankeval_rs.evaluate("irds:beir/arguana", str(run), ["ndcg@10"])["ndcg@10"] == 1.0
    with pytest.warns(rankeval_rs.RankevalWarning, match="the query's own id"):
        dropped = rankeval_rs.evaluate("irds:beir/arguana", str(run), ["ndcg@10"],
                                       drop_identical_ids=True)
    assert f"{dropped['ndcg@10']:.6f}" == "0.936379"
    # Corpus metrics count the same lists: the run without the line by hand.
    by_hand = tmp_path / "by_hand.trec"
    by_hand.write_text("".join(line + "\n" for line in run.read_text().splitlines()
                               if not line.startswith("0 Q0 0 ")))
    hand = rankeval_rs.evaluate("irds:beir/arguana", str(by_hand), ["ndcg@10", "entropy@10"])
    with pytest.warns(rankeval_rs.RankevalWarning):
        both = rankeval_rs.evaluate("irds:beir/arguana", str(run), ["ndcg@10", "entropy@10"],
                                    drop_identical_ids=True)
    assert both.corpus["entropy@10"] == hand.corpus["entropy@10"]
    plain = rankeval_rs.evaluate("irds:beir/arguana", str(run), ["ndcg@10", "entropy@10"])
    assert plain.corpus["entropy@10"] != hand.corpus["entropy@10"]


def test_official_evaluates_the_cards_measures(tmp_path, monkeypatch):
    run = _beir_toy(tmp_path, monkeypatch)
    with pytest.warns(rankeval_rs.RankevalWarning):
        official = rankeval_rs.evaluate("irds:beir/arguana", str(run), official=True)
    # The card's measure under its reported name, BEIR's identical ids dropped.
    assert official.metrics == ["nDCG@10"]
    assert f"{official['nDCG@10']:.6f}" == "0.936379"
    # Named, for qrels of one's own; the same numbers.
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"0 0 {d} 1\n" for d in range(10)))
    with pytest.warns(rankeval_rs.RankevalWarning):
        named = rankeval_rs.evaluate(str(qrels), str(run), official="beir/arguana")
    assert named["nDCG@10"] == official["nDCG@10"]
    # Another benchmark than the qrels' is refused, naming the keyword.
    with pytest.raises(ValueError, match="official=.*names beir/quora/test, but the qrels are "
                                         "beir/arguana's"):
        rankeval_rs.evaluate("irds:beir/arguana", str(run), official="beir/quora/test")
    # Qrels of one's own and official=True: which benchmark?
    with pytest.raises(ValueError, match=r"which benchmark\? give qrels= irds:<id>"):
        rankeval_rs.evaluate(str(qrels), str(run), official=True)
    with pytest.raises(ValueError, match="expected True, False or a benchmark id"):
        rankeval_rs.evaluate(str(qrels), str(run), official=3)


def test_fetch_runs_ir_datasets_only_for_irds_qrels(tmp_path, monkeypatch):
    run = _beir_toy(tmp_path, monkeypatch)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("0 0 1 1\n")
    with pytest.raises(ValueError, match="fetch=True: fills ir_datasets' cache"):
        rankeval_rs.evaluate(str(qrels), str(run), ["rr"], fetch=True)
    # A missing cache and a Python without ir_datasets: how to install it.
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "empty"))
    monkeypatch.setenv("RANKEVAL_PYTHON", "/bin/false")
    with pytest.raises(rankeval_rs.InputError, match="ir_datasets"):
        rankeval_rs.evaluate("irds:beir/arguana", str(run), ["rr"], fetch=True)


def test_report_takes_the_benchmark_keywords(tmp_path, monkeypatch):
    run = _beir_toy(tmp_path, monkeypatch)
    text = rankeval_rs.report("irds:beir/arguana", str(run), format="json", official=True)
    assert '"nDCG@10"' in text


#: An ir_metadata block as repro_eval writes it (`MetadataHandler.write_metadata`).
BLOCK = (
    "# ir_metadata.start\n"
    "# tag: bm25-rm3\n"
    "# actor:\n"
    "#   team: irc\n"
    "# research goal:\n"
    "#   evaluation:\n"
    "#     baseline:\n"
    "#     - bm25\n"
    "#     - 'qld'\n"
    "# ir_metadata.end\n"
)


def test_the_run_files_ir_metadata_is_on_the_result(tmp_path):
    import json

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n")
    lines = "q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 c 1 1 t\n"
    with_block = tmp_path / "run.trec"
    with_block.write_text(BLOCK + lines)
    plain = tmp_path / "plain.trec"
    plain.write_text(lines)
    result = rankeval_rs.evaluate(str(qrels), str(with_block), ["ap", "ndcg@10"])
    assert result.ir_metadata == {
        "tag": "bm25-rm3",
        "fields": {
            "tag": "bm25-rm3",
            "actor.team": "irc",
            "research goal.evaluation.baseline[0]": "bm25",
            "research goal.evaluation.baseline[1]": "qld",
        },
    }
    # As the JSON report has it, and the same values as without the block.
    text = rankeval_rs.report(str(qrels), str(with_block), ["ap", "ndcg@10"], format="json")
    assert json.loads(text)["runs"][0]["ir_metadata"] == result.ir_metadata
    without = rankeval_rs.evaluate(str(qrels), str(plain), ["ap", "ndcg@10"])
    assert without.ir_metadata is None
    assert without.means == result.means
    both = rankeval_rs.evaluate(str(qrels), {"a": str(with_block), "b": str(plain)}, ["ap"])
    assert both["a"].ir_metadata == result.ir_metadata and both["b"].ir_metadata is None
    # Data in memory has no block.
    data = rankeval_rs.evaluate(str(qrels), {"q1": {"a": 1.0}}, ["ap"])
    assert data.ir_metadata is None


FORUMS = ["android", "english", "gaming", "gis", "mathematica", "physics", "programmers",
          "stats", "tex", "unix", "webmasters", "wordpress"]


def test_cqadupstack_is_the_mean_of_its_forums_means(tmp_path, monkeypatch):
    import random

    rng = random.Random(39)
    home = tmp_path / "home"
    runs = tmp_path / "runs"
    runs.mkdir()
    for f, forum in enumerate(FORUMS):
        folder = home / "beir" / "cqadupstack" / forum
        folder.mkdir(parents=True)
        qrels = ["query-id\tcorpus-id\tscore"]
        lines = []
        # Forum f has 1 + 2f queries, the same ids in every forum.
        for q in range(1, 2 + 2 * f):
            qrels += [f"{q}\td{d}\t1" for d in rng.sample(range(15), rng.randint(1, 3))]
            docs = rng.sample(range(15), 10)
            lines += [f"{q} Q0 d{d} {r + 1} {10 - r} t" for r, d in enumerate(docs)]
        (folder / "test.qrels").write_text("\n".join(qrels) + "\n")
        (runs / f"bm25-{forum}.trec").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    each = [
        rankeval_rs.evaluate(f"irds:beir/cqadupstack/{forum}",
                             str(runs / f"bm25-{forum}.trec"), ["ndcg@10"])
        for forum in FORUMS
    ]
    result = rankeval_rs.evaluate("irds:beir/cqadupstack", str(runs / "bm25-{forum}.trec"),
                                  ["ndcg@10"])
    assert result.run == "bm25"
    assert result.queries == FORUMS
    forum_means = [e["ndcg@10"] for e in each]
    assert list(result.values[:, 0]) == forum_means
    assert result["ndcg@10"] == pytest.approx(sum(forum_means) / 12, abs=1e-15)
    # Not the mean over every query.
    every = [v for e in each for v in e.values[:, 0]]
    assert abs(result["ndcg@10"] - sum(every) / len(every)) > 1e-3
    tex = result.groups["forum"]["tex"]
    assert tex.queries == each[8].queries and tex["ndcg@10"] == each[8]["ndcg@10"]
    # The summary counts forums and the forums' queries, as the CLI's table
    # does (its rows are forums: `queries=12` would mislead).
    total = sum(len(e.queries) for e in each)
    assert total == sum(1 + 2 * f for f in range(12))
    assert f"forums=12, queries={total}," in repr(result)
    html = result._repr_html_()
    assert "<th>forums</th><td>12</td>" in html and f"<th>queries</th><td>{total}</td>" in html
    assert "queries=" in repr(each[0]) and "forums" not in repr(each[0])
    # Named runs, official measures.
    named = rankeval_rs.evaluate("irds:beir/cqadupstack",
                                 {"mine": str(runs / "bm25-{forum}.trec")}, official=True)
    assert named["mine"]["nDCG@10"] == result["ndcg@10"]
    # A forum missing is an error naming it; data is no run per forum.
    (runs / "bm25-gis.trec").unlink()
    with pytest.raises(Exception, match="bm25-gis.trec"):
        rankeval_rs.evaluate("irds:beir/cqadupstack", str(runs / "bm25-{forum}.trec"),
                             ["ndcg@10"])
    with pytest.raises(ValueError, match="pattern with {forum}"):
        rankeval_rs.evaluate("irds:beir/cqadupstack", {"1": {"d1": 1.0}}, ["ndcg@10"])
