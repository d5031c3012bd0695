"""The README's Python snippet runs as written, from the root of a clone,
and prints the means the README's table shows for the same run."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _snippet() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## From Python", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no Python block under '## From Python'"
    return match.group(1)


def test_the_readme_python_snippet_runs_as_written(monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_snippet(), "README.md", "exec"), namespace)
    result = namespace["result"]
    # The README's quickstart table: baseline ndcg@10 0.6063, MAP@10 0.4574.
    assert round(result.means["ndcg@10"], 4) == 0.6063
    assert round(result.means["ap(norm=truncated)@10"], 4) == 0.4574
    assert str(result.means) in out.getvalue()
