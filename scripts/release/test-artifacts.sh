#!/usr/bin/env bash
# Tests a release's artifacts for one platform as they were uploaded: checks
# the binary archive against its SHA-256 file, unpacks it, and runs
# scripts/release/test-wheel.sh on the wheel with that binary (no Rust or C
# compiler on the test's PATH). The release workflow runs it on each
# platform's runner; .ci/run runs it on what scripts/release/build-wheel.sh
# and scripts/release/build-binary.sh built here.
#
# Usage: scripts/release/test-artifacts.sh WHEEL_DIR BINARY_DIR
#   WHEEL_DIR   holds one rankeval_rs wheel (scripts/release/build-wheel.sh's OUT_DIR)
#   BINARY_DIR  holds one rankeval-VERSION-TARGET.tar.gz and its .sha256
#               (scripts/release/build-binary.sh's OUT_DIR)
# The environment of scripts/release/test-wheel.sh (PYTHON, RANKEVAL_MAX_*, ...) is
# passed on.
set -euo pipefail
cd "$(dirname "$0")/../.."

[ $# -eq 2 ] || { echo "test-artifacts: usage: scripts/release/test-artifacts.sh WHEEL_DIR BINARY_DIR" >&2; exit 2; }
wheel_dir="$1"
binary_dir="$2"
shopt -s nullglob
archives=("$binary_dir"/rankeval-*.tar.gz)
shopt -u nullglob
if [ "${#archives[@]}" -ne 1 ]; then
    echo "test-artifacts: expected one rankeval-*.tar.gz in $binary_dir, found ${#archives[@]}" >&2
    exit 1
fi
archive="${archives[0]}"
[ -f "$archive.sha256" ] || { echo "test-artifacts: no $archive.sha256" >&2; exit 1; }

python="${PYTHON:-}"
if [ -z "$python" ]; then
    if command -v python3 >/dev/null 2>&1; then python=python3; else python=python; fi
fi
unpacked="$(mktemp -d "${TMPDIR:-/tmp}/rankeval-binary.XXXXXX")"
trap 'rm -rf "$unpacked"' EXIT
# The checksum file's form is `sha256sum`'s; Python checks it alike everywhere.
binary="$("$python" - "$archive" "$unpacked" <<'PY'
import hashlib, os, sys, tarfile

archive, unpacked = sys.argv[1:]
expected, name = open(archive + ".sha256", encoding="utf-8").read().split()
if name != os.path.basename(archive):
    sys.exit(f"test-artifacts: {archive}.sha256 names {name}")
actual = hashlib.sha256(open(archive, "rb").read()).hexdigest()
if actual != expected:
    sys.exit(f"test-artifacts: {archive}: SHA-256 {actual}, its .sha256 says {expected}")
with tarfile.open(archive) as tar:
    names = tar.getnames()
    top = name[: -len(".tar.gz")]
    wanted = {f"{top}/README.md", f"{top}/LICENSE-MIT", f"{top}/LICENSE-APACHE"}
    if not wanted <= set(names) or not ({f"{top}/rankeval", f"{top}/rankeval.exe"} & set(names)):
        sys.exit(f"test-artifacts: {archive} holds {names}, not the binary, README.md and the licences in {top}/")
    tar.extractall(unpacked, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(unpacked)
exe = "rankeval.exe" if f"{top}/rankeval.exe" in names else "rankeval"
print(os.path.join(unpacked, top, exe))
PY
)"
chmod +x "$binary"
echo "test-artifacts: $(basename "$archive") matches its SHA-256; testing with $binary"
RANKEVAL_BIN="$binary" scripts/release/test-wheel.sh "$wheel_dir"
