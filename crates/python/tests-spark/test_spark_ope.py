"""Off-policy evaluation on Spark (``rankeval_rs.spark.ope``) gives
``rankeval ope``'s estimates bit for bit for 1, 3 and 7 partitions: a
bandit log under two rankings (examples/ope's world) and a cascade slate
log under a Plackett-Luce policy, the log's own target column and a reward
model (Cascade-DR)."""

from __future__ import annotations

import json
import math
import re
import random
import struct
from pathlib import Path

import pandas as pd
import pytest

import rankeval_rs
from rankeval_rs import InputError, RankevalError
from rankeval_rs import spark as rs

from conftest import ROOT, cli

PARTITIONS = (1, 3, 7)


def read_log(path: Path) -> pd.DataFrame:
    """The CSV log as the command line reads it: ids as strings, numbers
    correctly rounded (pandas' default float parser is not)."""
    return pd.read_csv(
        path, dtype={"context": str, "impression": str, "item": str}, float_precision="round_trip"
    )


def bits(x: float | None) -> bytes:
    """A number's bits (NaN and null made one value each)."""
    if x is None:
        return b"null"
    return b"nan" if math.isnan(x) else struct.pack("<d", x)


def flat(policies: list[dict]) -> dict[tuple[str, str], list[bytes]]:
    """Each policy's and estimator's numbers, as bits, and its refusals."""
    out = {}
    for policy in policies:
        for e in policy["estimates"]:
            d = e["diagnostics"]
            numbers = [e["value"], e["standard_error"], e["interval"]["lower"], e["interval"]["upper"]]
            numbers += [d["n"], d["ess"], d["max_weight"], d["support"], d["clipped"]]
            out[(policy["name"], e["estimator"])] = [bits(float(x)) for x in numbers] + [
                json.dumps(e["refusals"], sort_keys=True).encode()
            ]
    return out


def cli_policies(*args: str) -> list[dict]:
    done = cli("ope", "--format", "json", "--allow-low-support", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["policies"]


@pytest.fixture(scope="module")
def bandit_log(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("ope-bandit")
    import subprocess
    import sys

    subprocess.run(
        [sys.executable, str(ROOT / "examples/ope/generate.py"), str(where), "--impressions", "3000"],
        check=True,
        capture_output=True,
    )
    return where


def test_bandit_rankings_equal_the_cli_for_any_partitioning(spark, bandit_log):
    log = bandit_log / "log.csv"
    estimators = ["ips", "snips", "clipped_ips(max_weight=5)"]
    policies = {"prod": str(bandit_log / "prod.trec"), "new": str(bandit_log / "new.trec")}
    args = ["--log", str(log)]
    for name, path in policies.items():
        args += ["--policy", f"{name}={path}"]
    for e in estimators:
        args += ["-e", e]
    want = flat(cli_policies(*args))
    frame = read_log(log)
    df = spark.createDataFrame(frame)
    for partitions in PARTITIONS:
        got = rs.ope(df.repartition(partitions), estimators, policies=policies, allow_low_support=True)
        assert got["impressions"] == 3000
        assert flat(got["policies"]) == want, partitions


def slate_log(seed: int, impressions: int) -> tuple[list[dict], list[str], list[str]]:
    """A cascade log of three positions over eight items in twelve
    contexts, the target's conditional probabilities as a column; a run
    of scores for the Plackett-Luce policy and a reward model, as TREC
    lines."""
    rng = random.Random(seed)
    items = [f"i{k}" for k in range(8)]
    rows = []
    for n in range(impressions):
        context = f"c{rng.randrange(12)}"
        left = list(items)
        shown, prop, target, rewards = [], [], [], []
        for position in range(3):
            weights = [1.0 + ((k * 7 + position + int(context[1:])) % 5) for k in range(len(left))]
            total = sum(weights)
            pick = rng.choices(range(len(left)), weights)[0]
            prop.append(weights[pick] / total)
            target.append(rng.uniform(0.05, 0.95))
            shown.append(left.pop(pick))
            rewards.append(float(rng.random() < 0.3 / (position + 1)))
        rows.append(
            {
                "context": context,
                "impression": f"m{n}",
                "item": shown,
                "reward": rewards,
                "propensity": prop,
                "tp": target,
            }
        )
    run, model = [], []
    for c in range(12):
        for rank, k in enumerate(rng.sample(range(8), 8), 1):
            run.append(f"c{c} Q0 i{k} {rank} {rng.uniform(-2, 2)!r} pl")
            model.append(f"c{c} Q0 i{k} {rank} {rng.uniform(0, 0.4)!r} model")
    return rows, run, model


def test_cascade_slates_plackett_luce_target_column_and_model_for_any_partitioning(spark, tmp_path):
    rows, run, model = slate_log(5, 2500)
    # Parquet: the command line reads the same doubles Spark holds.
    import pyarrow as pa
    import pyarrow.parquet as pq

    log = tmp_path / "slates.parquet"
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False), log)
    (tmp_path / "pl.trec").write_text("\n".join(run) + "\n")
    (tmp_path / "model.trec").write_text("\n".join(model) + "\n")
    estimators = ["rips", "slate_ips", "cascade_dr"]
    common = ["--form", "cascade", "--reward-per", "position", "--plackett-luce", "0.7"]
    common += ["--reward-model", str(tmp_path / "model.trec")]
    args = ["--log", str(log), *common, "--policy", f"pl={tmp_path / 'pl.trec'}"]
    for e in estimators:
        args += ["-e", e]
    want = flat(cli_policies(*args))
    # The log's own target column (no model: it has no whole distribution).
    column_args = ["--log", str(log), "--form", "cascade", "--reward-per", "position"]
    column_args += ["--log-columns", "target=tp", "--target-column", "logged", "-e", "rips", "-e", "slate_ips"]
    want_column = flat(cli_policies(*column_args))
    df = spark.createDataFrame(pd.DataFrame(rows))
    for partitions in PARTITIONS:
        part = df.repartition(partitions)
        got = rs.ope(
            part,
            estimators,
            policies={"pl": str(tmp_path / "pl.trec")},
            plackett_luce=0.7,
            form="cascade",
            reward_per="position",
            reward_model=str(tmp_path / "model.trec"),
            allow_low_support=True,
        )
        assert got["impressions"] == 2500 and got["slate_len"] == 3
        assert flat(got["policies"]) == want, partitions
        got = rs.ope(
            part,
            ["rips", "slate_ips"],
            target_column="logged",
            columns={"target": "tp"},
            form="cascade",
            reward_per="position",
            allow_low_support=True,
        )
        assert flat(got["policies"]) == want_column, partitions


def test_bad_rows_and_unsupported_plans_are_errors(spark, bandit_log):
    frame = read_log(bandit_log / "log.csv")
    frame.loc[5, "propensity"] = 0.0
    df = spark.createDataFrame(frame).repartition(1)
    policies = {"prod": str(bandit_log / "prod.trec")}
    with pytest.raises(Exception, match=r"partition 0, row 6, column `propensity`"):
        rs.ope(df, ["ips"], policies=policies, allow_low_support=True)
    good = spark.createDataFrame(read_log(bandit_log / "log.csv"))
    # A ranking's unlogged items are checked on the whole log (they were
    # refused as needing it): every item `prod` shows is logged, so
    # without allow_low_support Spark gives the command line's estimates.
    done = cli("ope", "--format", "json", "--log", str(bandit_log / "log.csv"), "--policy",
               f"prod={policies['prod']}", "-e", "ips")
    assert done.returncode == 0, done.stderr
    assert flat(rs.ope(good, ["ips"], policies=policies)["policies"]) == flat(json.loads(done.stdout)["policies"])
    with pytest.raises(ValueError, match="no target policy"):
        rs.ope(good, ["ips"])
    with pytest.raises(Exception, match="unknown estimator|estimator"):
        rs.ope(good, ["nope"], policies=policies, allow_low_support=True)
    assert InputError is not None


def top_items(run: Path) -> dict[str, str]:
    """The first item of each context's list in a TREC run."""
    tops: dict[str, tuple[int, str]] = {}
    for line in run.read_text().splitlines():
        context, _, item, rank, *_ = line.split()
        if context not in tops or int(rank) < tops[context][0]:
            tops[context] = (int(rank), item)
    return {c: item for c, (_, item) in tops.items()}


def test_an_item_a_ranking_shows_and_the_log_never_shows_is_the_cli_s_error(spark, bandit_log, tmp_path):
    """A ranking that shows, for a context, an item the log never shows in
    it: the command line's error, word for word (with ``rankeval_rs.ope``'s
    keyword that allows it, its error type and text), for 1, 3 and 7
    partitions in the log's order (the first such item by policy, then the context's
    first impression in the log): each partition's unlogged items
    anti-joined with every partition's logged pairs, so a pair logged in
    one partition only is logged. Nothing checked with allow_low_support
    (the supported share says what is missing), as on the command line."""
    from pyspark.sql import functions as F

    frame = read_log(bandit_log / "log.csv")
    runs = {"prod": bandit_log / "prod.trec", "new": bandit_log / "new.trec"}
    policies = {name: str(path) for name, path in runs.items()}
    tops = {name: top_items(path) for name, path in runs.items()}
    # `new`'s top item of u4 never logged for u4; then also `prod`'s of u7
    # and of u2 (prod comes first: its first context in the log is named).
    cases = [
        [("new", "u4")],
        [("new", "u4"), ("prod", "u7"), ("prod", "u2")],
    ]
    for dropped in cases:
        keep = pd.Series(True, index=frame.index)
        for name, context in dropped:
            keep &= ~((frame["context"] == context) & (frame["item"] == tops[name][context]))
        log = frame[keep].reset_index(drop=True)
        path = tmp_path / "log.csv"
        log.to_csv(path, index=False)
        args = ["ope", "--log", str(path), "-e", "ips"]
        for name, run in policies.items():
            args += ["--policy", f"{name}={run}"]
        done = cli(*args)
        assert done.returncode == 2, done.stderr
        assert "an item the log never shows for that context" in done.stderr, done.stderr
        words = done.stderr.strip().removeprefix("error: ").split(" (--allow-low-support")[0]
        with pytest.raises(RankevalError) as local:
            rankeval_rs.ope(path, policies, estimators=["ips"])
        assert str(local.value).startswith(f"{words} (allow_low_support=True"), local.value
        log = log.assign(row=range(len(log)))
        df = spark.createDataFrame(log)
        for partitions in PARTITIONS:
            parts = df.repartitionByRange(partitions, "row").drop("row")
            with pytest.raises(RankevalError) as error:
                rs.ope(parts, ["ips"], policies=policies)
            assert (type(error.value), str(error.value)) == (type(local.value), str(local.value)), partitions
            allowed = rs.ope(parts, ["ips"], policies=policies, allow_low_support=True)
            assert allowed["impressions"] == len(log)
    # The dropped pair logged once, in the last partition, while u4's
    # first impressions are in the first: logged, the command line's bits.
    once = frame[~((frame["context"] == "u4") & (frame["item"] == tops["new"]["u4"]))]
    last = frame[(frame["context"] == "u4") & (frame["item"] == tops["new"]["u4"])].head(1)
    log = pd.concat([once, last]).reset_index(drop=True)
    path = tmp_path / "once.csv"
    log.to_csv(path, index=False)
    want = flat(json.loads(cli("ope", "--format", "json", "--log", str(path), "-e", "ips",
                               "--policy", f"new={policies['new']}").stdout)["policies"])
    df = spark.createDataFrame(log.assign(row=range(len(log))))
    for partitions in PARTITIONS:
        parts = df.repartitionByRange(partitions, "row").drop("row")
        where = parts.select("context", F.spark_partition_id().alias("p")).filter(F.col("context") == "u4")
        assert len({r["p"] for r in where.collect()}) == partitions
        got = rs.ope(parts, ["ips"], policies={"new": policies["new"]})
        assert flat(got["policies"]) == want, partitions


def grouped_document(got: dict) -> dict:
    """`document` with each group's report (its `document`), the notes
    on contexts in no group, and whether the families span the groups."""
    out = document(got)
    out["groups"] = [
        {"column": g["column"], "value": g["value"], "report": document(g["report"])} for g in got.get("groups", [])
    ]
    out["notes"] = got.get("notes")
    out["groups_in_family"] = got.get("groups_in_family")
    return out


def test_groups_of_contexts_equal_the_cli_for_any_partitioning(spark, bandit_log, tmp_path):
    """Groups of contexts on Spark (``groups=``): each group's estimates,
    comparisons and correction, the note on the contexts in no group,
    the families across the groups (``groups_in_family``) and the gates
    on a group, the command line's document and exit code, every number
    bit for bit, for 1, 3 and 7 partitions: each partition cut by the
    groups file, each group's states and paired sums merged as the
    log's are."""
    log = bandit_log / "log.csv"
    groups = tmp_path / "groups.tsv"
    # u19 in no segment; parity by number (10 after 2).
    lines = ["context\tsegment\tparity"]
    for u in range(20):
        segment = "" if u == 19 else ("head" if u < 8 else "tail")
        lines.append(f"u{u}\t{segment}\t{[1, 2, 10][u % 3]}")
    groups.write_text("\n".join(lines) + "\n")
    policies = {"prod": str(bandit_log / "prod.trec"), "new": str(bandit_log / "new.trec")}
    gates = ["snips:non_inferior(margin=0.01)", "ips[segment=tail]:at_least(floor=0.02)", "snips[parity=10]:superior(alpha=0.05)"]
    df = spark.createDataFrame(read_log(log))
    for in_family in (False, True):
        args = ["--log", str(log), "-e", "ips", "-e", "snips", "--groups", str(groups), "--correction", "holm"]
        for name, path in policies.items():
            args += ["--policy", f"{name}={path}"]
        for gate in gates:
            args += ["--gate", gate]
        if in_family:
            args.append("--groups-in-family")
        code, want = cli_document(*args)
        assert len(want["groups"]) == 2 + 3 and want["notes"], want.get("notes")
        assert len(want["gates"]) == 1 + 2 + 1
        for partitions in PARTITIONS:
            got = rs.ope(
                df.repartition(partitions),
                ["ips", "snips"],
                policies=policies,
                groups=str(groups),
                correction="holm",
                gates=gates,
                groups_in_family=in_family,
            )
            assert grouped_document(got) == grouped_document(want), (in_family, partitions)
            assert got["exit_code"] == code


def test_sampled_plackett_luce_marginals_for_any_partitioning(spark, tmp_path):
    """The Monte Carlo's draws depend on the seed and the impression id,
    not on the partition: the command line's bits for 1, 3 and 7
    partitions."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows, run, _ = slate_log(9, 1500)
    log = tmp_path / "marginal.parquet"
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False), log)
    (tmp_path / "pl.trec").write_text("\n".join(run) + "\n")
    args = ["--log", str(log), "--form", "marginal", "--reward-per", "position"]
    args += ["--policy", f"pl={tmp_path / 'pl.trec'}", "--plackett-luce", "0.7", "--samples", "300", "--seed", "9"]
    args += ["-e", "iips", "-e", "pi"]
    want = flat(cli_policies(*args))
    df = spark.createDataFrame(pd.DataFrame(rows))
    for partitions in PARTITIONS:
        got = rs.ope(
            df.repartition(partitions),
            ["iips", "pi"],
            policies={"pl": str(tmp_path / "pl.trec")},
            plackett_luce=0.7,
            form="marginal",
            reward_per="position",
            samples=300,
            seed=9,
            allow_low_support=True,
        )
        assert flat(got["policies"]) == want, partitions


def document(got: dict) -> dict:
    """`rankeval ope --format json`'s fields of a report (the log's name
    left out: a file on the command line, `spark` on Spark); numbers as
    parsed from JSON, so equal means the same bits (shortest round-trip
    decimals both ways)."""
    keys = ("interval", "level", "floors", "policies", "comparisons", "allow_low_support", "gates", "correction")
    out = {k: got.get(k) for k in keys}
    out["log"] = {k: v for k, v in got["log"].items() if k != "name"}
    return out


def cli_document(*args: str) -> tuple[int, dict]:
    done = cli("ope", "--format", "json", *args)
    assert done.returncode in (0, 1, 2), done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.fixture(scope="module")
def click_example(tmp_path_factory) -> Path:
    """examples/ope's click log (clicks.py), 1,500 impressions of 8
    positions, one row per impression and position."""
    import subprocess
    import sys

    where = tmp_path_factory.mktemp("ope-clicks")
    subprocess.run(
        [sys.executable, str(ROOT / "examples/ope/clicks.py"), str(where), "--impressions", "1500"],
        check=True,
        capture_output=True,
    )
    return where


def read_clicks(path: Path) -> pd.DataFrame:
    return pd.read_csv(
        path, dtype={"context": str, "impression": str, "item": str}, float_precision="round_trip"
    )


def test_click_log_comparisons_and_gates_equal_the_cli_for_any_partitioning(spark, click_example):
    """A click log (form examination) one row per impression and position,
    its rows of an impression in one partition (partitioned by the
    impression id): the estimates, the paired comparison of `new` with
    `prod`, the gates and the exit code of `rankeval ope`, to the bit."""
    log = click_example / "clicks.csv"
    policies = {"prod": str(click_example / "prod.trec"), "new": str(click_example / "new.trec")}
    estimators = ["ips_dcg@5", "ips_rbp(p=0.8)", "ips_p@3(max_weight=4)"]
    gates = ["ips_dcg@5:non_inferior(margin=0.05)", "ips_rbp(p=0.8):at_least(floor=0.45)"]
    args = ["--log", str(log), "--form", "examination", "--correction", "holm"]
    for name, path in policies.items():
        args += ["--policy", f"{name}={path}"]
    for e in estimators:
        args += ["-e", e]
    for g in gates:
        args += ["--gate", g]
    code, want = cli_document(*args)
    # `prod`'s RBP is below the floor: a failed gate, exit 1.
    assert code == 1 and len(want["comparisons"]) == 3
    df = spark.createDataFrame(read_clicks(log))
    for partitions in PARTITIONS:
        got = rs.ope(
            df.repartition(partitions, "impression"),
            estimators,
            policies=policies,
            form="examination",
            gates=gates,
            correction="holm",
        )
        assert got["impressions"] == 1500 and got["slate_len"] == 8
        assert document(got) == document(want), partitions
        assert got["exit_code"] == code and got["passed"] is False


def test_click_log_propensities_per_rank_in_list_columns(spark, click_example, tmp_path):
    """The same clicks as list columns without a propensity column, the
    examination propensities given per rank (`--examination`, a rule and
    a list), and a refusal: the CLI's document and exit code (2) for any
    partitioning, the refused values withheld in both."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = read_clicks(click_example / "clicks.csv").sort_values(["impression", "position"], kind="stable")
    lists = (
        frame.groupby("impression", sort=False)
        .agg(context=("context", "first"), item=("item", list), reward=("reward", list))
        .reset_index()
    )
    lists["reward"] = lists["reward"].map(lambda r: [float(x) for x in r])
    log = tmp_path / "clicks.parquet"
    pq.write_table(pa.Table.from_pandas(lists, preserve_index=False), log)
    policies = {"prod": str(click_example / "prod.trec"), "new": str(click_example / "new.trec")}
    df = spark.createDataFrame(lists)
    for rule, keyword in [("power(eta=1)", "power(eta=1)"), ("1,0.5,0.25,0.2,0.2,0.1,0.1,0.1", [1, 0.5, 0.25, 0.2, 0.2, 0.1, 0.1, 0.1])]:
        args = ["--log", str(log), "--examination", rule, "-e", "ips_dcg@5", "-e", "ips_p@3", "--min-ess", "1200"]
        for name, path in policies.items():
            args += ["--policy", f"{name}={path}"]
        code, want = cli_document(*args)
        assert code == 2
        assert any(e["refusals"] for p in want["policies"] for e in p["estimates"])
        for partitions in PARTITIONS:
            got = rs.ope(
                df.repartition(partitions),
                ["ips_dcg@5", "ips_p@3"],
                policies=policies,
                examination=keyword,
                min_ess=1200,
            )
            assert document(got) == document(want), (rule, partitions)
            assert got["exit_code"] == 2 and got["refused"] is True


def test_bandit_comparisons_corrections_and_gates_equal_the_cli(spark, bandit_log, tmp_path):
    """Three rankings of the bandit log with a reward model: every
    estimator form's paired comparison (a mean: IPS, DR; a ratio: SNIPS; a
    mean plus a ratio: SNDR), Holm's correction over each estimator's two
    comparisons, and gates that pass, fail and read the corrected p-value,
    as `rankeval ope` gives them, for any partitioning."""
    log = bandit_log / "log.csv"
    model = tmp_path / "model.trec"
    model.write_text(
        "".join(f"u{u} Q0 i{i} {i + 1} {0.01 * ((7 * u + 3 * i) % 10)!r} model\n" for u in range(20) for i in range(10))
    )
    (tmp_path / "other.trec").write_text((bandit_log / "new.trec").read_text().replace(" new\n", " other\n"))
    policies = {
        "prod": str(bandit_log / "prod.trec"),
        "new": str(bandit_log / "new.trec"),
        "other": str(tmp_path / "other.trec"),
    }
    estimators = ["ips", "snips", "dr", "sndr"]
    gates = ["snips:non_inferior(margin=0.01)", "ope.dr:superior(alpha=0.05)", "ips:at_least(floor=0.2)", "sndr:non_inferior(margin=5%,run=other)"]
    args = ["--log", str(log), "--reward-model", str(model), "--allow-low-support", "--correction", "holm"]
    for name, path in policies.items():
        args += ["--policy", f"{name}={path}"]
    for e in estimators:
        args += ["-e", e]
    for g in gates:
        args += ["--gate", g]
    code, want = cli_document(*args)
    assert code == 1 and len(want["comparisons"]) == 8
    assert all("corrected_p_value" in c for c in want["comparisons"])
    df = spark.createDataFrame(read_log(log))
    for partitions in PARTITIONS:
        got = rs.ope(
            df.repartition(partitions),
            estimators,
            policies=policies,
            reward_model=str(model),
            allow_low_support=True,
            gates=gates,
            correction="holm",
        )
        assert document(got) == document(want), partitions
        assert got["exit_code"] == code


def test_an_impression_id_in_two_partitions_is_refused(spark, bandit_log, tmp_path):
    """An impression id repeated in rows that land in two partitions is an
    error naming the id and the partitions (not counted twice); the
    command line refuses the same log naming the rows."""
    from pyspark.sql import functions as F

    frame = read_log(bandit_log / "log.csv")
    frame.loc[len(frame) - 1, "impression"] = frame.loc[0, "impression"]
    duplicated = tmp_path / "log.csv"
    frame.to_csv(duplicated, index=False)
    done = cli("ope", "--log", str(duplicated), "--policy", f"prod={bandit_log / 'prod.trec'}", "-e", "ips")
    assert done.returncode == 2 and "impression" in done.stderr and "line 3001" in done.stderr, done.stderr
    frame["row"] = range(len(frame))
    df = spark.createDataFrame(frame).repartitionByRange(2, "row").drop("row")
    where = df.select("impression", F.spark_partition_id().alias("p")).filter(
        F.col("impression") == frame.loc[0, "impression"]
    )
    assert sorted(r["p"] for r in where.collect()) == [0, 1]
    policies = {"prod": str(bandit_log / "prod.trec")}
    with pytest.raises(InputError, match=r"repeated across partitions .*`1` in partitions 0, 1"):
        rs.ope(df, ["ips"], policies=policies, allow_low_support=True)
    # Within one partition the reader refuses it, naming the row.
    with pytest.raises(Exception, match=r"partition 0, row \d+, column `impression`: impression `1` again"):
        rs.ope(df.repartition(1), ["ips"], policies=policies, allow_low_support=True)


def test_bad_keywords_are_refused_before_any_job(spark, bandit_log):
    """The driver's keywords are checked before the log is read: a gate on
    an estimator not given, on a group without the groups or on an
    unknown policy, an unknown correction, per-rank propensities on a log
    of another form, and a click log with a reward per impression."""
    df = spark.createDataFrame(read_log(bandit_log / "log.csv"))
    policies = {"prod": str(bandit_log / "prod.trec"), "new": str(bandit_log / "new.trec")}
    bad = [
        (dict(gates=["snips:non_inferior(margin=0.01)"]), "snips is not among the estimators"),
        (dict(gates=["ips[segment=head]:at_least(floor=0.1)"]), "needs the groups"),
        (dict(gates=["ips:at_least(floor=0.1,run=nobody)"]), "no policy `nobody`"),
        (dict(correction="sidak"), "unknown correction"),
        (dict(form="action", examination="power(eta=1)"), "a click log's"),
        (dict(examination="power(eta=-1)"), "eta is a finite number"),
        (dict(form="examination", reward_per="impression"), "a click per position"),
        (dict(level=1.0), "strictly between 0 and 1"),
    ]
    for keywords, message in bad:
        with pytest.raises(ValueError, match=re.escape(message)):
            rs.ope(df, ["ips"], policies=policies, allow_low_support=True, **keywords)


def test_the_keywords_are_rankeval_rs_ope_s(spark, bandit_log):
    """`rankeval_rs.spark.ope` takes `rankeval_rs.ope`'s keywords, resolved
    by the same spec: policies as a list of run files (named by the run
    naming rule), `log_columns`, no estimator (the form's default, SNIPS
    for a bandit log), a layout; the command's numbers and names."""
    log = bandit_log / "log.csv"
    runs = [str(bandit_log / "prod.trec"), str(bandit_log / "new.trec")]
    want = flat(cli_policies("--log", str(log), "--policy", runs[0], "--policy", runs[1]))
    assert [e for _, e in want] == ["snips", "snips"]
    df = spark.createDataFrame(read_log(log)).repartition(3)
    got = rs.ope(
        df,
        policies=runs,
        log_columns={"context": "context", "impression": "impression"},
        layout="impression",
        allow_low_support=True,
    )
    assert flat(got["policies"]) == want
    with pytest.raises(ValueError, match="not both"):
        rs.ope(df, policies=runs, log_columns={}, columns={})
