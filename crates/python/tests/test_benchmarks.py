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
