"""Cross-check of rankeval's propensity-scored metrics (psp@k, psndcg@k)
against pyxclib's definitions (xclib/evaluation/xc_metrics.py:
compute_inv_propesity, psprecision, psndcg), written out in numpy and
scipy, line for line, because pyxclib itself is not on PyPI.

    python3 scripts/cross-check/pyxclib.py [--instances 80] [--seed 1]
    python3 scripts/cross-check/pyxclib.py --fixture   # rewrite the test fixture

Run by hand, not in CI. Needs numpy and scipy, and for the comparison a
build of rankeval (RANKEVAL_BIN, else target/release/rankeval, else
target/debug). It draws a training label matrix (N = 1000 rows), whose
column sums are the label counts (labels never seen are left out of the
table: count 0), test instances each with 1 to 8 relevant labels, and
predictions with distinct scores over random labels (so that no tie rule
plays a part), then computes, for k = 1..10 and the three published
families of A, B:

- PSP@k and PSnDCG@k as pyxclib computes them: a ratio of means over the
  test instances (`_precision(eval_flags) / _precision(ps_eval_flags)`),
  the best achievable ranking the true labels by descending weight;
- the same with the weights given as a table of inverse propensities
  (the amazon family's), which rankeval reads with --inverse-propensities.

pyxclib's `_ndcg` keeps its means in float32; the transcription keeps
float64 (the exact definition) and prints how far float32 moves it.
rankeval evaluates every test instance (all are in the qrels), so the
mean of its per-query values is pyxclib's ratio of means. Fails when they
differ by more than 1e-12.

With --fixture it writes crates/rankeval/tests/data/pyxclib/ (qrels.txt,
run.trec, counts.csv, inverse.csv, expected.json), which
crates/rankeval/tests/propensity.rs checks without Python.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.sparse as sp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "crates", "rankeval", "tests", "data", "pyxclib")
FAMILIES = {"general": (0.55, 1.5), "wikipedia": (0.5, 0.4), "amazon": (0.6, 2.6)}
KS = range(1, 11)
TRAIN = 1000


# --- pyxclib, transcribed (xclib/evaluation/xc_metrics.py) -----------------


def compute_inv_propesity(labels, A, B):
    num_instances, _ = labels.shape
    freqs = np.ravel(np.sum(labels, axis=0))
    C = (np.log(num_instances) - 1) * np.power(B + 1, A)
    wts = 1.0 + C * np.power(freqs + B, -A)
    return np.ravel(wts)


def _topk(X, k):
    """_get_topk_sparse: each row's k best columns by score, padded with
    the index num_labels (a column of weight 0)."""
    X = X.tocsr()
    n, num_labels = X.shape
    out = np.full((n, k), num_labels, dtype=np.int64)
    for i in range(n):
        start, end = X.indptr[i], X.indptr[i + 1]
        cols, vals = X.indices[start:end], X.data[start:end]
        order = np.argsort(-vals, kind="stable")[:k]
        out[i, : len(order)] = cols[order]
    return out


def _setup_metric(X, true_labels, inv_psp, k):
    num_instances, num_labels = true_labels.shape
    indices = _topk(X, k)
    _mat = sp.spdiags(inv_psp, diags=0, m=num_labels, n=num_labels)
    _psp_wtd = _mat.dot(true_labels.T).T
    ps_indices = _topk(sp.csr_matrix(_psp_wtd), k)
    inv_psp = np.hstack([inv_psp, np.zeros((1))])
    true_labels = sp.csr_matrix(
        (true_labels.data, true_labels.indices, true_labels.indptr),
        shape=(num_instances, num_labels + 1),
        dtype=true_labels.dtype,
    )
    return indices, true_labels, ps_indices, inv_psp


def _eval_flags(indices, true_labels, inv_psp=None):
    nr, nc = indices.shape
    rows = np.repeat(np.arange(nr).reshape(-1, 1), nc)
    eval_flags = np.asarray(true_labels[rows, indices.ravel()]).reshape(nr, nc)
    if inv_psp is not None:
        eval_flags = np.multiply(inv_psp[indices], eval_flags)
    return eval_flags


def _precision(eval_flags, k=5):
    deno = 1 / (np.arange(k) + 1)
    precision = np.mean(np.multiply(np.cumsum(eval_flags, axis=-1), deno), axis=0)
    return np.ravel(precision)


def _ndcg(eval_flags, n, k=5, dtype=np.float64):
    """pyxclib's _ndcg; pyxclib's dtype is np.float32."""
    _cumsum = 0
    _dcg = np.cumsum(np.multiply(eval_flags, 1 / np.log2(np.arange(k) + 2)), axis=-1)
    ndcg = np.zeros((1, k), dtype=dtype)
    for _k in range(k):
        _cumsum += 1 / np.log2(_k + 1 + 1)
        ndcg[0, _k] = np.mean(np.multiply(_dcg[:, _k].reshape(-1, 1), 1 / np.minimum(n, _cumsum)))
    return np.ravel(ndcg)


def psprecision(X, true_labels, inv_psp, k):
    indices, true_labels, ps_indices, inv_psp = _setup_metric(X, true_labels, inv_psp, k)
    eval_flags = _eval_flags(indices, true_labels, inv_psp)
    ps_eval_flags = _eval_flags(ps_indices, true_labels, inv_psp)
    return _precision(eval_flags, k) / _precision(ps_eval_flags, k)


def psndcg(X, true_labels, inv_psp, k, dtype=np.float64):
    indices, true_labels, ps_indices, inv_psp = _setup_metric(X, true_labels, inv_psp, k)
    eval_flags = _eval_flags(indices, true_labels, inv_psp)
    ps_eval_flags = _eval_flags(ps_indices, true_labels, inv_psp)
    _total_pos = np.asarray(true_labels.sum(axis=1), dtype=np.int32)
    _max_pos = max(np.max(_total_pos), k)
    _cumsum = np.cumsum(1 / np.log2(np.arange(1, _max_pos + 1) + 1))
    n = _cumsum[_total_pos - 1]
    return _ndcg(eval_flags, n, k, dtype) / _ndcg(ps_eval_flags, n, k, dtype)


# --- data ---------------------------------------------------------------------


def draw(instances, labels, seed):
    rng = np.random.default_rng(seed)
    # Training: label popularity falls off, some labels never seen.
    popularity = rng.pareto(1.2, labels) + 0.01
    popularity[rng.random(labels) < 0.15] = 0
    popularity = popularity / popularity.sum()
    rows, cols = [], []
    for i in range(TRAIN):
        for l in set(rng.choice(labels, size=rng.integers(1, 6), p=popularity)):
            rows.append(i)
            cols.append(int(l))
    train = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(TRAIN, labels))
    # Test: 1 to 8 relevant labels each, predictions over 12 random labels
    # plus some of the relevant ones, distinct scores.
    truth_rows, truth_cols, pred_rows, pred_cols, pred_vals = [], [], [], [], []
    for i in range(instances):
        true = rng.choice(labels, size=rng.integers(1, 9), replace=False)
        for l in true:
            truth_rows.append(i)
            truth_cols.append(int(l))
        predicted = set(int(l) for l in rng.choice(labels, size=12, replace=False))
        predicted |= set(int(l) for l in true if rng.random() < 0.5)
        scores = rng.permutation(len(predicted)) + 1.0
        for l, s in zip(sorted(predicted), scores):
            pred_rows.append(i)
            pred_cols.append(l)
            pred_vals.append(s / len(predicted))
    truth = sp.csr_matrix(
        (np.ones(len(truth_rows)), (truth_rows, truth_cols)), shape=(instances, labels)
    )
    pred = sp.csr_matrix((pred_vals, (pred_rows, pred_cols)), shape=(instances, labels))
    return train, truth, pred


def write_inputs(directory, train, truth, pred, inverse):
    instances, labels = truth.shape
    counts = np.ravel(train.sum(axis=0)).astype(np.int64)
    with open(os.path.join(directory, "counts.csv"), "w") as f:
        f.write("label,count\n")
        for l in range(labels):
            if counts[l] > 0:
                f.write(f"l{l},{counts[l]}\n")
    with open(os.path.join(directory, "inverse.csv"), "w") as f:
        f.write("label,inverse_propensity\n")
        for l in range(labels):
            f.write(f"l{l},{float(inverse[l])!r}\n")
    with open(os.path.join(directory, "qrels.txt"), "w") as f:
        truth = truth.tocsr()
        for i in range(instances):
            for l in truth.indices[truth.indptr[i] : truth.indptr[i + 1]]:
                f.write(f"t{i} 0 l{l} 1\n")
    with open(os.path.join(directory, "run.trec"), "w") as f:
        pred = pred.tocsr()
        for i in range(instances):
            start, end = pred.indptr[i], pred.indptr[i + 1]
            order = np.argsort(-pred.data[start:end], kind="stable")
            for rank, j in enumerate(order):
                f.write(f"t{i} Q0 l{pred.indices[start + j]} {rank + 1} {float(pred.data[start + j])!r} x\n")


def expected(train, truth, pred):
    """pyxclib's values by rankeval metric name."""
    values, float32 = {}, 0.0
    for family, (a, b) in FAMILIES.items():
        inv = compute_inv_propesity(train, a, b)
        psp = psprecision(pred, truth, inv, max(KS))
        psn = psndcg(pred, truth, inv, max(KS))
        psn32 = psndcg(pred, truth, inv, max(KS), np.float32)
        float32 = max(float32, float(np.max(np.abs(psn32 - psn) / psn)))
        suffix = "" if family == "general" else f"(family={family})"
        for k in KS:
            values[f"psp{suffix}@{k}"] = float(psp[k - 1])
            values[f"psndcg{suffix}@{k}"] = float(psn[k - 1])
    return values, float32


def binary():
    if os.environ.get("RANKEVAL_BIN"):
        return os.environ["RANKEVAL_BIN"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "rankeval")
        if os.path.exists(path):
            return path
    sys.exit("build rankeval first (cargo build --release) or set RANKEVAL_BIN")


def rankeval_means(directory, metrics, propensity_args):
    args = [binary(), "eval", "--qrels", os.path.join(directory, "qrels.txt"),
            "--run", os.path.join(directory, "run.trec"), "--format", "json"]
    args += propensity_args
    for m in metrics:
        args += ["-m", m]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"rankeval failed: {done.stderr}")
    out = done.stdout
    run = json.loads(out)["runs"][0]
    return {m: run["metrics"][m]["mean"] for m in metrics}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", type=int, default=80)
    parser.add_argument("--labels", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fixture", action="store_true")
    args = parser.parse_args()
    train, truth, pred = draw(args.instances, args.labels, args.seed)
    amazon = compute_inv_propesity(train, *FAMILIES["amazon"])
    values, float32 = expected(train, truth, pred)
    print(f"{len(values)} values; pyxclib's float32 nDCG moves PSnDCG by up to {float32:.2e} relative")
    if args.fixture:
        os.makedirs(FIXTURE, exist_ok=True)
        write_inputs(FIXTURE, train, truth, pred, amazon)
        with open(os.path.join(FIXTURE, "expected.json"), "w") as f:
            json.dump({"seed": args.seed, "train_instances": TRAIN, "values": values}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {FIXTURE}")
        return
    worst = 0.0
    with tempfile.TemporaryDirectory() as directory:
        write_inputs(directory, train, truth, pred, amazon)
        counts = ["--label-counts", os.path.join(directory, "counts.csv"), "--train-instances", str(TRAIN)]
        got = rankeval_means(directory, list(values), counts)
        amazon_names = [m for m in values if "amazon" in m]
        plain = [m.replace("(family=amazon)", "") for m in amazon_names]
        given = rankeval_means(directory, plain, ["--inverse-propensities", os.path.join(directory, "inverse.csv")])
        for m in values:
            worst = max(worst, abs(got[m] - values[m]))
        for m, p in zip(amazon_names, plain):
            worst = max(worst, abs(given[p] - values[m]))
    print(f"largest difference from pyxclib's definition: {worst:.3e}")
    if worst > 1e-12:
        sys.exit("FAIL: above 1e-12")
    print("ok")


if __name__ == "__main__":
    main()
