#!/usr/bin/env python3
"""Simulates systems of several runs (training seeds) with no true
difference, and writes the type-I error rates of the seed-aware comparison
(crates/stats/src/seeds.rs: Welch's t on the two-way method-of-moments
variance) and of the seed-blind one (the paired t-test over queries of the
seed-averaged values), computed with numpy and scipy, to
crates/stats/tests/data/seeds.json. The Rust test
(crates/stats/tests/seeds.rs) runs the same simulation with its own
generator and checks its rates against these.

Model: y[s, q] = 0.5 + u[q] + w[q] + v[s] + e[s, q], u shared by the two
systems (the queries' difficulty), w each system's own per-query effect, v
each run's (seed's) effect, e the rest; all normal, zero mean.

Run: python3 scripts/data/seed-simulation.py (creates target/compare-venv with
numpy and scipy, as scripts/data/compare.py does).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "target" / "compare-venv"
OUT = ROOT / "crates" / "stats" / "tests" / "data" / "seeds.json"
REPLICATIONS = 20_000

CASES = [
    ("5 seeds per system, seed noise", dict(queries=50, seeds=5, query_sd=0.2,
                                            interaction_sd=0.05, seed_sd=0.02, noise_sd=0.05)),
    ("3 seeds per system, strong seed noise", dict(queries=100, seeds=3, query_sd=0.2,
                                                   interaction_sd=0.05, seed_sd=0.03, noise_sd=0.05)),
    ("10 seeds per system, no seed noise", dict(queries=50, seeds=10, query_sd=0.2,
                                                interaction_sd=0.05, seed_sd=0.0, noise_sd=0.05)),
]


def ensure_venv():
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    subprocess.check_call([str(python), "-m", "pip", "install", "-q", "scipy", "numpy"])
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def rates(model, rng):
    """Rejection rates at alpha 0.05 over REPLICATIONS, vectorized over them."""
    import numpy as np
    from scipy import stats

    r, n, s = REPLICATIONS, model["queries"], model["seeds"]
    u = model["query_sd"] * rng.standard_normal((r, 1, n))

    def system():
        w = model["interaction_sd"] * rng.standard_normal((r, 1, n))
        v = model["seed_sd"] * rng.standard_normal((r, s, 1))
        e = model["noise_sd"] * rng.standard_normal((r, s, n))
        return 0.5 + u + w + v + e

    a, b = system(), system()

    def layout(y):
        run_means = y.mean(axis=2)
        query_means = y.mean(axis=1)
        grand = run_means.mean(axis=1)
        resid = y - query_means[:, None, :] - run_means[:, :, None] + grand[:, None, None]
        residual = (resid ** 2).sum(axis=(1, 2)) / ((n - 1) * (s - 1))
        return run_means, query_means, grand, residual

    ra, qa, ga, resa = layout(a)
    rb, qb, gb, resb = layout(b)
    d = gb - ga
    per_query = qb - qa
    v_d = per_query.var(axis=1, ddof=1)
    t1 = ra.var(axis=1, ddof=1) / s
    t2 = rb.var(axis=1, ddof=1) / s
    t3 = np.maximum((v_d - resa / s - resb / s) / n, 0.0)
    v = t1 + t2 + t3
    denominator = t1 ** 2 / (s - 1) + t2 ** 2 / (s - 1) + np.where(t3 > 0, t3 ** 2 / (n - 1), 0.0)
    df = np.where(denominator > 0, v ** 2 / np.where(denominator > 0, denominator, 1), n - 1)
    df = np.maximum(df, 1.0)
    p_aware = 2 * stats.t.sf(np.abs(d / np.sqrt(v)), df)
    p_blind = 2 * stats.t.sf(np.abs(d / np.sqrt(v_d / n)), n - 1)
    return float(np.mean(p_aware < 0.05)), float(np.mean(p_blind < 0.05))


def main():
    ensure_venv()
    import numpy as np
    import scipy

    rng = np.random.default_rng(20261126)
    cases = []
    for name, model in CASES:
        aware, blind = rates(model, rng)
        print(f"{name}: seed-aware {aware:.4f}, seed-blind {blind:.4f}")
        cases.append({"name": name, "model": model, "aware": aware, "blind": blind})
    OUT.write_text(json.dumps({
        "generator": "scripts/data/seed-simulation.py",
        "versions": {"python": sys.version.split()[0], "numpy": np.__version__,
                     "scipy": scipy.__version__},
        "alpha": 0.05,
        "replications": REPLICATIONS,
        "cases": cases,
    }, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
