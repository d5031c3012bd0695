"""Results are usable without the optional extra: `to_dict()` needs neither
pandas nor pyarrow, and what returns a pandas or Arrow object says which
extra installs it; `__version__` is the workspace's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rankeval_rs

from conftest import cli

ROOT = Path(__file__).resolve().parents[3]
QUICKSTART = ROOT / "examples" / "quickstart"


def _evaluate():
    return rankeval_rs.evaluate(QUICKSTART / "qrels.txt", QUICKSTART / "runs" / "baseline.trec", ["ap", "ndcg@10"])


def test_to_dict_holds_every_value_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    result = _evaluate()
    values = result.to_dict()
    assert list(values) == result.queries
    for q, query in enumerate(result.queries):
        assert values[query] == {"ap": result.values[q][0], "ndcg@10": result.values[q][1]}
    assert sum(v["ap"] for v in values.values()) / len(values) == pytest.approx(result.means["ap"], abs=1e-15)


@pytest.mark.parametrize("method, module", [("per_query", "pandas"), ("to_arrow", "pyarrow")])
def test_a_pandas_or_arrow_result_names_the_extra_when_it_is_missing(monkeypatch, method, module):
    result = _evaluate()
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=re.escape('pip install "rankeval-rs[pandas]"')):
        getattr(result, method)()


def test_the_version_is_the_workspaces_and_names_the_commit():
    cargo = (ROOT / "Cargo.toml").read_text()
    version = re.search(r'\[workspace\.package\]\s*\nversion = "([^"]+)"', cargo)
    assert version is not None
    # The commit the package was built from: scripts/release/test-wheel.sh runs a copy
    # of these tests outside any checkout and names it (empty for a wheel built
    # from the sdist); here, the checkout's HEAD.
    head = os.environ.get("RANKEVAL_EXPECTED_COMMIT")
    if head is None:
        try:
            head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True,
                                  text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            head = ""
    assert rankeval_rs.__version__ == (f"{version.group(1)}+{head}" if head else version.group(1))
    # `rankeval --version` prints the same.
    assert cli("--version").stdout == f"rankeval {rankeval_rs.__version__}\n"


def test_a_single_run_is_named_with_name():
    with pytest.warns(rankeval_rs.RankevalWarning, match=r'^run `bm25`: 5 judged queries .*use missing="zero"\)'):
        result = rankeval_rs.evaluate(QUICKSTART / "qrels.txt", {"q1": ["d1"]}, ["ap"], name="bm25")
    assert result.run == "bm25"
    with pytest.raises(ValueError, match="name= names one run"):
        rankeval_rs.evaluate(QUICKSTART / "qrels.txt", {"a": {"q1": ["d1"]}, "b": {"q1": ["d2"]}}, "ap", name="x")
    with pytest.raises(ValueError, match="control character"):
        rankeval_rs.evaluate(QUICKSTART / "qrels.txt", {"q1": ["d1"]}, "ap", name="a\tb")


def test_notebooks_show_the_means_as_an_html_table():
    one = _evaluate()
    html = one._repr_html_()
    assert html.startswith("<table>") and "<th>baseline</th>" in html
    assert f"<td>{one.means['ap']:.4f}</td>" in html and "<th>ndcg@10</th>" in html
    runs = {"a<b": QUICKSTART / "runs" / "baseline.trec", "v2": QUICKSTART / "runs" / "v2.jsonl"}
    both = rankeval_rs.evaluate(QUICKSTART / "qrels.txt", runs, ["ap"])
    html = both._repr_html_()
    assert "<th>a&lt;b</th>" in html and "<th>v2</th>" in html
    assert f"<td>{both['v2'].means['ap']:.4f}</td>" in html


def test_importing_the_package_imports_no_numpy_pandas_or_arrow():
    # A quick `import rankeval_rs` (scripts/release/test-wheel.sh measures it): numpy,
    # pandas and pyarrow are imported where they are first used.
    code = "import sys, rankeval_rs; print(sorted(m for m in ('numpy', 'pandas', 'pyarrow', 'polars') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"
