#!/usr/bin/env bash
# The Spark tests (crates/python/tests-spark, then
# examples/custom-aggregator/tests-spark): rankeval_rs.spark on a local
# Spark (`local[2]`), its results compared bit for bit with the `rankeval`
# binary's. A virtual environment of its own under target/spark-venv
# (pyspark is a large download: installed once, reused while the venv is
# there), Java 17 from Debian's openjdk-17-jre-headless where no `java` is
# on PATH (scripts/install-prerequisites.sh spark). Run by .ci/run as its
# own step; needs Python 3.11+ (pyspark 4).
set -euo pipefail
cd "$(dirname "$0")/../.."

scripts/install-prerequisites.sh spark

venv=target/spark-venv
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"spark-tests: pyspark 4 needs Python 3.11+, this is {sys.version.split()[0]} (set PYTHON)")
PY
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r crates/python/tests-spark/requirements.txt

cargo build --quiet -p rankeval-cli --bin rankeval
VIRTUAL_ENV="$PWD/$venv" PATH="$PWD/$venv/bin:$PATH" \
    maturin develop --quiet --manifest-path crates/python/Cargo.toml

status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider crates/python/tests-spark "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests in crates/python/tests-spark" >&2
    exit 1
fi
[ "$status" -eq 0 ] || exit "$status"

# A user's aggregator plugin on Spark (examples/custom-aggregator): the same
# package built with the plugin linked in, its results compared bit for bit
# with the example's own `rankeval` binary; then the stock module again.
cargo build --quiet -p rankeval-example-custom-aggregator
VIRTUAL_ENV="$PWD/$venv" PATH="$PWD/$venv/bin:$PATH" \
    maturin develop --quiet --manifest-path examples/custom-aggregator/python/Cargo.toml
"$venv/bin/python" -m pytest -q -p no:cacheprovider examples/custom-aggregator/tests-spark || status=$?
VIRTUAL_ENV="$PWD/$venv" PATH="$PWD/$venv/bin:$PATH" \
    maturin develop --quiet --manifest-path crates/python/Cargo.toml
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests in examples/custom-aggregator/tests-spark" >&2
    exit 1
fi
exit "$status"
