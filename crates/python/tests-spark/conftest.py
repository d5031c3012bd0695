"""A local Spark session (``local[2]``) shared by the Spark tests, its
workers running this interpreter (which has rankeval_rs), and the
``rankeval`` binary the results are compared with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def rankeval_binary() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = Path(os.environ.get("RANKEVAL_BIN", target / "debug" / "rankeval"))
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build it with `cargo build -p rankeval-cli` (or set RANKEVAL_BIN)")
    return binary


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(rankeval_binary()), *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="session")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("rankeval-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
