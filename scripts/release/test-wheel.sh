#!/usr/bin/env bash
# Tests a built wheel of the Python package as a user gets it: installed
# from the wheel file alone into a fresh virtual environment, with a PATH on
# which no `cargo`, `rustc` or C compiler can be found (so nothing can be
# compiled on the way), then
#
#   1. the whole Python test suite (crates/python/tests), copied out of the
#      source tree with the README, Cargo.toml and examples/ it reads, so
#      that `import rankeval_rs` can only find the installed wheel;
#   2. the README's Python example, as a script of its own;
#   3. measures, printed and checked against limits (RANKEVAL_MAX_*):
#      the wheel's size, `import rankeval_rs` in a fresh interpreter, the
#      first `evaluate` on the quickstart data, the `rankeval` binary's size
#      and the wall time of the quickstart (`rankeval run
#      examples/quickstart/experiment.toml`, the README's first command,
#      whose output must be the README's table).
#
# Usage: scripts/release/test-wheel.sh [WHEEL | DIR]
#   WHEEL or DIR  the wheel, or a directory holding exactly one rankeval_rs
#                 wheel (default: target/wheels, as scripts/release/build-wheel.sh
#                 writes it)
# Environment:
#   RANKEVAL_BIN  the prebuilt `rankeval` that some tests compare with and
#                 that is measured (default: the one binary unpacked by
#                 scripts/release/build-binary.sh under target/binaries)
#   PYTHON        the interpreter of the fresh venv (default python3, else
#                 python); 3.10 or later
#   RANKEVAL_EXPECTED_COMMIT  the commit the wheel names in its version
#                 (default: this checkout's HEAD; empty for a wheel built
#                 from the sdist)
#   RANKEVAL_MAX_WHEEL_MB (15), RANKEVAL_MAX_IMPORT_MS (150),
#   RANKEVAL_MAX_FIRST_EVALUATE_MS (1000), RANKEVAL_MAX_BINARY_MB (25),
#   RANKEVAL_MAX_QUICKSTART_MS (500): the limits (MB = 10^6 bytes)
# Needs bash, Python 3.10+ with venv and pip, and PyPI (or a pip index) for
# the test requirements. Runs on Linux, macOS and Windows (Git Bash): the
# release workflow runs it on each platform's runner. See
# docs/distribution.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
target_dir="${CARGO_TARGET_DIR:-$root/target}"

case "${1:-}" in
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
[ $# -le 1 ] || { echo "test-wheel: one WHEEL or DIR only (see --help)" >&2; exit 2; }
given="${1:-$target_dir/wheels}"
if [ -d "$given" ]; then
    shopt -s nullglob
    wheels=("$given"/rankeval_rs-*.whl)
    shopt -u nullglob
    if [ "${#wheels[@]}" -ne 1 ]; then
        echo "test-wheel: expected one rankeval_rs-*.whl in $given, found ${#wheels[@]} (scripts/release/build-wheel.sh builds it; or name the wheel)" >&2
        exit 1
    fi
    wheel="${wheels[0]}"
elif [ -f "$given" ]; then
    wheel="$given"
else
    echo "test-wheel: no wheel or directory '$given' (scripts/release/build-wheel.sh builds one)" >&2
    exit 1
fi

binary="${RANKEVAL_BIN:-}"
if [ -z "$binary" ]; then
    shopt -s nullglob
    binaries=("$target_dir"/binaries/rankeval-*/rankeval "$target_dir"/binaries/rankeval-*/rankeval.exe)
    shopt -u nullglob
    if [ "${#binaries[@]}" -ne 1 ]; then
        echo "test-wheel: set RANKEVAL_BIN to a prebuilt rankeval (found ${#binaries[@]} under $target_dir/binaries; scripts/release/build-binary.sh builds one)" >&2
        exit 1
    fi
    binary="${binaries[0]}"
fi
[ -x "$binary" ] || { echo "test-wheel: RANKEVAL_BIN '$binary' is not an executable file" >&2; exit 1; }

python="${PYTHON:-}"
if [ -z "$python" ]; then
    if command -v python3 >/dev/null 2>&1; then python=python3
    elif command -v python >/dev/null 2>&1; then python=python
    else echo "test-wheel: no python3 or python on PATH (set PYTHON)" >&2; exit 1; fi
fi
if [ -z "${RANKEVAL_EXPECTED_COMMIT+set}" ]; then
    RANKEVAL_EXPECTED_COMMIT="$(git -C "$root" rev-parse --short=10 HEAD 2>/dev/null || true)"
fi
export RANKEVAL_EXPECTED_COMMIT

work="$(mktemp -d "${TMPDIR:-/tmp}/rankeval-test-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# Absolute paths, as the tests run in the copy under $work; on Windows in
# the form Python takes (C:/...).
native() {
    local path
    path="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
    if command -v cygpath >/dev/null 2>&1; then cygpath -m "$path"; else echo "$path"; fi
}
wheel="$(native "$wheel")"
binary="$(native "$binary")"

# A fresh venv; from here on, every command of the test runs with a PATH that
# holds only the venv's executables (and, on Windows, the system's own
# directory, which has no compiler).
"$python" -m venv "$work/venv" || { echo "test-wheel: '$python -m venv' failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }
if [ -d "$work/venv/Scripts" ]; then venv_bin="$work/venv/Scripts"; else venv_bin="$work/venv/bin"; fi
clean_path="$venv_bin"
case "$(uname -s)" in
    MINGW* | MSYS* | CYGWIN*) clean_path="$clean_path:$(cygpath -u "${SYSTEMROOT:-C:\\Windows}")/System32" ;;
esac
for tool in cargo rustc rustup cc gcc clang cl c++ g++; do
    # A new shell, so that no remembered (hashed) location counts.
    # shellcheck disable=SC2016 # $1 is the inner shell's
    if found="$(env PATH="$clean_path" "$BASH" -c 'command -v "$1"' _ "$tool")"; then
        echo "test-wheel: '$tool' is on the test's PATH ($found): the wheel must install without it" >&2
        exit 1
    fi
done
in_venv() { env PATH="$clean_path" "$@"; }
vpy="$venv_bin/python"

# The wheel and the test requirements, as binary wheels only: nothing is
# built from source on the way.
pip=(in_venv "$vpy" -m pip install --quiet --disable-pip-version-check --only-binary=:all:)
"${pip[@]}" "${wheel}[pandas]" -r "$root/crates/python/tests/requirements.txt"
"${pip[@]}" -r "$root/crates/python/tests/requirements-optional.txt" ||
    echo "test-wheel: note: polars/duckdb not installed; their tests will be skipped" >&2

# The tests and what they read, copied out of the source tree.
tree="$work/tree"
mkdir -p "$tree/crates/python"
cp -R "$root/crates/python/tests" "$tree/crates/python/tests"
cp -R "$root/examples" "$tree/examples"
cp "$root/README.md" "$root/Cargo.toml" "$tree/"
# scipy's intervals, which test_intervals.py checks the package against.
mkdir -p "$tree/crates/stats/tests/data"
cp "$root/crates/stats/tests/data/intervals.json" "$tree/crates/stats/tests/data/"
# ndeval's, pyxclib's and expeval's fixtures, which test_spec.py evaluates
# with the package and the binary.
mkdir -p "$tree/crates/rankeval/tests/data"
for fixture in ndeval pyxclib expeval; do
    cp -R "$root/crates/rankeval/tests/data/$fixture" "$tree/crates/rankeval/tests/data/$fixture"
done
# docs/history.md, whose MLflow/W&B recipe test_history_recipe.py runs as written.
mkdir -p "$tree/docs"
cp "$root/docs/history.md" "$tree/docs/"
rm -rf "$tree/crates/python/tests/__pycache__"

cd "$tree"
where="$(in_venv "$vpy" -c 'import rankeval_rs; print(rankeval_rs.__file__)')"
case "$where" in
    "$work"/venv/* | *site-packages*) echo "test-wheel: rankeval_rs $(in_venv "$vpy" -c 'import rankeval_rs; print(rankeval_rs.__version__)') from $where" ;;
    *) echo "test-wheel: rankeval_rs was imported from $where, not from the venv" >&2; exit 1 ;;
esac

echo "test-wheel: the Python tests, on the installed wheel"
status=0
RANKEVAL_BIN="$binary" in_venv "$vpy" -m pytest -q -p no:cacheprovider crates/python/tests || status=$?
if [ "$status" -eq 5 ]; then
    echo "test-wheel: pytest collected no tests" >&2
    exit 1
elif [ "$status" -ne 0 ]; then
    echo "test-wheel: the Python tests failed on the installed wheel (pytest exit $status)" >&2
    exit "$status"
fi

echo "test-wheel: the README's Python example"
in_venv "$vpy" - <<'PY' >"$work/snippet.py"
import re
section = open("README.md", encoding="utf-8").read().split("## From Python", 1)[1]
match = re.search(r"```python\n(.*?)```", section, re.S)
if not match:
    raise SystemExit("test-wheel: no Python block under '## From Python' in README.md")
print(match.group(1), end="")
PY
in_venv "$vpy" "$work/snippet.py"

echo "test-wheel: measuring"
in_venv "$vpy" - "$wheel" "$binary" "$(native "$tree")" <<'PY'
import os, re, statistics, subprocess, sys, time

wheel, binary, tree = sys.argv[1:]
limits = {
    "wheel": float(os.environ.get("RANKEVAL_MAX_WHEEL_MB", "15")),
    "import": float(os.environ.get("RANKEVAL_MAX_IMPORT_MS", "150")),
    "evaluate": float(os.environ.get("RANKEVAL_MAX_FIRST_EVALUATE_MS", "1000")),
    "binary": float(os.environ.get("RANKEVAL_MAX_BINARY_MB", "25")),
    "quickstart": float(os.environ.get("RANKEVAL_MAX_QUICKSTART_MS", "500")),
}
ROUNDS = 7
rows, failed = [], []

def check(key, label, value, unit, how):
    ok = value <= limits[key]
    rows.append(f"{label:<26} {value:9.1f} {unit:<3} (limit {limits[key]:g} {unit}) {'ok' if ok else 'OVER'}  {how}")
    if not ok:
        failed.append(label)

check("wheel", "wheel size", os.path.getsize(wheel) / 1e6, "MB", os.path.basename(wheel))

# `import rankeval_rs`, in a fresh interpreter each time: the cumulative time
# that -X importtime gives the package (its own modules, the extension and
# what they import, numpy included), without the interpreter's start-up.
imports = []
for _ in range(ROUNDS):
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import rankeval_rs"],
                          capture_output=True, text=True, check=True)
    times = [int(m.group(1)) for m in re.finditer(r"^import time:\s*\d+\s*\|\s*(\d+)\s*\|\s*rankeval_rs$",
                                                   done.stderr, re.M)]
    if not times:
        sys.exit(f"test-wheel: -X importtime printed no line for rankeval_rs:\n{done.stderr[-2000:]}")
    imports.append(times[0] / 1000)
check("import", "import rankeval_rs", statistics.median(imports), "ms",
      f"median of {ROUNDS} fresh interpreters, -X importtime cumulative")

# The first evaluate of a fresh process, after the import: the quickstart's
# qrels and baseline run, the README's two metrics. numpy's import is part of
# it (the package imports numpy when it is first needed).
FIRST = """
import time, rankeval_rs
start = time.perf_counter()
rankeval_rs.evaluate("examples/quickstart/qrels.txt", "examples/quickstart/runs/baseline.trec",
                     ["ndcg@10", "ap(norm=truncated)@10"])
print((time.perf_counter() - start) * 1000)
"""
firsts = [float(subprocess.run([sys.executable, "-c", FIRST], cwd=tree, capture_output=True, text=True,
                               check=True).stdout) for _ in range(ROUNDS)]
check("evaluate", "first evaluate (quickstart)", statistics.median(firsts), "ms",
      f"median of {ROUNDS} fresh interpreters, time.perf_counter around the call")

check("binary", "rankeval binary size", os.path.getsize(binary) / 1e6, "MB", binary)

# The README's first command, with the prebuilt binary: the whole process,
# and its output must be the README's table.
readme = open(os.path.join(tree, "README.md"), encoding="utf-8").read()
table = re.search(r"The first prints:\n\n```text\n(.*?)```", readme, re.S)
if not table:
    sys.exit("test-wheel: README.md has no ```text block after 'The first prints:'")
walls = []
for _ in range(ROUNDS):
    start = time.perf_counter()
    done = subprocess.run([binary, "run", "examples/quickstart/experiment.toml"], cwd=tree,
                          capture_output=True, text=True)
    walls.append((time.perf_counter() - start) * 1000)
    if done.returncode != 0 or done.stdout != table.group(1):
        sys.exit(f"test-wheel: `rankeval run examples/quickstart/experiment.toml` exited {done.returncode} "
                 f"and printed\n{done.stdout}{done.stderr}\nnot the README's table\n{table.group(1)}")
check("quickstart", "quickstart wall time", statistics.median(walls), "ms",
      f"median of {ROUNDS} runs of `rankeval run examples/quickstart/experiment.toml`, output = README's table")

for row in rows:
    print(f"test-wheel: {row}")
if failed:
    sys.exit(f"test-wheel: over the limit: {', '.join(failed)}")
PY
echo "test-wheel: $(basename "$wheel") passed, installed where no Rust or C compiler is on PATH"
