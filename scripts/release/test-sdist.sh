#!/usr/bin/env bash
# Builds the Python package's sdist and checks that it builds and works on
# its own, as `pip install rankeval-rs` does where no wheel fits: the sdist is
# installed with pip into a fresh virtual environment, from a directory
# outside this checkout (so the build script finds no git commit and the
# version is the plain workspace version, without `+<commit>`), then it
# evaluates the quickstart's run and checks the README's means.
#
# Usage: scripts/release/test-sdist.sh [OUT_DIR]
#   OUT_DIR  where the sdist goes (default target/wheels); earlier rankeval_rs
#            sdists there are removed first
# Needs Rust (the build compiles the extension: a release build, minutes),
# python3 (3.10+) with venv and pip, PyPI (maturin, numpy). The build uses
# target/sdist-check as its cargo target directory, kept between runs. The
# release workflow runs it; see docs/distribution.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
# shellcheck source=scripts/tools/venv.sh
source scripts/tools/venv.sh

case "${1:-}" in
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
target_dir="${CARGO_TARGET_DIR:-$root/target}"
out="${1:-$target_dir/wheels}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
for tool in cargo rustc; do
    command -v "$tool" >/dev/null 2>&1 ||
        { echo "test-sdist: no '$tool' on PATH: building from the sdist compiles Rust (rustup installs 1.95+)" >&2; exit 1; }
done
tools="$(tools_venv wheel)"
version="$(cargo metadata --format-version 1 --no-deps --locked | "$tools/python" -c 'import json, sys
print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "rankeval-python"))')"

rm -f "$out"/rankeval_rs-*.tar.gz
"$tools/maturin" sdist --manifest-path crates/python/Cargo.toml --out "$out"
sdist="$out/rankeval_rs-$version.tar.gz"
[ -f "$sdist" ] || { echo "test-sdist: maturin wrote no $sdist" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/rankeval-test-sdist.XXXXXX")"
trap 'rm -rf "$work"' EXIT
if git -C "$work" rev-parse --git-dir >/dev/null 2>&1; then
    echo "test-sdist: $work is inside a git checkout; set TMPDIR to a directory that is not" >&2
    exit 1
fi
python="${PYTHON:-python3}"
"$python" -m venv "$work/venv"
if [ -d "$work/venv/Scripts" ]; then vpy="$work/venv/Scripts/python"; else vpy="$work/venv/bin/python"; fi
start=$SECONDS
# pip unpacks the sdist in a temporary directory of its own (not a checkout)
# and builds it with the maturin of pyproject.toml's build-system.
(cd "$work" && CARGO_TARGET_DIR="$target_dir/sdist-check" "$vpy" -m pip install --quiet --disable-pip-version-check "$sdist")
echo "test-sdist: built and installed from $(basename "$sdist") in $((SECONDS - start)) s"

(cd "$work" && "$vpy" - "$version" "$root/examples/quickstart" <<'PY'
import sys
import rankeval_rs

version, quickstart = sys.argv[1:]
if rankeval_rs.__version__ != version:
    sys.exit(f"test-sdist: __version__ is {rankeval_rs.__version__!r}; built outside a checkout it must be {version!r}")
result = rankeval_rs.evaluate(f"{quickstart}/qrels.txt", f"{quickstart}/runs/baseline.trec", ["ndcg@10", "ap(norm=truncated)@10"])
means = {metric: round(mean, 4) for metric, mean in result.means.items()}
if means != {"ndcg@10": 0.6063, "ap(norm=truncated)@10": 0.4574}:
    sys.exit(f"test-sdist: the quickstart's means are {means}, not the README's")
print(f"test-sdist: rankeval_rs {rankeval_rs.__version__} from the sdist: the README's means {means}")
PY
)
ls -l "$sdist"
