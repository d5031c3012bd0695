"""A local Spark session (``local[2]``) whose workers run this interpreter,
where ``rankeval_rs`` is this example's build (scripts/test/spark.sh
installs it), and the example's ``rankeval`` binary the results are
compared with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BINARY = "rankeval-example-custom-aggregator"


def cli(*args: str) -> subprocess.CompletedProcess:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = target / "debug" / BINARY
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build it with `cargo build -p {BINARY}`")
    return subprocess.run([str(binary), *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="session")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("rankeval-custom-aggregator")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
