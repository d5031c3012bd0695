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
