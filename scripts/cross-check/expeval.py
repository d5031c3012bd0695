"""Randomized cross-check of rankeval's exposure-fairness metrics.

    python3 scripts/cross-check/expeval.py [--queries 200] [--seed 1] [--expeval DIR]
    python3 scripts/cross-check/expeval.py --fixture   # rewrite the test fixture

Run by hand, not in CI. Needs a build of rankeval (RANKEVAL_BIN, else
target/release/rankeval, else target/debug) and Python 3 alone. It writes
random qrels (grades 0-2, some queries with one relevance level, some with
none retrieved), random sampled runs (1 to 4 samples per query, pools with
unjudged documents, scores that agree with the ranks) and random document
groups (some documents in two groups with weights, some in none), and
compares per query, within 1e-12:

- ee_d, ee_r, ee_l (raw and normalised; RBP and gERR; several p and u)
  with a plain reference of the formulas of Diaz et al. (CIKM 2020) as
  expeval's exposure.py and metrics.py compute them (retrieval setting);
  with --expeval DIR (a checkout of github.com/diazf/expeval), also with
  expeval's own functions, imported and called on the same data (its
  printed values have 6 decimals; its functions give every bit);
- ee_d, ee_r, ee_l at the group level (groups=true: expeval -G, its
  group.py and the Group* classes of metrics.py), with a plain reference
  of those formulas; with --expeval DIR also with expeval's own group
  functions on the same data with every weight 1 (expeval has no weights),
  leaving out the queries where expeval's util.l2 is infinite (no relevant
  document retrieved: rankeval gives the squared norm, 0) and the
  normalised values whose bounds are equal but computed in two orders
  (RBP's EE-D, `e * e * k` and `k * e * e`, an ulp apart for some p, r,
  k: expeval divides by that rounding error, rankeval takes the default),
  each counted;
- awrf and trec_fair (uniform and relevant targets, k none and 5) on the
  first sample of each query, with a plain reference of TREC Fair 2021's
  metrics.py (qr_awrf, qr_ndcg) in 64-bit floats.

With --fixture it writes crates/rankeval/tests/data/expeval/ (qrels.txt,
run.trec, groups.csv, expected.json: the reference's values), which
crates/rankeval/tests/fairness.rs checks; expeval's README example is its
query `ex`.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

GROUP_CHECKED, GROUP_SKIPPED, GROUP_ROUNDING = 0, 0, 0
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "crates", "rankeval", "tests", "data", "expeval")
SETTINGS = [("rbp", 0.5, 0.5), ("rbp", 0.8, 0.5), ("gerr", 0.5, 0.5), ("gerr", 0.7, 0.3)]


def binary():
    if os.environ.get("RANKEVAL_BIN"):
        return os.environ["RANKEVAL_BIN"]
    for profile in ("release", "debug"):
        for base in (os.environ.get("CARGO_TARGET_DIR"), os.path.join(ROOT, "target")):
            if base and os.path.exists(os.path.join(base, profile, "rankeval")):
                return os.path.join(base, profile, "rankeval")
    sys.exit("no rankeval binary: build it or set RANKEVAL_BIN")


# ---- the reference: expeval's formulas, retrieval setting ----

def exposure_at(model, p, u, i, relevant_above):
    return p ** i if model == "rbp" else p ** i * (1.0 - u) ** relevant_above


def targets(qrels, model, p, u):
    """expeval exposure.target: per relevant document (grade > 0)."""
    relevant = {d: g for d, g in qrels.items() if g > 0}
    counts = {}
    for g in relevant.values():
        counts[g] = counts.get(g, 0) + 1
    levels = sorted(counts.items(), reverse=True)
    rate = p if model == "rbp" else p * (1.0 - u)
    per_level, b = {}, 0
    for g, m in levels:
        per_level[g] = (rate ** b - rate ** (b + m)) / (m * (1.0 - rate))
        b += m
    return {d: per_level[g] for d, g in relevant.items()}, len(levels)


def expected(samples, qrels, model, p, u):
    """expeval exposure.expected."""
    n = len(samples)
    e = {}
    for ranking in samples:
        above = 0
        for i, d in enumerate(ranking):
            e[d] = e.get(d, 0.0) + exposure_at(model, p, u, i, above) / n
            if qrels.get(d, 0) > 0:
                above += 1
    return e


def reference_ee(samples, qrels, model, p, u):
    t, levels = targets(qrels, model, p, u)
    e = expected(samples, qrels, model, p, u)
    disparity = sum(v * v for v in e.values())
    # Sorted: a set of strings iterates in an order that changes between
    # processes (hash randomisation), and with it the sums' last bits.
    relevance = sum(t[d] * e[d] for d in sorted(set(t) & set(e)))
    loss = sum((e.get(d, 0.0) - t.get(d, 0.0)) ** 2 for d in sorted(set(t) | set(e)))
    norm = sum(v * v for v in t.values())
    pp = p if model == "rbp" else p * u
    bounds = {
        "ee_d": (0.0, 1.0 / (1.0 - p * p), 0.0),
        "ee_r": (0.0, 0.0, 1.0) if levels <= 1 else (0.0, norm, 1.0),
        "ee_l": (0.0, norm + 1.0 / (1.0 - pp), 0.0),
    }
    raw = {"ee_d": disparity, "ee_r": relevance, "ee_l": loss}
    out = {}
    for name, value in raw.items():
        lo, hi, default = bounds[name]
        out[name + "_raw"] = value
        out[name] = default if lo == hi else (value - lo) / (hi - lo)
    return out


def with_expeval(directory, samples, qrels, model, p, u):
    """The same values from expeval's own functions."""
    sys.path.insert(0, directory)
    import exposure as ex  # noqa: E402  (expeval's module)
    judged = {d: g for d, g in qrels.items() if g > 0}
    target, disp, rel, diff = ex.target(judged, model, p, u, False)

    class Sampled:
        def __init__(self, ranking):
            self.ranking = ranking

        def value(self):
            return self.ranking

    run = ex.expected({i: Sampled(r) for i, r in enumerate(samples)}, judged, model, p, u)
    out = {}
    for name, metric in (("ee_d", disp), ("ee_r", rel), ("ee_l", diff)):
        metric.compute(run)
        out[name + "_raw"] = metric.float(False)
        out[name] = metric.float(True)
    return out


def series(x, r):
    """expeval util.geometricSeries(x, r) for a finite r."""
    return (1.0 - x ** r) / (1.0 - x)


def reference_group_ee(samples, qrels, groups, model, p, u):
    """expeval -G (group.py, metrics.py Group*), retrieval setting; a
    document's weight in a group multiplies its exposure and target."""
    t, _ = targets(qrels, model, p, u)
    e = expected(samples, qrels, model, p, u)
    exposure, target = {}, {}
    for d, g in qrels.items():
        if g <= 0:
            continue
        for gid, w in groups.get(d, []):
            exposure.setdefault(gid, 0.0)
            target.setdefault(gid, 0.0)
            exposure[gid] += w * e.get(d, 0.0)
            target[gid] += w * t[d]
    k = len(target)
    r = sum(1 for g in qrels.values() if g > 0)
    disparity = sum(v * v for v in exposure.values())
    relevance = sum(target[g] * exposure[g] for g in target)
    loss = sum((target[g] - exposure[g]) ** 2 for g in target)
    pp = p if model == "rbp" else p * u
    if k == 1:
        d_bounds = (0.0, 0.0, 0.0)
    else:
        d_bounds = (k * series(pp, r) ** 2, k * series(p, r) ** 2, 0.0)
    norm = sum(v * v for v in target.values())
    diff = sum((series(p, r) - v) ** 2 for v in target.values())
    bounds = {
        "ee_d": d_bounds,
        "ee_r": (0.0, 0.0, 1.0),
        "ee_l": (0.0, norm if norm > diff else diff, 0.0),
    }
    raw = {"ee_d": disparity, "ee_r": relevance, "ee_l": loss}
    out = {}
    for name, value in raw.items():
        lo, hi, default = bounds[name]
        out[name + "_raw"] = value
        out[name] = default if lo == hi else (value - lo) / (hi - lo)
    return out


def with_expeval_groups(directory, samples, qrels, groups, model, p, u):
    """expeval's own -G functions on the same data, every weight 1; None
    where its util.l2 is infinite (no exposure to any group)."""
    sys.path.insert(0, directory)
    import exposure as ex  # noqa: E402  (expeval's modules)
    import group as gr  # noqa: E402
    judged = {d: g for d, g in qrels.items() if g > 0}
    did2gids = {d: [gid for gid, _ in groups.get(d, [])] for d in judged}
    target, _, _, _ = ex.target(judged, model, p, u, False)

    class Sampled:
        def __init__(self, ranking):
            self.ranking = ranking

        def value(self):
            return self.ranking

    run = ex.expected({i: Sampled(r) for i, r in enumerate(samples)}, judged, model, p, u)
    targ = gr.exposure(target, did2gids, judged, False)
    r = sum(1 for v in judged.values() if v > 0)
    disp, rel, diff = gr.metrics(targ, model, p, u, math.inf, r)
    group_run = gr.exposure(run, did2gids, judged, False)
    out = {}
    for name, metric in (("ee_d", disp), ("ee_r", rel), ("ee_l", diff)):
        metric.compute(group_run)
        if math.isinf(metric.value):
            return None
        out[name + "_raw"] = metric.float(False)
        lo, hi = metric.lowerBound, metric.upperBound
        if lo != hi and abs(hi - lo) <= 1e-12 * abs(hi):
            # Equal bounds computed in two orders (RBP's EE-D: e * e * k
            # and k * e * e) that differ in the last bit: expeval divides
            # by the rounding error; the reference takes the default.
            out[name] = "rounding"
        else:
            out[name] = metric.float(True)
    return out


def unit(groups):
    return {d: [(g, 1.0) for g, _ in memberships] for d, memberships in groups.items()}


def attention(i):
    return 1.0 / math.log2(max(i, 2))


def js(p, q):
    sp, sq = sum(p), sum(q)
    if sp <= 0 or sq <= 0:
        return None
    p = [x / sp for x in p]
    q = [x / sq for x in q]
    total = 0.0
    for a, b in zip(p, q):
        m = (a + b) / 2
        if a > 0:
            total += a * math.log(a / m)
        if b > 0:
            total += b * math.log(b / m)
    return total / 2


def reference_awrf(ranking, qrels, groups, names, target, k):
    n = len(ranking) if k is None else min(k, len(ranking))
    exposure = [0.0] * len(names)
    for i, d in enumerate(ranking[:n]):
        for g, w in groups.get(d, []):
            exposure[names.index(g)] += attention(i + 1) * w
    if target == "uniform":
        wanted = [1.0] * len(names)
    else:
        wanted = [0.0] * len(names)
        for d, grade in qrels.items():
            if grade >= 1:
                for g, w in groups.get(d, []):
                    wanted[names.index(g)] += w
    d = js(exposure, wanted)
    awrf = 0.0 if d is None else 1.0 - d
    relevant = sum(1 for g in qrels.values() if g >= 1)
    ideal_len = relevant if k is None else min(k, relevant)
    dcg = sum(attention(i + 1) for i, doc in enumerate(ranking[:n]) if qrels.get(doc, 0) >= 1)
    ideal = sum(attention(i) for i in range(1, ideal_len + 1))
    ndcg = dcg / ideal if ideal > 0 else 0.0
    return awrf, ndcg * awrf


# ---- data ----

def generate(rng, queries):
    qrels, runs, groups = {}, {}, {}
    names = ["north", "south", "east"]
    docs = [f"d{i}" for i in range(40)]
    for d in docs:
        r = rng.random()
        if r < 0.15:
            continue
        if r < 0.35:
            a, b = rng.sample(names, 2)
            w = rng.choice([0.25, 0.5, 0.75])
            groups[d] = [(a, w), (b, 1.0 - w)]
        else:
            groups[d] = [(rng.choice(names), 1.0)]
    # expeval's README example.
    qrels["ex"] = {"d1": 1, "d2": 1}
    runs["ex"] = [["d1", "d2", "d3"], ["d2", "d1", "d3"]]
    for q in range(queries):
        qid = f"q{q}"
        pool = rng.sample(docs, rng.randint(3, 15))
        judged = {}
        for d in pool:
            if rng.random() < 0.7:
                judged[d] = rng.choice([0, 1, 1, 2]) if rng.random() < 0.5 else rng.choice([0, 1])
        if not any(g > 0 for g in judged.values()):
            judged[pool[0]] = 1
        qrels[qid] = judged
        runs[qid] = []
        for _ in range(rng.randint(1, 4)):
            ranking = rng.sample(pool, rng.randint(1, len(pool)))
            runs[qid].append(ranking)
    return qrels, runs, groups


def write(directory, qrels, runs, groups):
    with open(os.path.join(directory, "qrels.txt"), "w") as f:
        for q, judged in qrels.items():
            for d, g in judged.items():
                f.write(f"{q} 0 {d} {g}\n")
    with open(os.path.join(directory, "run.trec"), "w") as f:
        for q, samples in runs.items():
            for s, ranking in enumerate(samples):
                for i, d in enumerate(ranking):
                    f.write(f"{q} s{s} {d} {i + 1} {len(ranking) - i} ref\n")
    with open(os.path.join(directory, "groups.csv"), "w") as f:
        f.write("doc,group,weight\n")
        for d, memberships in groups.items():
            for g, w in memberships:
                f.write(f"{d},{g},{w}\n")


def metric_names():
    names = []
    for model, p, u in SETTINGS:
        params = f"model={model},p={p}" + (f",u={u}" if model == "gerr" and u != 0.5 else "")
        params = params.replace(",p=0.5", "") if p == 0.5 else params
        for m in ("ee_d", "ee_r", "ee_l"):
            names.append((f"{m}({params})", m, model, p, u, True))
            names.append((f"{m}({params},norm=false)", m, model, p, u, False))
    return names


def canonical(name):
    """rankeval's canonical name: the default model (gerr) left out."""
    return name.replace("(model=gerr,", "(").replace("(model=gerr)", "")


def grouped(name):
    """The name at the group level."""
    return name[:-1] + ",groups=true)" if name.endswith(")") else name + "(groups=true)"


def reference_rows(qrels, runs, groups, expeval_dir=None, group_level=True):
    rows, worst_expeval = [], 0.0
    names = ["north", "south", "east"]
    global GROUP_CHECKED, GROUP_SKIPPED, GROUP_ROUNDING
    for q in sorted(qrels):
        samples, judged = runs[q], qrels[q]
        for name, m, model, p, u, norm in metric_names():
            ref = reference_ee(samples, judged, model, p, u)
            key = m if norm else m + "_raw"
            rows.append([q, canonical(name), ref[key]])
            if expeval_dir:
                theirs = with_expeval(expeval_dir, samples, judged, model, p, u)
                worst_expeval = max(worst_expeval, abs(theirs[key] - ref[key]))
            if not group_level:
                continue
            ref = reference_group_ee(samples, judged, groups, model, p, u)
            rows.append([q, canonical(grouped(name)), ref[key]])
            if expeval_dir:
                theirs = with_expeval_groups(expeval_dir, samples, judged, groups, model, p, u)
                if theirs is None:
                    GROUP_SKIPPED += 1
                    continue
                ours = reference_group_ee(samples, judged, unit(groups), model, p, u)
                if theirs[key] == "rounding":
                    GROUP_ROUNDING += 1
                    continue
                worst_expeval = max(worst_expeval, abs(theirs[key] - ours[key]))
                GROUP_CHECKED += 1
        if q == "ex":
            continue
        for target in ("relevant", "uniform"):
            for k in (None, 5):
                awrf, fair = reference_awrf(samples[0], judged, groups, names, target, k)
                params = "" if target == "relevant" else "(target=uniform)"
                cut = "" if k is None else f"@{k}"
                rows.append([q, f"awrf{params}{cut}", awrf])
                rows.append([q, f"trec_fair{params}{cut}", fair])
    return rows, worst_expeval


def rankeval_values(directory, rows, samples):
    """Per (query, metric) values from the rankeval binary."""
    metrics = sorted({r[1] for r in rows if (r[1].startswith("ee_") == samples)})
    args = [binary(), "eval", "--qrels", os.path.join(directory, "qrels.txt"),
            "--run", os.path.join(directory, "run.trec"),
            "--doc-groups", os.path.join(directory, "groups.csv"),
            "--format", "json", "--per-query"]
    if samples:
        args.append("--samples")
    else:
        # The first sample of each query as a deterministic run.
        first = os.path.join(directory, "first.trec")
        with open(os.path.join(directory, "run.trec")) as f, open(first, "w") as out:
            out.writelines(line for line in f if line.split()[1] == "s0")
        args[args.index(os.path.join(directory, "run.trec"))] = first
    for m in metrics:
        args += ["-m", m]
    report = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    per_query = report["runs"][0]["per_query"]
    return {(q, m): v for m, values in per_query.items() for q, v in values.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--expeval", help="a checkout of github.com/diazf/expeval")
    parser.add_argument("--fixture", action="store_true")
    args = parser.parse_args()
    print(f"seed {args.seed} (Python's random.Random)")
    rng = random.Random(args.seed)
    qrels, runs, groups = generate(rng, 8 if args.fixture else args.queries)
    rows, worst_expeval = reference_rows(qrels, runs, groups, args.expeval)
    if args.expeval:
        print(f"reference vs expeval's functions: largest difference {worst_expeval:.3g}")
        print(f"group level: {GROUP_CHECKED} values checked against expeval's, "
              f"{GROUP_SKIPPED} left out (expeval's l2 infinite: no relevant document retrieved), "
              f"{GROUP_ROUNDING} normalised values left out (bounds equal but for "
              f"expeval's rounding: it divides by the rounding error)")
        if worst_expeval > 1e-12:
            sys.exit("the reference differs from expeval")
    if args.fixture:
        os.makedirs(FIXTURE, exist_ok=True)
        write(FIXTURE, qrels, runs, groups)
        with open(os.path.join(FIXTURE, "expected.json"), "w") as f:
            json.dump({"generator": "scripts/cross-check/expeval.py --fixture",
                       "seed": args.seed, "rows": rows}, f, indent=0)
            f.write("\n")
        print(f"wrote {len(rows)} values to {FIXTURE}")
        return
    with tempfile.TemporaryDirectory() as directory:
        write(directory, qrels, runs, groups)
        got = rankeval_values(directory, rows, True)
        got.update(rankeval_values(directory, rows, False))
    worst, count = {}, 0
    for q, m, want in rows:
        value = got[(q, m)]
        base = m.split("(")[0].split("@")[0] + (" (groups)" if "groups=true" in m else "")
        worst[base] = max(worst.get(base, 0.0), abs(value - want))
        count += 1
    for base, diff in sorted(worst.items()):
        print(f"{base:15} largest difference {diff:.3g}")
    print(f"{count} values over {len(qrels)} queries")
    if max(worst.values()) > 1e-12:
        sys.exit("differences above 1e-12")


if __name__ == "__main__":
    main()
