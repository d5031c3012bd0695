"""The MLflow and W&B recipe of docs/history.md, run as written against
stand-ins of `mlflow.log_metrics` and `wandb.log` that check what those
take (a dict of metric names to floats, a whole-number step): the JSON
Lines export is tested against the format, without depending on either."""

from __future__ import annotations

import json
import re
import sys
import types

from conftest import ROOT, cli

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq2 0 d 1\nq3 0 e 1\n"
RUNS = {
    "bm25.trec": "q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 c 1 2 t\nq2 Q0 d 2 1 t\nq3 Q0 x 1 1 t\n",
    "dense.trec": "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 d 1 2 t\nq2 Q0 c 2 1 t\nq3 Q0 e 1 1 t\n",
}


def recipe() -> str:
    """The recipe's Python block from docs/history.md, as written."""
    text = (ROOT / "docs" / "history.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    (block,) = [b for b in blocks if "log_metrics" in b]
    return block


def logger(calls: list) -> types.FunctionType:
    """A stand-in of `log_metrics(metrics, step=None)` / `log(data, step=None)`."""

    def log(metrics, step=None):  # noqa: ANN001, ANN202
        assert isinstance(metrics, dict) and metrics, metrics
        for name, value in metrics.items():
            assert isinstance(name, str), name
            assert isinstance(value, float) and not isinstance(value, bool), (name, value)
        assert isinstance(step, int) and not isinstance(step, bool), step
        calls.append((step, metrics))

    return log


def test_the_recipe_logs_every_records_means(tmp_path, monkeypatch):
    (tmp_path / "qrels.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    db = tmp_path / "history.sqlite"
    for runs in (["bm25.trec"], ["bm25.trec", "dense.trec"]):
        args = ["eval", "--qrels", str(tmp_path / "qrels.txt"), "-m", "ap", "-m", "ndcg@10",
                "--record", str(db)]
        for run in runs:
            args += ["--run", str(tmp_path / run)]
        done = cli(*args)
        assert done.returncode == 0, done.stderr
    done = cli("history", "export", str(db), "--format", "jsonl", "-o",
               str(tmp_path / "history.jsonl"))
    assert done.returncode == 0, done.stderr
    listed = json.loads(cli("history", str(db), "--format", "json").stdout)
    expected = [(r["id"], r["means"]) for r in listed["records"]]
    assert len(expected) == 3

    monkeypatch.chdir(tmp_path)
    code = recipe()
    mlflow_calls: list = []
    monkeypatch.setitem(sys.modules, "mlflow",
                        types.SimpleNamespace(log_metrics=logger(mlflow_calls)))
    exec(compile(code, "docs/history.md", "exec"), {})
    assert mlflow_calls == expected

    # The W&B line given in the recipe's comment, run the same way.
    (wandb_line,) = re.findall(r"wandb\.log\(.*\)", code)
    wandb_code = code.replace("import json, mlflow", "import json, wandb").replace(
        re.search(r"mlflow\.log_metrics\(.*\)", code).group(0), wandb_line)
    wandb_calls: list = []
    monkeypatch.setitem(sys.modules, "wandb", types.SimpleNamespace(log=logger(wandb_calls)))
    exec(compile(wandb_code, "docs/history.md", "exec"), {})
    assert wandb_calls == expected
