"""In-process benchmark of the Python package (rankeval_rs) against the
Python peers, on the same data and metrics (MAP, MRR, P@10, recall@10,
nDCG@10): pytrec_eval (pip pytrec-eval-terrier), ranx (warm: numba compiled
by a first call) and ir_measures.

    python scripts/bench/python-peers.py [--shapes 10000x100 100000x100] [--rounds 3] [--seed 7]
                                   [--tools rankeval_rs pytrec_eval ranx ir_measures]
                                   [--polars-only]

For each shape (queries x documents per query) it generates a seeded TREC
qrels file (grades 0-3) and run (scores with ties) under
target/bench-python/, reads the run once into a pandas DataFrame (columns
query, doc, score; not timed), then times, per tool, one evaluation of the
run given as that DataFrame (the conversion into the tool's own form
included) and given as the file (read included). Qrels are loaded once per
tool, outside the timings. Each figure is the median of the rounds (ranx
and rankeval_rs get a warm-up call first; ranx compiles its numba code
then); ratios are against rankeval_rs from the DataFrame, measured in the
same run. rankeval_rs's DataFrame time is also split into the pandas to
Arrow hand-over and the table's reading while it is evaluated, next to
converting it whole first (`rankeval_rs.run`) and evaluating that. Peers that are not
installed are skipped with a word. The means of each tool are compared with
rankeval_rs's (ties are ordered differently by ranx, so small differences
there are expected).

With polars installed, each shape also gives rankeval_rs the run as a polars
DataFrame (read with `pl.read_csv`: `string_view` columns in many chunks, as
polars reads files) and as the same frame after `.to_arrow()` (a pyarrow
table, `large_string`): time and peak extra memory of one evaluation (the
high-water mark of the process's resident memory during the call, minus its
resident memory before; Rust's allocations included), one call per fresh
process, the medians of `--rounds` processes of each kind. `--polars-only`
runs that comparison alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
METRICS = ["ap", "rr", "p@10", "recall@10", "ndcg@10"]


def generate(queries: int, depth: int, seed: int) -> tuple[Path, Path]:
    """Seeded TREC qrels and run under target/bench-python/ (made once)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv

    folder = ROOT / "target" / "bench-python" / f"{queries}x{depth}-seed{seed}"
    qrels_path, run_path = folder / "qrels.txt", folder / "run.trec"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.Generator(np.random.PCG64(seed))
    pool = depth * 20  # each query's documents come from its own pool

    def ids(prefix: str, values: np.ndarray) -> pa.Array:
        return pc.binary_join_element_wise(prefix, pa.array(values).cast(pa.string()), "")

    # Run: `depth` distinct documents per query, scores with 3 decimals (ties).
    q = np.repeat(np.arange(queries), depth)
    docs = np.concatenate([rng.choice(pool, depth, replace=False) for _ in range(queries)])
    scores = np.round(rng.random(queries * depth), 3)
    rank = np.tile(np.arange(1, depth + 1), queries)
    run = pa.table({
        "q": ids("q", q), "q0": pa.array(np.full(q.size, "Q0")), "doc": ids("d", docs),
        "rank": rank, "score": scores, "tag": pa.array(np.full(q.size, "bench")),
    })
    # Qrels: 30 judged documents per query, grades 0-3, half of them retrieved.
    judged = 30
    jq = np.repeat(np.arange(queries), judged)
    jdocs = np.concatenate([
        np.concatenate([docs[i * depth:(i + 1) * depth][: judged // 2],
                        rng.choice(np.arange(pool, pool * 2), judged - judged // 2, replace=False)])
        for i in range(queries)
    ])
    grades = rng.choice([0, 0, 1, 1, 2, 3], jq.size)
    qrels = pa.table({"q": ids("q", jq), "it": pa.array(np.zeros(jq.size, dtype=np.int64)),
                      "doc": ids("d", jdocs), "grade": grades})
    options = csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    csv.write_csv(run, run_path, options)
    csv.write_csv(qrels, qrels_path, options)
    return qrels_path, run_path


def read_run_frame(run_path: Path):
    import pyarrow.csv as csv

    table = csv.read_csv(
        run_path,
        read_options=csv.ReadOptions(column_names=["query", "q0", "doc", "rank", "score", "tag"]),
        parse_options=csv.ParseOptions(delimiter=" "),
        convert_options=csv.ConvertOptions(include_columns=["query", "doc", "score"]),
    )
    return table.to_pandas()


def tools(qrels_path: Path, run_path: Path):
    """(name, setup) pairs; setup loads the qrels and returns {case: callable}."""
    def rankeval_rs_cases():
        import rankeval_rs

        qrels = rankeval_rs.qrels(qrels_path)
        def evaluate(run):
            return rankeval_rs.evaluate(qrels, run, METRICS, query="query", doc="doc").means
        return {"DataFrame": evaluate, "file": lambda _: evaluate(run_path)}

    def pytrec_eval_cases():
        import pytrec_eval

        with open(qrels_path) as f:
            qrels = pytrec_eval.parse_qrel(f)
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, {"map", "recip_rank", "P_10", "recall_10", "ndcg_cut_10"})
        names = ["map", "recip_rank", "P_10", "recall_10", "ndcg_cut_10"]

        def means(run):
            results = evaluator.evaluate(run)
            return {m: statistics.fmean(r[m] for r in results.values()) for m in names}

        def from_frame(frame):
            run: dict = {}
            for q, d, s in zip(frame["query"].tolist(), frame["doc"].tolist(), frame["score"].tolist()):
                run.setdefault(q, {})[d] = s
            return means(run)

        def from_file(_):
            with open(run_path) as f:
                return means(pytrec_eval.parse_run(f))
        return {"DataFrame": from_frame, "file": from_file}

    def ranx_cases():
        from ranx import Qrels, Run, evaluate

        qrels = Qrels.from_file(str(qrels_path), kind="trec")
        names = ["map", "mrr", "precision@10", "recall@10", "ndcg@10"]
        def from_frame(frame):
            # ranx takes string ids only as `object` columns.
            frame = frame.astype({"query": object, "doc": object})
            run = Run.from_df(frame, q_id_col="query", doc_id_col="doc", score_col="score")
            return evaluate(qrels, run, names)
        def from_file(_):
            return evaluate(qrels, Run.from_file(str(run_path), kind="trec"), names)
        return {"DataFrame": from_frame, "file": from_file}

    def ir_measures_cases():
        import ir_measures
        from ir_measures import AP, RR, P, R, nDCG

        qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
        measures = [AP, RR, P @ 10, R @ 10, nDCG @ 10]
        def from_frame(frame):
            run = frame.rename(columns={"query": "query_id", "doc": "doc_id"})
            means = ir_measures.calc_aggregate(measures, qrels, run)
            return {str(m): means[m] for m in measures}  # in the benchmark's order
        def from_file(_):
            means = ir_measures.calc_aggregate(measures, qrels, ir_measures.read_trec_run(str(run_path)))
            return {str(m): means[m] for m in measures}
        return {"DataFrame": from_frame, "file": from_file}

    return [("rankeval_rs", rankeval_rs_cases), ("pytrec_eval", pytrec_eval_cases),
            ("ranx (warm)", ranx_cases), ("ir_measures", ir_measures_cases)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", nargs="+", default=["10000x100", "100000x100"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tools", nargs="+", default=["rankeval_rs", "pytrec_eval", "ranx", "ir_measures"],
                        help="the tools to time (rankeval_rs is always timed)")
    parser.add_argument("--polars-only", action="store_true",
                        help="only compare a polars DataFrame with the same data as a pyarrow table")
    args = parser.parse_args()

    import os
    import platform

    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"load average {load_average()}")
    print(f"metrics: {', '.join(METRICS)}; seed {args.seed}; median of {args.rounds} rounds (ranx and rankeval_rs warmed up)")
    for shape in args.shapes:
        queries, depth = (int(x) for x in shape.split("x"))
        qrels_path, run_path = generate(queries, depth, args.seed)
        if args.polars_only:
            print(f"\n{shape}:")
            polars_against_pyarrow(qrels_path, run_path, args.rounds)
            continue
        frame = read_run_frame(run_path)
        print(f"\n{shape}: {len(frame):,} run lines ({run_path.stat().st_size / 1e6:.0f} MB), "
              f"DataFrame dtypes {dict(frame.dtypes.astype(str))}")
        timings: dict[tuple[str, str], float] = {}
        reference = None
        for name, setup in tools(qrels_path, run_path):
            if name != "rankeval_rs" and name.split()[0] not in args.tools:
                continue
            try:
                cases = setup()
            except ImportError as missing:
                print(f"  {name}: skipped ({missing.name} is not installed)")
                continue
            for case, call in cases.items():
                # A warm-up call where it matters (ranx compiles its numba
                # code; rankeval_rs is cheap); the slow peers' first round
                # is timed, to keep the benchmark short.
                warm = name.startswith(("ranx", "rankeval_rs"))
                samples = []
                try:
                    means = call(frame) if warm else None
                    for _ in range(args.rounds):
                        start = time.perf_counter()
                        means = call(frame)
                        samples.append(time.perf_counter() - start)
                except Exception as failed:  # a peer's failure is reported, not fatal
                    print(f"  {name:12} {case:9} failed: {type(failed).__name__}: {failed}")
                    continue
                if reference is None:
                    reference = list(means.values())
                timings[(name, case)] = statistics.median(samples)
                diff = max(abs(a - b) for a, b in zip(reference, means.values()))
                print(f"  {name:12} {case:9} {timings[(name, case)]:9.3f} s   max |mean - rankeval_rs| {diff:.1e}",
                      flush=True)
        base = timings[("rankeval_rs", "DataFrame")]
        print(f"  ratios to rankeval_rs from the DataFrame ({base:.3f} s; load average now {load_average()}):")
        for (name, case), seconds in timings.items():
            print(f"    {name:12} {case:9} {seconds / base:8.1f}x")
        peers = [s for (n, _), s in timings.items() if n != "rankeval_rs"]
        if peers:
            print(f"  fastest peer / rankeval_rs (DataFrame): {min(peers) / base:.1f}x")
        conversion_split(qrels_path, frame, args.rounds)
        python_metric_cost(qrels_path, run_path, queries, args.rounds)
        polars_against_pyarrow(qrels_path, run_path, args.rounds)
    return 0


def load_average() -> str:
    """The 1, 5 and 15 minute load averages: the ratios are only as good
    as the machine was quiet (rankeval_rs uses every core, the peers one)."""
    import os

    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def median_time(call, rounds: int) -> float:
    call()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def conversion_split(qrels_path: Path, frame, rounds: int) -> None:
    """Where rankeval_rs's DataFrame time goes: the pandas columns handed
    over as Arrow (in Python), then the table read and evaluated query by
    query (in Rust, GIL released); and, for comparison, the table converted
    whole into a Run (`rankeval_rs.run`, to evaluate many times) and that
    run's evaluation."""
    import rankeval_rs
    from rankeval_rs import _inputs

    qrels = rankeval_rs.qrels(qrels_path)
    wanted = [("query", "user", "query ids"), ("doc", "item", "document ids"), ("score", "score", "scores")]
    to_arrow = median_time(lambda: _inputs._pandas_arrow(frame, "run table", wanted), rounds)
    whole = median_time(lambda: rankeval_rs.evaluate(qrels, frame, METRICS, query="query", doc="doc"), rounds)
    convert = median_time(lambda: rankeval_rs.run(frame, query="query", doc="doc"), rounds)
    run = rankeval_rs.run(frame, query="query", doc="doc")
    evaluate = median_time(lambda: rankeval_rs.evaluate(qrels, run, METRICS), rounds)
    print(f"  rankeval_rs from the DataFrame: pandas to Arrow {to_arrow:.4f} s, read while evaluated "
          f"{whole - to_arrow:.3f} s; converted whole first (rankeval_rs.run) {convert:.3f} s, "
          f"then evaluated {evaluate:.3f} s")


def python_metric_cost(qrels_path: Path, run_path: Path, queries: int, rounds: int) -> None:
    """The cost per query of a metric written in Python: the same evaluation
    with and without it (a one-line NumPy precision@10)."""
    import rankeval_rs

    rankeval_rs.register_metric(
        "bench_p", lambda grades, num_relevant, ideal: float(np.count_nonzero(grades >= 1)) / 10)
    qrels = rankeval_rs.qrels(qrels_path)
    run = rankeval_rs.run(run_path)
    def timed(metrics: list[str]) -> float:
        rankeval_rs.evaluate(qrels, run, metrics)
        samples = []
        for _ in range(rounds):
            start = time.perf_counter()
            rankeval_rs.evaluate(qrels, run, metrics)
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)
    builtin, python = timed(["p@10"]), timed(["p@10", "bench_p@10"])
    print(f"  a Python metric (numpy p@10) costs {(python - builtin) / queries * 1e6:.1f} us per query "
          f"({builtin:.3f} s with p@10 alone, {python:.3f} s with bench_p@10 too)")
    rankeval_rs.unregister_metric("bench_p")


#: The argument that makes this script the child process of
#: `polars_against_pyarrow`.
ARROW_CHILD = "__arrow_input"


def polars_against_pyarrow(qrels_path: Path, run_path: Path, rounds: int) -> None:
    """rankeval_rs given the run as a polars DataFrame and as the same frame
    after `.to_arrow()`: time and peak extra memory of one call, each call
    in a fresh process (see `arrow_input_child`: memory a producer's
    allocator freed and kept would hide a second call's), the two kinds
    alternating so that both meet the same load; medians of `rounds`
    processes each."""
    import json
    import subprocess

    try:
        import polars  # noqa: F401
    except ImportError:
        print("  polars against pyarrow: skipped (polars is not installed)")
        return
    measured: dict[str, list[dict]] = {"polars": [], "pyarrow": []}
    for _ in range(rounds):
        for kind in measured:
            child = subprocess.run(
                [sys.executable, __file__, ARROW_CHILD, kind, str(qrels_path), str(run_path)],
                check=True, capture_output=True, text=True)
            measured[kind].append(json.loads(child.stdout.strip().splitlines()[-1]))
    summary = {}
    for kind, calls in measured.items():
        seconds = statistics.median(call["seconds"] for call in calls)
        extra = statistics.median(call["extra_bytes"] for call in calls)
        summary[kind] = (seconds, extra)
        each = ", ".join(f"{c['seconds']:.2f} s +{c['extra_bytes'] / 1e6:.0f} MB" for c in calls)
        print(f"  rankeval_rs from {calls[0]['what']}: {seconds:.3f} s, +{extra / 1e6:.0f} MB "
              f"(medians of {rounds} processes: {each})")
    (time_pl, mem_pl), (time_pa, mem_pa) = summary["polars"], summary["pyarrow"]
    memory_ratio = f"{mem_pl / mem_pa:.2f}x" if mem_pa > 0 else "n/a"
    print(f"  polars / pyarrow: {time_pl / time_pa:.2f}x the time, {memory_ratio} the extra memory "
          f"(load average now {load_average()})")


def arrow_input_child(kind: str, qrels_path: Path, run_path: Path) -> None:
    """One call measured in this (fresh) process: the run read by polars
    (`pl.read_csv`), given as the DataFrame or as `.to_arrow()` of it, after
    a warm-up call on its first 1000 rows; prints one line of JSON."""
    import ctypes
    import gc
    import json
    import warnings

    import polars as pl
    import rankeval_rs

    names = ["query", "q0", "doc", "rank", "score", "tag"]
    frame = pl.read_csv(run_path, separator=" ", has_header=False, new_columns=names, columns=[0, 2, 4])
    if kind == "polars":
        data = frame
        what = f"a polars DataFrame (string_view, {max(frame.n_chunks('all'))} chunks)"
    else:
        # The frame is kept: memory it would free could be reused during
        # the call and hide what the call takes.
        data = frame.to_arrow()
        what = f"its .to_arrow() (pyarrow, {data.schema.field('doc').type}, {data.column('doc').num_chunks} chunks)"
    qrels = rankeval_rs.qrels(qrels_path)

    def status(key: str) -> int:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key + ":"))

    warnings.simplefilter("ignore")  # the warm-up's queries without lists
    rankeval_rs.evaluate(qrels, data.slice(0, 1000), METRICS, query="query", doc="doc")
    gc.collect()
    libc = ctypes.CDLL(None)
    if hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)  # freed memory goes back, so that its reuse does not hide growth
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the resident size now
    before = status("VmRSS")
    start = time.perf_counter()
    rankeval_rs.evaluate(qrels, data, METRICS, query="query", doc="doc")
    seconds = time.perf_counter() - start
    extra = status("VmHWM") - before
    print(json.dumps({"what": what, "seconds": seconds, "extra_bytes": extra}))


if __name__ == "__main__":
    if sys.argv[1:2] == [ARROW_CHILD]:
        kind, qrels_arg, run_arg = sys.argv[2:5]
        arrow_input_child(kind, Path(qrels_arg), Path(run_arg))
        sys.exit(0)
    sys.exit(main())
