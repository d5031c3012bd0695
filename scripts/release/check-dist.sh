#!/usr/bin/env bash
# Checks the Python distributions a release uploads to PyPI, all in one
# directory: the sdist and one abi3 wheel (CPython 3.10+) for each platform
# of the release workflow, every one of the workspace's version, nothing else.
#
# Usage: scripts/release/check-dist.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."

[ $# -eq 1 ] || { echo "check-dist: usage: scripts/release/check-dist.sh DIR" >&2; exit 2; }
version="$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json, sys
print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "rankeval-python"))')"
python3 - "$1" "$version" <<'PY'
import os, re, sys

folder, version = sys.argv[1:]
# The platform tags of the release workflow's wheels (.github/workflows/release.yml).
platforms = {
    "Linux x86_64 glibc": r"manylinux2014_x86_64\.manylinux_2_17_x86_64",
    "Linux aarch64 glibc": r"manylinux2014_aarch64\.manylinux_2_17_aarch64",
    "Linux x86_64 musl": r"musllinux_1_2_x86_64",
    "Linux aarch64 musl": r"musllinux_1_2_aarch64",
    "macOS x86_64": r"macosx_\d+_\d+_x86_64",
    "macOS arm64": r"macosx_\d+_\d+_arm64",
    "Windows x64": r"win_amd64",
}
files = sorted(os.listdir(folder))
problems = []
expected = {f"rankeval_rs-{version}.tar.gz"}
for what, tag in platforms.items():
    found = [f for f in files if re.fullmatch(rf"rankeval_rs-{re.escape(version)}-cp310-abi3-{tag}\.whl", f)]
    if len(found) != 1:
        problems.append(f"{what}: {len(found)} wheels ({found}), expected one")
    expected.update(found)
if f"rankeval_rs-{version}.tar.gz" not in files:
    problems.append(f"no sdist rankeval_rs-{version}.tar.gz")
extra = sorted(set(files) - expected)
if extra:
    problems.append(f"files that are not part of the release: {extra}")
if problems:
    sys.exit("check-dist: " + "\ncheck-dist: ".join(problems))
for f in files:
    print(f"check-dist: {f} {os.path.getsize(os.path.join(folder, f)) / 1e6:.1f} MB")
PY
