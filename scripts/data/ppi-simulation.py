#!/usr/bin/env python3
"""Prediction-powered inference (crates/stats/src/ppi.rs): a coverage
simulation with a biased LLM judge, and reference values computed with
numpy and cross-checked against the `ppi_py` package (ppi-python).

Writes, to crates/stats/tests/data/:

* ppi.json: the model, the seed, the truth, the value table of the metric,
  the numpy reference outputs of every replication (IEEE-754 bit patterns),
  the coverages of the PPI, human-only and LLM-only intervals, and
  hand-picked single-mean and paired cases (inputs and outputs as bits);
* ppi_simulation.bin: every replication's inputs, as 10-bit codes of the
  five grades behind each per-query value (see "Inputs" below).

Model (one query; queries are independent and identically distributed):

* the query's difficulty p ~ Beta(2, 2);
* a fixed ranking of 5 documents; the true grade (0-3) of the document at
  rank r is g_r ~ Binomial(3, p * w_r), w = (1, 0.9, 0.8, 0.7, 0.6), so
  that the top ranks are more often relevant;
* the human label is the true grade;
* the LLM judge's label is x_r = g_r + 0.3 + 0.6 e_r, e_r ~ N(0, 1),
  rounded at random to an integer (floor(x) + 1 with probability
  x - floor(x), so that the rounding adds no bias: the label is the true
  grade + 0.3 on average before clipping), then clipped to 0..3 (clipping
  pulls the bias towards 0 at grade 3 and away from 0 at grade 0);
* the per-query metric is DCG@5 with linear gain (rankeval's `dcg@5`,
  trec_eval's gain): sum_r grade_r / log2(r + 1), once with the human
  labels (y) and once with the LLM's (f).

The truth is the population mean of the human-label metric, exact by
linearity of expectation: E[g_r] = 3 E[p] w_r = 1.5 w_r, so
E[DCG@5] = 1.5 sum_r w_r / log2(r + 1). The script checks it against a
Monte Carlo mean of 2,000,000 queries.

A replication has N_TOTAL = 1000 queries with LLM labels, of which the first
n = 100 (queries are exchangeable, so the first 100 are a uniformly random
subset) also have human labels; the other 900 are the unlabelled set. PPI
follows ppi_py (Angelopoulos et al. 2023; Boyeau et al. 2024, "AutoEval Done
Right"): the unlabelled mean is over the 900 queries without a human label
only, the labelled queries' predictions enter the rectifier (and the
variance of all 1000 predictions in PPI++'s lambda), not the imputed mean.
1,000 replications, numpy's PCG64 with seed SEED.

Inputs: DCG@5 of 5 grades in 0..3 takes at most 4^5 = 1024 values, so each
per-query value is stored as the code sum_r g_r 4^(r-1) of its grades and
ppi.json holds the table of the 1024 values (bits, computed here): the Rust
test reads exactly the floats numpy used. Per replication, in this order:
the 100 human codes, the 100 LLM codes of the same queries, the 900 LLM codes
of the unlabelled queries; four 10-bit codes are packed into 5 bytes,
little-endian (c0 | c1 << 10 | c2 << 20 | c3 << 30).

Reference: numpy, written from the papers' formulas (not ppi_py's code):
PPI++ lambda = clip(cov(y, f) / ((1 + n/N) var(f_all)), 0, 1), cov with 1/n,
var(f_all) with 1/(n + N - 1) over the labelled and unlabelled predictions;
estimate = mean(lambda f_u) + mean(y - lambda f); standard error
sqrt(var(lambda f_u)/N + var(y - lambda f)/n), variances with 1/count
(numpy's default ddof 0, as ppi_py); interval estimate -/+ z se, z the
normal (1 + level)/2 quantile. The human-only (classical) interval is
ppi_py's classical_mean_ci: mean(y) -/+ z std(y)/sqrt(n), ddof 0, normal.
The LLM-only interval is the same over all 1000 predictions. Every
reference value is asserted equal to ppi_py's within 1e-12.

Run: python3 scripts/data/ppi-simulation.py (creates $CARGO_TARGET_DIR/ppi-venv,
or target/ppi-venv, with numpy, scipy and ppi-python, and re-runs itself
there). The output is deterministic for given library versions, recorded
in ppi.json.
"""

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "ppi-venv"
DATA = ROOT / "crates" / "stats" / "tests" / "data"
OUT_JSON = DATA / "ppi.json"
OUT_BIN = DATA / "ppi_simulation.bin"

SEED = 20261127
REPLICATIONS = 1000
N_TOTAL = 1000
LABELLED = 100
DEPTH = 5
WEIGHTS = (1.0, 0.9, 0.8, 0.7, 0.6)
LLM_BIAS = 0.3
LLM_NOISE = 0.6
LEVEL = 0.95
TOLERANCE = 1e-12


def ensure_venv():
    """Re-executes this script inside the venv, creating it if needed."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    subprocess.check_call([str(python), "-m", "pip", "install", "-q", "numpy", "scipy", "ppi-python"])
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def discounts():
    import numpy as np

    return 1.0 / np.log2(np.arange(2, DEPTH + 2, dtype=np.float64))


def value_table():
    """DCG@5 (linear gain) of every code: grade of rank r in base-4 digit r."""
    import numpy as np

    codes = np.arange(4 ** DEPTH)
    grades = (codes[:, None] // 4 ** np.arange(DEPTH)) % 4
    d = discounts()
    acc = np.zeros(len(codes))
    for r in range(DEPTH):
        acc = acc + grades[:, r] * d[r]
    return acc


def draw_queries(rng, shape, weights=WEIGHTS):
    """True grades and LLM labels, each `shape + (DEPTH,)` integers 0..3."""
    import numpy as np

    p = rng.beta(2.0, 2.0, size=shape + (1,))
    true = rng.binomial(3, p * np.asarray(weights))
    x = true + LLM_BIAS + LLM_NOISE * rng.standard_normal(true.shape)
    low = np.floor(x)
    llm = low + (rng.random(true.shape) < (x - low))
    llm = np.clip(llm, 0, 3).astype(np.int64)
    return true, llm


def encode(grades):
    import numpy as np

    return (grades * 4 ** np.arange(DEPTH)).sum(axis=-1)


def z_quantile(level):
    from scipy.stats import norm

    return float(norm.ppf(1.0 - (1.0 - level) / 2.0))


def normal_mean(values, level):
    """Mean, standard error (ddof 0, ppi_py's classical_mean_ci) and z interval."""
    import numpy as np

    m = float(values.mean())
    se = float(np.sqrt(values.var() / len(values)))
    z = z_quantile(level)
    return {"mean": m, "standard_error": se, "lower": m - z * se, "upper": m + z * se}


def tuned_lambda(y, f, fu):
    """PPI++'s variance-minimising lambda for a mean, clipped to [0, 1]."""
    import numpy as np

    n, big_n = len(y), len(fu)
    cov = float(((y - y.mean()) * (f - f.mean())).sum() / n)
    allf = np.concatenate([f, fu])
    var = float(((allf - allf.mean()) ** 2).sum() / (n + big_n - 1))
    if var == 0.0:
        return 0.0
    return float(np.clip(cov / ((1.0 + n / big_n) * var), 0.0, 1.0))


def ppi_reference(y, f, fu, level, lam=None):
    """The PPI (lam fixed) or PPI++ (lam None: tuned) mean, numpy."""
    import numpy as np
    from scipy.stats import norm

    if lam is None:
        lam = tuned_lambda(y, f, fu)
    n, big_n = len(y), len(fu)
    imputed = lam * fu
    rectifier = y - lam * f
    estimate = float(imputed.mean() + rectifier.mean())
    se = float(np.sqrt(imputed.var() / big_n + rectifier.var() / n))
    z = z_quantile(level)
    if se > 0:
        p = float(2.0 * norm.sf(abs(estimate / se)))
    else:
        p = 1.0 if estimate == 0 else 0.0
    return {
        "estimate": estimate, "standard_error": se,
        "lower": estimate - z * se, "upper": estimate + z * se,
        "lambda": float(lam), "p_value": p,
        "classical": normal_mean(y, level),
        "imputed": normal_mean(np.concatenate([f, fu]), level),
    }


def check_with_ppi_py(y, f, fu, level, lam, ref, what):
    """Asserts the numpy reference equals ppi_py's values within 1e-12."""
    from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate, ppi_mean_pval
    from ppi_py.ppi import _calc_lam_glm
    import numpy as np

    alpha = 1.0 - level

    def close(name, got, want):
        assert abs(float(got) - want) <= TOLERANCE, f"{what} {name}: ppi_py {got!r}, numpy {want!r}"

    if lam is None:
        # As ppi_mean_ci does: gradients at the lambda = 1 estimate.
        theta = ppi_mean_pointestimate(y, f, fu, lam=1)
        py_lam = float(_calc_lam_glm(y - theta, f - theta, fu - theta, np.eye(1), clip=True))
        close("lambda", py_lam, ref["lambda"])
        est = ppi_mean_pointestimate(y, f, fu)
        lower, upper = ppi_mean_ci(y, f, fu, alpha=alpha)
    else:
        est = ppi_mean_pointestimate(y, f, fu, lam=lam)
        lower, upper = ppi_mean_ci(y, f, fu, alpha=alpha, lam=lam)
    close("estimate", np.ravel(est)[0], ref["estimate"])
    close("lower", np.ravel(lower)[0], ref["lower"])
    close("upper", np.ravel(upper)[0], ref["upper"])
    # ppi_mean_pval tunes lambda without clipping it; pass the clipped one.
    p = ppi_mean_pval(y, f, fu, null=0, lam=ref["lambda"])
    close("p_value", np.ravel(p)[0], ref["p_value"])
    c_lower, c_upper = classical_mean_ci(y, alpha=alpha)
    close("classical lower", c_lower, ref["classical"]["lower"])
    close("classical upper", c_upper, ref["classical"]["upper"])


def flat_outputs(ref):
    """The compared outputs, nested parts flattened to `part_key`."""
    keys = ["estimate", "standard_error", "lower", "upper", "lambda"]
    out = {k: ref[k] for k in keys}
    for part in ["classical", "imputed"]:
        out.update({f"{part}_{k}": v for k, v in ref[part].items()})
    return out


def output_bits(ref):
    keys = ["estimate", "standard_error", "lower", "upper", "lambda"]
    out = {k + "_bits": bits(ref[k]) for k in keys}
    for part in ["classical", "imputed"]:
        out[part] = {k + "_bits": bits(v) for k, v in ref[part].items()}
    return out


def simulation(rng, table):
    import numpy as np

    true, llm = draw_queries(rng, (REPLICATIONS, N_TOTAL))
    human_codes = encode(true[:, :LABELLED])
    llm_codes = encode(llm)
    codes = np.concatenate([human_codes, llm_codes], axis=1)  # 100 + 1000 per replication
    truth = 1.5 * float(sum(w * d for w, d in zip(WEIGHTS, discounts())))

    replications = {}
    covered = {"ppi": 0, "classical": 0, "imputed": 0}
    width = {"ppi": 0.0, "classical": 0.0}
    lambdas = []
    for r in range(REPLICATIONS):
        y = table[human_codes[r]]
        f = table[llm_codes[r, :LABELLED]]
        fu = table[llm_codes[r, LABELLED:]]
        ref = ppi_reference(y, f, fu, LEVEL)
        check_with_ppi_py(y, f, fu, LEVEL, None, ref, f"replication {r}")
        covered["ppi"] += ref["lower"] <= truth <= ref["upper"]
        for part in ["classical", "imputed"]:
            covered[part] += ref[part]["lower"] <= truth <= ref[part]["upper"]
        width["ppi"] += ref["upper"] - ref["lower"]
        width["classical"] += ref["classical"]["upper"] - ref["classical"]["lower"]
        lambdas.append(ref["lambda"])
        for key, value in flat_outputs(ref).items():
            replications.setdefault(key, []).append(bits(value))

    # The truth, checked by Monte Carlo (2,000,000 queries of a separate stream).
    mc_rng = np.random.default_rng(SEED + 1)
    mc = np.mean([table[encode(draw_queries(mc_rng, (200_000,))[0])].mean() for _ in range(10)])
    assert abs(mc - truth) < 5e-3, (mc, truth)

    coverage = {k: v / REPLICATIONS for k, v in covered.items()}
    mean_width = {k: v / REPLICATIONS for k, v in width.items()}
    print(f"seed {SEED} (numpy PCG64), {REPLICATIONS} replications, "
          f"N = {N_TOTAL} queries, n = {LABELLED} human-labelled")
    print(f"truth E[DCG@5] = {truth:.6f} (Monte Carlo, 2e6 queries: {mc:.6f})")
    print(f"coverage of the {LEVEL:.0%} intervals: PPI++ {coverage['ppi']:.3f}, "
          f"human-only (classical) {coverage['classical']:.3f}, "
          f"LLM-only {coverage['imputed']:.3f}")
    print(f"mean width: PPI++ {mean_width['ppi']:.4f}, human-only {mean_width['classical']:.4f}; "
          f"lambda mean {np.mean(lambdas):.3f} (min {min(lambdas):.3f}, max {max(lambdas):.3f})")

    packed = pack(codes.reshape(-1))
    return {
        "seed": SEED,
        "rng": "numpy.random.default_rng (PCG64)",
        "replications": REPLICATIONS,
        "queries": N_TOTAL,
        "labelled": LABELLED,
        "level": LEVEL,
        "truth_bits": bits(truth),
        "truth": truth,
        "truth_monte_carlo": float(mc),
        "covered": covered,
        "coverage": coverage,
        "mean_width": mean_width,
        "lambda_mean": float(np.mean(lambdas)),
        # One array of bit patterns per output, in replication order.
        "replication_outputs": {k + "_bits": v for k, v in replications.items()},
    }, packed


def pack(codes):
    """Four 10-bit codes into 5 little-endian bytes."""
    import numpy as np

    assert len(codes) % 4 == 0 and codes.max() < 1024
    c = codes.reshape(-1, 4).astype(np.uint64)
    word = c[:, 0] | (c[:, 1] << 10) | (c[:, 2] << 20) | (c[:, 3] << 30)
    out = np.zeros((len(word), 5), dtype=np.uint8)
    for b in range(5):
        out[:, b] = (word >> (8 * b)) & 0xFF
    return out.tobytes()


def column_bits(values):
    return [bits(v) for v in values]


def mean_cases(rng, table):
    """Single means: sizes, levels, fixed lambdas, and lambda clipped at both ends."""
    import numpy as np

    cases = []
    specs = [
        (100, 900, 0.95, None, "simulation model"),
        (2, 1, 0.95, None, "smallest: n = 2, N = 1"),
        (30, 270, 0.9, None, "level 0.9"),
        (50, 2000, 0.99, None, "level 0.99, N >> n"),
        (50, 450, 0.95, 1.0, "lambda fixed at 1: PPI"),
        (50, 450, 0.95, 0.0, "lambda fixed at 0: classical"),
        (50, 450, 0.95, 0.37, "lambda fixed at 0.37"),
        (50, 450, 0.95, 1.6, "lambda fixed at 1.6 (not clipped when fixed)"),
    ]
    for n, big_n, level, lam, name in specs:
        true, llm = draw_queries(rng, (n + big_n,))
        y = table[encode(true[:n])]
        fq = table[encode(llm)]
        cases.append(mean_case(y, fq[:n], fq[n:], level, lam, name))
    # Anti-correlated predictions: the tuned lambda is negative, clipped to 0.
    true, _ = draw_queries(rng, (160,))
    v = table[encode(true)]
    cases.append(mean_case(v[:40], 9.0 - v[:40], 9.0 - v[40:], 0.95, None,
                           "anti-correlated predictions: lambda clipped to 0"))
    # Predictions that move half as much as the labels: lambda > 1, clipped to 1.
    cases.append(mean_case(v[:40], 0.5 * v[:40], 0.5 * v[40:], 0.95, None,
                           "predictions half the labels: lambda clipped to 1"))
    # Constant predictions: var(f) = 0, lambda 0 (ppi_py: 0 / 0, NaN).
    cases.append(mean_case(v[:40], np.full(40, 2.5), np.full(120, 2.5), 0.95, None,
                           "constant predictions: lambda 0", check=False))
    return cases


def mean_case(y, f, fu, level, lam, name, check=True):
    ref = ppi_reference(y, f, fu, level, lam)
    if check:
        check_with_ppi_py(y, f, fu, level, lam, ref, name)
    return {
        "name": name, "level": level,
        "lambda": "tuned" if lam is None else lam,
        "labels_bits": column_bits(y), "predictions_bits": column_bits(f),
        "unlabelled_bits": column_bits(fu),
        **output_bits(ref), "p_value": ref["p_value"],
    }


def paired_cases(rng, table):
    """Two systems on the same queries; B ranks relevant documents higher."""
    import numpy as np

    cases = []
    specs = [(100, 900, 0.95, None), (30, 270, 0.9, None), (200, 2000, 0.99, None),
             (2, 1, 0.95, None), (50, 450, 0.95, 1.0), (60, 240, 0.95, None)]
    for i, (n, big_n, level, lam) in enumerate(specs):
        # Same query difficulty for both systems; their documents differ.
        p = rng.beta(2.0, 2.0, size=(n + big_n, 1))
        systems = []
        for weights in [WEIGHTS, (1.0, 0.95, 0.9, 0.8, 0.7)] if i != 5 else [WEIGHTS, WEIGHTS]:
            true = rng.binomial(3, p * np.asarray(weights))
            x = true + LLM_BIAS + LLM_NOISE * rng.standard_normal(true.shape)
            low = np.floor(x)
            llm = np.clip(low + (rng.random(true.shape) < (x - low)), 0, 3).astype(np.int64)
            systems.append((table[encode(true[:n])], table[encode(llm)]))
        (ya, fa), (yb, fb) = systems
        d_y, d_f = yb - ya, fb - fa
        diff = ppi_reference(d_y, d_f[:n], d_f[n:], level, lam)
        check_with_ppi_py(d_y, d_f[:n], d_f[n:], level, lam, diff, f"paired case {i}")
        base = ppi_reference(ya, fa[:n], fa[n:], level, lam)
        cand = ppi_reference(yb, fb[:n], fb[n:], level, lam)
        cases.append({
            "name": f"paired: n = {n}, N = {big_n}" + (", equal systems" if i == 5 else ""),
            "level": level, "lambda": "tuned" if lam is None else lam,
            "baseline": {"labels_bits": column_bits(ya), "predictions_bits": column_bits(fa[:n]),
                         "unlabelled_bits": column_bits(fa[n:])},
            "candidate": {"labels_bits": column_bits(yb), "predictions_bits": column_bits(fb[:n]),
                          "unlabelled_bits": column_bits(fb[n:])},
            "difference": output_bits(diff),
            "baseline_mean": output_bits(base),
            "candidate_mean": output_bits(cand),
            "z_bits": bits(diff["estimate"] / diff["standard_error"]),
            "p_value": diff["p_value"],
        })
    return cases


def main():
    ensure_venv()
    import importlib.metadata

    import numpy as np
    import scipy

    rng = np.random.default_rng(SEED)
    table = value_table()
    sim, packed = simulation(rng, table)
    cases = mean_cases(rng, table)
    paired = paired_cases(rng, table)
    OUT_BIN.write_bytes(packed)
    payload = {
        "generator": "scripts/data/ppi-simulation.py",
        "versions": {"python": sys.version.split()[0], "numpy": np.__version__,
                     "scipy": scipy.__version__,
                     "ppi_python": importlib.metadata.version("ppi-python")},
        "model": {
            "metric": "DCG@5, linear gain, discount 1/log2(rank + 1)",
            "difficulty": "p ~ Beta(2, 2) per query",
            "true_grade": "Binomial(3, p * w_rank)",
            "weights": list(WEIGHTS),
            "llm_label": "clip(random rounding of grade + 0.3 + 0.6 N(0, 1), 0, 3)",
            "llm_bias": LLM_BIAS, "llm_noise": LLM_NOISE,
            "unlabelled_set": "the queries without a human label (ppi_py, Boyeau et al. 2024)",
        },
        "codes_file": OUT_BIN.name,
        "codes_layout": "per replication: 100 human codes, 100 LLM codes of the same queries, "
                        "900 LLM codes of the unlabelled queries; 4 x 10-bit codes per 5 bytes, LE",
        "table_bits": column_bits(table),
        **sim,
        "cases": cases,
        "paired_cases": paired,
    }
    OUT_JSON.write_text(json.dumps(payload, allow_nan=False) + "\n")
    print(f"wrote {OUT_JSON.relative_to(ROOT)} ({OUT_JSON.stat().st_size // 1024} KiB), "
          f"{OUT_BIN.relative_to(ROOT)} ({len(packed) // 1024} KiB)")


if __name__ == "__main__":
    main()
