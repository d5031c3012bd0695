#!/usr/bin/env bash
# The Python package's tests (crates/python, import name rankeval_rs): a
# virtual environment of its own under target/, the package built into it
# with maturin, the `rankeval` binary the tests compare with, then pytest.
# Run by .ci/run; needs python3 (3.10+) with venv, and network access to PyPI
# the first time. PYTHON picks the interpreter.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r crates/python/tests/requirements.txt
# polars and DuckDB, as Arrow inputs: their tests are skipped (with the
# reason) where these cannot be installed.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r crates/python/tests/requirements-optional.txt \
    || echo "note: polars/duckdb not installed; their tests will be skipped" >&2

cargo build --quiet -p rankeval-cli --bin rankeval
VIRTUAL_ENV="$PWD/$venv" PATH="$PWD/$venv/bin:$PATH" \
    maturin develop --quiet --manifest-path crates/python/Cargo.toml

# The type stubs (_native.pyi) agree with how the package uses the module.
"$venv/bin/python" -m mypy --config-file crates/python/pyproject.toml crates/python/python/rankeval_rs

status=0
"$venv/bin/python" -m pytest -q crates/python/tests "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests in crates/python/tests" >&2
    exit 1
fi
exit "$status"
