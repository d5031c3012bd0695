#!/usr/bin/env python3
"""Writes the reference values that crates/stats's agreement tests check
against (crates/stats/src/agreement.rs).

Run from anywhere: `python3 scripts/data/agreement.py`. Like
scripts/data/compare.py it creates (or reuses) the virtual environment
target/compare-venv (under $CARGO_TARGET_DIR when that is set, so a git
worktree sharing a target directory shares the venv), installs scipy, numpy
and scikit-learn there, re-runs itself there, and writes
crates/stats/tests/data/agreement.json. The fixture is committed; rerun
this script only to refresh it (the output is deterministic for given
library versions, which are recorded in the file).

Reference tools:
  * sklearn.metrics.cohen_kappa_score(a, b, weights=None|"linear"|"quadratic")
    and sklearn.metrics.confusion_matrix(a, b); the kappa of each label,
    one against the rest: cohen_kappa_score(a == x, b == x);
  * scipy.stats.kendalltau(x, y) (defaults: variant "b", method "auto");
  * statistics.fmean of the differences b - a (mean_difference).

scikit-learn refuses grades that are not integers ("continuous is not
supported"). For decimal grades (0, 0.5, ..., 3.5) the reference is computed
on each grade's position in the sorted union of both raters' grades, which
is what scikit-learn does with labels it accepts (its weights are functions
of those positions, not of the values).

Grades (multiples of 0.5) are written as plain JSON numbers: their decimal
forms are exact, and they keep the file small. Kendall's inputs, the
mean-difference columns and exactly-compared outputs are IEEE-754 bit
patterns (`*_bits`); NaN, which JSON cannot hold, is a bit pattern too.
"""

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
VENV = TARGET / "compare-venv"
OUT = ROOT / "crates" / "stats" / "tests" / "data"


def ensure_venv():
    """Re-executes this script inside the venv, creating it if needed."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    subprocess.check_call(
        [str(python), "-m", "pip", "install", "-q", "scipy", "numpy", "scikit-learn"]
    )
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def kappa_reference(a, b):
    """scikit-learn's kappas, confusion matrix and per-label kappas."""
    import warnings

    import numpy as np
    from sklearn.metrics import cohen_kappa_score, confusion_matrix

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    labels = np.unique(np.concatenate([a, b]))
    integral = bool(np.all(labels == np.round(labels)))
    if integral:
        ya, yb = a, b
    else:
        # Positions in the sorted label list (see the module docstring).
        ya, yb = np.searchsorted(labels, a), np.searchsorted(labels, b)
    out = {"labels": [float(v) for v in labels], "sklearn_input": "values" if integral else "positions"}
    with warnings.catch_warnings():
        # Degenerate cases: scikit-learn warns and returns NaN.
        warnings.simplefilter("ignore")
        for name, weights in [("none", None), ("linear", "linear"), ("quadratic", "quadratic")]:
            out[f"kappa_{name}_bits"] = bits(cohen_kappa_score(ya, yb, weights=weights))
        out["confusion"] = confusion_matrix(ya, yb).tolist()
        out["per_label_bits"] = [bits(cohen_kappa_score(a == x, b == x)) for x in labels]
    return out


def kappa_cases(rng):
    import numpy as np

    cases = []

    def add(name, a, b):
        a = [float(v) for v in a]
        b = [float(v) for v in b]
        cases.append({"name": name, "a": a, "b": b, **kappa_reference(a, b)})

    def correlated(n, top, agree):
        """Grades 0..top: b equals a with probability `agree`, else a
        neighbouring or random grade."""
        a = rng.integers(0, top + 1, size=n)
        noise = rng.choice([-1, 1], size=n)
        near = np.clip(a + noise, 0, top)
        far = rng.integers(0, top + 1, size=n)
        u = rng.uniform(size=n)
        b = np.where(u < agree, a, np.where(u < agree + (1 - agree) / 2, near, far))
        return a, b

    for n, top, agree in [(5, 3, 0.4), (12, 3, 0.5), (30, 4, 0.6), (100, 3, 0.7),
                          (250, 4, 0.4), (700, 3, 0.8), (2000, 4, 0.55)]:
        add(f"grades 0-{top}, n={n}", *correlated(n, top, agree))
    # Independent raters: kappa near 0, possibly negative.
    add("independent grades 0-3, n=60", rng.integers(0, 4, size=60), rng.integers(0, 4, size=60))
    # Decimal grades 0, 0.5, ..., 3.5.
    for n, agree in [(40, 0.5), (400, 0.6)]:
        a, b = correlated(n, 7, agree)
        add(f"decimal grades 0-3.5, n={n}", a / 2, b / 2)
    # Labels only one rater uses: 4 only in a, 1 only in b.
    a = [0, 4, 2, 2, 3, 0, 4, 3, 2, 0, 3]
    b = [0, 3, 2, 1, 3, 1, 2, 3, 2, 0, 1]
    add("labels used by one rater only", a, b)
    # Unevenly spaced labels: weights follow positions, not values.
    add("labels 0, 1, 5, 10", [0, 1, 5, 10, 10, 5, 0, 1, 10], [0, 5, 5, 10, 1, 5, 0, 0, 10])
    add("perfect agreement", [0, 1, 2, 3, 2, 1, 0, 3], [0, 1, 2, 3, 2, 1, 0, 3])
    add("complete disagreement, 2 labels", [0, 1, 0, 1], [1, 0, 1, 0])
    add("both raters constant and equal (NaN)", [2, 2, 2, 2, 2], [2, 2, 2, 2, 2])
    add("both raters constant, different", [1, 1, 1], [3, 3, 3])
    add("one item", [1], [1])
    add("one rater constant", [1, 1, 1, 1, 1, 1], [0, 1, 2, 1, 1, 3])
    return cases


def kendall_cases(rng):
    import warnings

    import numpy as np
    from scipy import stats

    cases = []

    def add(name, x, y):
        x = [float(v) for v in x]
        y = [float(v) for v in y]
        with warnings.catch_warnings():
            # n = 1: scipy warns that the sample is too small (NaN).
            warnings.simplefilter("ignore")
            res = stats.kendalltau(x, y)
        cases.append({"name": name, "x_bits": [bits(v) for v in x], "y_bits": [bits(v) for v in y],
                      "statistic_bits": bits(res.statistic), "p_value_bits": bits(res.pvalue)})

    def related(n, noise):
        x = rng.beta(2.0, 3.0, size=n)
        return x, x + rng.normal(0.0, noise, size=n)

    # No ties, n <= 33: the exact p-value.
    for n, noise in [(2, 0.1), (3, 0.1), (4, 0.1), (5, 0.2), (8, 0.1), (10, 0.3),
                     (20, 0.1), (33, 0.2), (33, 1.0)]:
        add(f"no ties, n={n}", *related(n, noise))
    # No ties, n > 33: asymptotic, unless at most one pair is (dis)concordant.
    for n, noise in [(34, 0.2), (60, 0.1), (500, 0.3)]:
        add(f"no ties, n={n}", *related(n, noise))
    x = np.sort(rng.uniform(size=50))
    add("n=50, identical order (exact, c=0)", x, x * 2 + 1)
    y = x.copy()
    y[[10, 11]] = y[[11, 10]]
    add("n=50, one swap (exact, c=1)", x, y)
    add("n=40, reversed (exact, c=0)", x[:40], -x[:40])
    add("n=200, reversed (exact, n >= 171: p=0)", np.arange(200.0), -np.arange(200.0))
    # 4c = n(n - 1): tau 0, p 1.
    add("n=4, tau 0", [1, 2, 3, 4], [2, 4, 1, 3])
    # Ties: the asymptotic p-value with the tie-corrected variance.
    for n, step in [(6, 0.25), (15, 0.1), (30, 0.2), (300, 0.05)]:
        x, y = related(n, 0.15)
        add(f"ties, n={n}, step {step}", np.round(x / step) * step, np.round(y / step) * step)
    add("ties in x only, n=12", np.round(rng.uniform(size=12) * 3), rng.uniform(size=12))
    add("three values", [0, 1, 1], [0, 0, 1])
    # Every pair tied in one ranking: scipy returns NaN.
    add("x constant", [1, 1, 1, 1], [1, 2, 3, 4])
    add("y constant", [3, 1, 2], [5, 5, 5])
    add("both constant", [0, 0], [0, 0])
    add("one value", [1], [2])
    return cases


def mean_difference_cases(rng):
    from statistics import fmean

    cases = []
    for n in [1, 7, 50]:
        a = [float(v) for v in rng.beta(2.0, 3.0, size=n)]
        b = [float(v) for v in rng.beta(2.0, 3.0, size=n)]
        cases.append({"a_bits": [bits(v) for v in a], "b_bits": [bits(v) for v in b],
                      "mean_bits": bits(fmean([y - x for x, y in zip(a, b)]))})
    return cases


def main():
    ensure_venv()
    import numpy
    import scipy
    import sklearn

    OUT.mkdir(parents=True, exist_ok=True)
    payload = {
        "generator": "scripts/data/agreement.py",
        "versions": {
            "python": sys.version.split()[0],
            "numpy": numpy.__version__,
            "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__,
        },
        "functions": {
            "kappa": "sklearn.metrics.cohen_kappa_score(a, b, weights=...); "
                     "confusion_matrix(a, b); per label cohen_kappa_score(a == x, b == x)",
            "kendall": "scipy.stats.kendalltau(x, y)",
            "mean_difference": "statistics.fmean(b - a)",
        },
        "kappa": kappa_cases(numpy.random.default_rng(20270127)),
        "kendall": kendall_cases(numpy.random.default_rng(20270128)),
        "mean_difference": mean_difference_cases(numpy.random.default_rng(20270129)),
    }
    path = OUT / "agreement.json"
    path.write_text(json.dumps(payload, allow_nan=False) + "\n")
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
