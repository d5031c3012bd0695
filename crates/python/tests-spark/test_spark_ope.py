"""Off-policy evaluation on Spark (``rankeval_rs.spark.ope``) gives
``rankeval ope``'s estimates bit for bit for 1, 3 and 7 partitions: a
bandit log under two rankings (examples/ope's world) and a cascade slate
log under a Plackett-Luce policy, the log's own target column and a reward
model (Cascade-DR)."""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path

import pandas as pd
import pytest

from rankeval_rs import InputError
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
    # A ranking's unlogged items need the whole log.
    with pytest.raises(Exception, match="needs the whole log"):
        rs.ope(good, ["ips"], policies=policies)
    with pytest.raises(ValueError, match="no target policy"):
        rs.ope(good, ["ips"])
    with pytest.raises(Exception, match="unknown estimator|estimator"):
        rs.ope(good, ["nope"], policies=policies, allow_low_support=True)
    assert InputError is not None


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
