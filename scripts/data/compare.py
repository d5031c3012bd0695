#!/usr/bin/env python3
"""Writes the reference values that crates/stats's tests check against.

Run from anywhere: `python3 scripts/data/compare.py`. It creates (or
reuses) a virtual environment in target/compare-venv with scipy,
statsmodels and numpy, re-runs itself there, and writes JSON files to
crates/stats/tests/data/. The fixtures are committed; rerun this script
only to refresh them (the output is deterministic for given library
versions, which are recorded in each file).

Reference tools:
  * scipy.stats.ttest_rel and its confidence_interval  -> ttest.json
  * scipy.stats.wilcoxon (defaults)                    -> wilcoxon.json
  * scipy.stats.bootstrap (paired, percentile)         -> bootstrap.json
  * statsmodels multipletests (holm, bonferroni, fdr_bh) -> corrections.json
  * exact enumeration in rational arithmetic (fractions.Fraction) of the
    sign-flip test and of the randomized Tukey HSD       -> sign_flip.json,
                                                            tukey.json
  * the interval of one column's mean: scipy.stats.t.interval with
    scipy.stats.sem, and scipy.stats.bootstrap(method="BCa") -> intervals.json
  * a suite's macro average, its stratified bootstrap and the paired
    comparison across the suite, with numpy                -> macro.json
Inputs and exactly-compared outputs are written as IEEE-754 bit patterns
(`*_bits`, unsigned 64-bit integers), so no decimal parsing can move them
by an ulp; values compared with a tolerance are plain JSON numbers.
"""

import json
import os
import struct
import subprocess
import sys
from fractions import Fraction
from itertools import permutations, product
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "target" / "compare-venv"
OUT = ROOT / "crates" / "stats" / "tests" / "data"


def ensure_venv():
    """Re-executes this script inside the venv, creating it if needed."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    subprocess.check_call(
        [str(python), "-m", "pip", "install", "-q", "scipy", "statsmodels", "numpy"]
    )
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def columns(rng, n, step=None, noise=0.08, shift=0.01):
    """A metric-like baseline in [0, 1] and a candidate close to it;
    `step` quantizes both (as P@10 does), which makes ties and zeros."""
    import numpy as np

    base = rng.beta(2.0, 3.0, size=n)
    cand = np.clip(base + shift + rng.normal(0.0, noise, size=n), 0.0, 1.0)
    if step is not None:
        base = np.round(base / step) * step
        cand = np.round(cand / step) * step
    return [float(v) for v in base], [float(v) for v in cand]


def write(name, payload):
    import numpy
    import scipy
    import statsmodels

    payload = {
        "generator": "scripts/data/compare.py",
        "versions": {
            "python": sys.version.split()[0],
            "numpy": numpy.__version__,
            "scipy": scipy.__version__,
            "statsmodels": statsmodels.__version__,
        },
        **payload,
    }
    path = OUT / name
    path.write_text(json.dumps(payload, allow_nan=False) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")


def ttest_cases(rng):
    from scipy import stats

    cases = []
    shapes = [(2, None, 0.95), (3, None, 0.9), (5, None, 0.95), (12, 0.1, 0.99),
              (30, None, 0.95), (50, 0.1, 0.95), (200, None, 0.95), (1000, None, 0.8),
              (60, None, 0.999)]
    for n, step, level in shapes:
        base, cand = columns(rng, n, step)
        res = stats.ttest_rel(cand, base)
        ci = res.confidence_interval(confidence_level=level)
        cases.append({
            "baseline_bits": [bits(v) for v in base], "candidate_bits": [bits(v) for v in cand], "level": level,
            "statistic": float(res.statistic), "p_value": float(res.pvalue),
            "df": float(res.df), "lower": float(ci.low), "upper": float(ci.high),
        })
    # A large effect: a p-value far in the tail.
    base, cand = columns(rng, 40, None, noise=0.02, shift=0.05)
    res = stats.ttest_rel(cand, base)
    ci = res.confidence_interval(confidence_level=0.95)
    cases.append({
        "baseline_bits": [bits(v) for v in base], "candidate_bits": [bits(v) for v in cand], "level": 0.95,
        "statistic": float(res.statistic), "p_value": float(res.pvalue),
        "df": float(res.df), "lower": float(ci.low), "upper": float(ci.high),
    })
    write("ttest.json", {"function": "scipy.stats.ttest_rel(candidate, baseline)", "cases": cases})


def wilcoxon_cases(rng):
    from scipy import stats

    cases = []
    # (n, step): None = continuous (no ties, exact for n <= 50);
    # a step makes ties and zeros (enumeration for n <= 13, else normal).
    for n, step in [(6, None), (10, None), (25, None), (50, None), (51, None),
                    (8, 0.1), (13, 0.1), (14, 0.1), (40, 0.1), (120, 0.05), (300, None)]:
        base, cand = columns(rng, n, step)
        res = stats.wilcoxon(cand, base)
        cases.append({"baseline_bits": [bits(v) for v in base], "candidate_bits": [bits(v) for v in cand],
                      "statistic": float(res.statistic), "p_value": float(res.pvalue)})
    write("wilcoxon.json", {"function": "scipy.stats.wilcoxon(candidate, baseline)", "cases": cases})


def bootstrap_cases(rng):
    import numpy as np
    from scipy import stats

    cases = []
    for n, level in [(30, 0.95), (200, 0.95), (100, 0.9)]:
        base, cand = columns(rng, n)
        res = stats.bootstrap(
            (np.array(cand), np.array(base)),
            lambda c, b, axis: np.mean(c - b, axis=axis),
            paired=True, vectorized=True, method="percentile",
            confidence_level=level, n_resamples=10000, rng=np.random.default_rng(7),
        )
        cases.append({
            "baseline_bits": [bits(v) for v in base], "candidate_bits": [bits(v) for v in cand], "level": level, "resamples": 10000,
            "lower": float(res.confidence_interval.low),
            "upper": float(res.confidence_interval.high),
            "standard_error": float(res.standard_error),
        })
    write("bootstrap.json", {
        "function": "scipy.stats.bootstrap((candidate, baseline), mean of c - b, paired=True, method='percentile')",
        "cases": cases,
    })


def correction_cases(rng):
    from statsmodels.stats.multitest import multipletests

    families = [
        [0.01, 0.04, 0.03, 0.005],
        [0.5],
        [0.0, 1.0, 0.2, 0.2, 0.2, 0.9],
        [0.049, 0.049, 0.051, 0.8, 0.01, 0.3, 0.3, 0.0001],
        [float(p) for p in rng.uniform(0, 1, size=20)],
        [float(p) for p in rng.uniform(0, 0.05, size=15)],
        [float(p) for p in rng.beta(0.3, 2.0, size=40)],
        [1.0, 1.0, 0.99, 0.98],
        [],
    ]
    cases = []
    for ps in families:
        entry = {"p_bits": [bits(p) for p in ps]}
        for method in ["holm", "bonferroni", "fdr_bh"]:
            corrected = multipletests(ps, method=method)[1] if ps else []
            entry[method + "_bits"] = [bits(q) for q in corrected]
        cases.append(entry)
    write("corrections.json", {"function": "statsmodels.stats.multitest.multipletests(p, method)[1]",
                               "cases": cases})


# Sums closer than this count as ties. Values quantized to tenths are not
# exact binary floats: sums equal in decimal arithmetic differ by ~1e-17,
# and the test must treat them as equal; distinct sums differ by far more.
TIE = Fraction(1, 10**9)


def sign_flip_exact(d):
    """Exact two-sided sign-flip p: #{s : |sum s_i d_i| >= |sum d_i| - TIE}
    / 2^n, in rational arithmetic."""
    exact = [Fraction(x) for x in d]
    observed = abs(sum(exact)) - TIE
    count = 0
    for signs in product((1, -1), repeat=len(exact)):
        if abs(sum(s * x for s, x in zip(signs, exact))) >= observed:
            count += 1
    return count, 2 ** len(exact)


def sign_flip_cases(rng):
    cases = []
    for n, step, shift in [(2, None, 0.01), (5, None, 0.02), (9, None, 0.01), (12, 0.1, 0.03),
                           (14, 0.1, 0.0), (15, None, 0.04), (16, 0.25, 0.05)]:
        base, cand = columns(rng, n, step, shift=shift)
        d = [c - b for c, b in zip(cand, base)]
        count, total = sign_flip_exact(d)
        cases.append({"baseline_bits": [bits(v) for v in base], "candidate_bits": [bits(v) for v in cand], "extreme": count, "total": total})
    write("sign_flip.json", {"function": "exact enumeration, fractions.Fraction", "cases": cases})


def tukey_cases(rng):
    import numpy as np

    cases = []
    for k, n in [(3, 4), (4, 3), (2, 6)]:
        scores = [[float(v) for v in np.round(rng.beta(2, 3, size=n), 2)] for _ in range(k)]
        exact = [[Fraction(v) for v in col] for col in scores]
        sums = [sum(col) for col in exact]
        pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
        counts = {p: 0 for p in pairs}
        perms = list(permutations(range(k)))
        total = 0
        for choice in product(perms, repeat=n):
            total += 1
            s = [sum(exact[choice[q][sys]][q] for q in range(n)) for sys in range(k)]
            rng_ = max(s) - min(s)
            for a, b in pairs:
                if rng_ >= abs(sums[b] - sums[a]) - TIE:
                    counts[(a, b)] += 1
        cases.append({
            "systems_bits": [[bits(v) for v in col] for col in scores],
            "pairs": [{"first": a, "second": b, "extreme": counts[(a, b)]} for a, b in pairs],
            "total": total,
        })
    write("tukey.json", {"function": "exact enumeration of within-query permutations, fractions.Fraction",
                         "cases": cases})


def interval_columns(rng):
    """Per-query-metric-like columns for the interval of a mean: (name, values,
    level). Values on a grid of 1/1024 or 1/8 are exact in binary, so every
    mean of them that equals the observed one in exact arithmetic equals it
    in floating point too (scipy's `<` and `<=` then count ties as exact
    arithmetic does); tenths and continuous values are not."""
    import numpy as np

    def grid(x, step):
        return np.round(np.asarray(x) / step) * step

    out = []
    out.append(("5 values on a 1/1024 grid", grid(rng.beta(2.0, 3.0, size=5), 1 / 1024), 0.95))
    # P@8-like: eighths, most queries 0 or 1/8.
    out.append(("30 eighths, many zeros", rng.binomial(8, rng.beta(0.5, 2.5, size=30)) / 8, 0.95))
    out.append(("30 tenths, ties", grid(rng.beta(2.0, 3.0, size=30), 0.1), 0.9))
    out.append(("30 continuous", rng.beta(2.0, 3.0, size=30), 0.95))
    zeros = rng.uniform(size=200) < 0.6
    out.append(("200 on a 1/1024 grid, 60% zeros",
                np.where(zeros, 0.0, grid(rng.beta(2.0, 2.0, size=200), 1 / 1024)), 0.95))
    out.append(("200 skewed continuous", rng.beta(0.3, 3.0, size=200), 0.99))
    out.append(("12 on a 1/1024 grid, one large value",
                np.concatenate([grid(rng.uniform(0, 0.05, size=11), 1 / 1024), [1.0]]), 0.8))
    out.append(("2 values", grid(rng.uniform(size=2), 1 / 1024), 0.999))
    out.append(("1000 continuous", rng.beta(2.0, 5.0, size=1000), 0.8))
    return [(name, [float(v) for v in values], level) for name, values, level in out]


def interval_cases(rng):
    import numpy as np
    from scipy import stats
    from scipy._lib._array_api import array_namespace
    from scipy.special import ndtri
    from scipy.stats._resampling import _bca_interval, _percentile_of_score

    def mean(x, axis=-1):
        return np.mean(x, axis=axis)

    # BCa against scipy within Monte Carlo error: B resamples, and the
    # spread of scipy's bounds over REPLICATIONS seeds (which the tests use
    # to check that their tolerance covers the Monte Carlo error).
    B, REPLICATIONS = 10_000, 40
    # BCa from scipy's own bootstrap distribution (stored): exact formulae.
    B_EXACT = 1_000
    cases = []
    for name, values, level in interval_columns(rng):
        x = np.array(values)
        n = len(values)
        t_low, t_high = stats.t.interval(level, df=n - 1, loc=np.mean(x), scale=stats.sem(x))
        res = stats.bootstrap((x,), mean, method="BCa", confidence_level=level,
                              n_resamples=B, rng=np.random.default_rng(11))
        bounds = []
        for r in range(REPLICATIONS):
            rep = stats.bootstrap((x,), mean, method="BCa", confidence_level=level,
                                  n_resamples=B, rng=np.random.default_rng(1000 + r))
            bounds.append((rep.confidence_interval.low, rep.confidence_interval.high))
        bounds = np.array(bounds)
        exact = stats.bootstrap((x,), mean, method="BCa", confidence_level=level,
                                n_resamples=B_EXACT, rng=np.random.default_rng(13))
        dist = exact.bootstrap_distribution
        alpha_1, alpha_2, a_hat = _bca_interval(
            (x,), mean, axis=-1, alpha=(1 - level) / 2, theta_hat_b=dist, batch=None,
            xp=array_namespace(x))
        theta_hat = np.mean(x)
        z0 = ndtri(_percentile_of_score(dist, theta_hat, axis=-1, xp=array_namespace(x)))
        # Resampled means within 1e-9 of the observed one but not equal to
        # it: ties in exact arithmetic that rounding may have split, which
        # scipy counts as < or >, and the tests count as ties.
        near = int(np.count_nonzero((dist != theta_hat) & (np.abs(dist - theta_hat) <= 1e-9)))
        cases.append({
            "name": name, "values_bits": [bits(v) for v in values], "level": level,
            "t": {"lower": float(t_low), "upper": float(t_high)},
            "bca": {
                "resamples": B,
                "lower": float(res.confidence_interval.low),
                "upper": float(res.confidence_interval.high),
                "standard_error": float(res.standard_error),
                "replications": REPLICATIONS,
                "lower_sd": float(np.std(bounds[:, 0], ddof=1)),
                "upper_sd": float(np.std(bounds[:, 1], ddof=1)),
            },
            "bca_exact": {
                "distribution_bits": [bits(v) for v in dist],
                "near_ties": near,
                "lower": float(exact.confidence_interval.low),
                "upper": float(exact.confidence_interval.high),
                "z0": float(z0), "acceleration": float(a_hat),
                "alpha_1": float(alpha_1), "alpha_2": float(alpha_2),
            },
        })
    write("intervals.json", {
        "function": "scipy.stats.t.interval(level, df=n-1, loc=mean, scale=sem); "
                    "scipy.stats.bootstrap((values,), mean, method='BCa')",
        "cases": cases,
    })


def macro_cases(rng):
    """A generated three-dataset suite: the macro average of the datasets'
    means, its stratified bootstrap (queries resampled within each dataset)
    computed with numpy, the exact bootstrap standard error, and the
    paired comparison of two systems (stratified bootstrap interval of the
    macro difference, sign-flip randomization p-value)."""
    import numpy as np

    def grid(x, step):
        return np.round(np.asarray(x) / step) * step

    sizes = (50, 200, 20)
    a = [grid(rng.beta(2.0, 3.0, size=50), 1 / 1024),
         rng.beta(0.5, 2.0, size=200),
         rng.binomial(8, 0.4, size=20) / 8]
    # A small true difference: the p-value lies inside (0, 1), not at its floor.
    b = [np.clip(x + 0.005 + rng.normal(0.0, 0.1, size=len(x)), 0.0, 1.0) for x in a]
    B, REPLICATIONS, level = 10_000, 20, 0.95

    def macro(strata):
        return np.mean([np.mean(s) for s in strata])

    def stratified(strata, generator):
        means = np.zeros(B)
        for s in strata:
            idx = generator.integers(0, len(s), size=(B, len(s)))
            means += s[idx].mean(axis=1)
        return means / len(strata)

    def bounds(dist):
        alpha = (1 - level) / 2
        return np.percentile(dist, [100 * alpha, 100 * (1 - alpha)])

    def sign_flip_p(diffs, generator):
        observed = abs(macro(diffs))
        total = np.zeros(B)
        for s in diffs:
            signs = generator.choice([-1.0, 1.0], size=(B, len(s)))
            total += (signs * s).mean(axis=1)
        total /= len(diffs)
        return (1 + np.count_nonzero(np.abs(total) >= observed - 1e-12)) / (1 + B)

    def case(strata, paired):
        strata = [np.asarray(s, dtype=float) for s in strata]
        reps = [stratified(strata, np.random.default_rng(500 + r)) for r in range(REPLICATIONS)]
        lows = [bounds(d)[0] for d in reps]
        highs = [bounds(d)[1] for d in reps]
        exact_se = np.sqrt(sum(np.var(s) / len(s) for s in strata)) / len(strata)
        out = {
            "strata_bits": [[bits(v) for v in s] for s in strata],
            "macro": float(macro(strata)),
            "exact_standard_error": float(exact_se),
            "lower": float(np.mean(lows)), "upper": float(np.mean(highs)),
            "lower_sd": float(np.std(lows, ddof=1)), "upper_sd": float(np.std(highs, ddof=1)),
        }
        if paired:
            ps = [sign_flip_p(strata, np.random.default_rng(900 + r)) for r in range(REPLICATIONS)]
            out["p_value"] = float(np.mean(ps))
            out["p_value_sd"] = float(np.std(ps, ddof=1))
        return out

    write("macro.json", {
        "function": "macro average of dataset means; stratified bootstrap (numpy, resampling "
                    "queries within each dataset), percentile interval; sign-flip randomization",
        "resamples": B, "level": level, "sizes": list(sizes),
        "system": case(a, False),
        "difference": case([y - x for x, y in zip(a, b)], True),
    })


def main():
    ensure_venv()
    import numpy as np

    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261123)
    ttest_cases(rng)
    wilcoxon_cases(rng)
    bootstrap_cases(rng)
    correction_cases(rng)
    sign_flip_cases(rng)
    tukey_cases(rng)
    # Its own generator: the fixtures above stay as they were.
    interval_cases(np.random.default_rng(20260726))
    macro_cases(np.random.default_rng(20261126))


if __name__ == "__main__":
    main()
