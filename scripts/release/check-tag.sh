#!/usr/bin/env bash
# The release workflow's first job: the pushed tag must be `v` and the
# workspace's version (Cargo.toml), CHANGELOG.md must have that version's
# section, and the release metadata must agree (scripts/ci/check-metadata.sh).
#
# Usage: scripts/release/check-tag.sh TAG   (e.g. v0.1.0)
set -euo pipefail
cd "$(dirname "$0")/../.."

[ $# -eq 1 ] || { echo "check-tag: usage: scripts/release/check-tag.sh TAG" >&2; exit 2; }
tag="$1"
version="$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json, sys
print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "rankeval-cli"))')"
if [ "$tag" != "v$version" ]; then
    echo "check-tag: tag '$tag' is not v$version, the version in Cargo.toml's [workspace.package]" >&2
    exit 1
fi
scripts/ci/check-metadata.sh
echo "check-tag: $tag is the workspace's version"
