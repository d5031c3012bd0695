#!/usr/bin/env bash
# Creates the GitHub release of a tag with its files: the `rankeval`
# archives and their .sha256 files, the wheels and the sdist, and
# SHA256SUMS over all of them; the notes are the version's section of
# CHANGELOG.md. Each archive is checked against its .sha256 first.
#
# Usage: scripts/release/github-release.sh [--dry-run] TAG DIR
#   --dry-run  check and write SHA256SUMS and the notes, print the `gh`
#              command, create nothing
# Needs the GitHub CLI `gh` (on GitHub's runners) and GH_TOKEN with
# `contents: write` on the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."

dry_run=0
if [ "${1:-}" = --dry-run ]; then dry_run=1; shift; fi
[ $# -eq 2 ] || { echo "github-release: usage: scripts/release/github-release.sh [--dry-run] TAG DIR" >&2; exit 2; }
tag="$1"
dir="$2"
version="${tag#v}"
notes="$(mktemp)"
trap 'rm -f "$notes"' EXIT

python3 - "$dir" "$version" "$notes" <<'PY'
import hashlib, os, re, sys

folder, version, notes = sys.argv[1:]
files = sorted(f for f in os.listdir(folder) if f != "SHA256SUMS")
archives = [f for f in files if re.fullmatch(rf"rankeval-{re.escape(version)}-[\w.-]+\.tar\.gz", f)]
if not archives:
    sys.exit(f"github-release: no rankeval-{version}-TARGET.tar.gz in {folder}")
digests = {}
for f in files:
    if f.endswith(".sha256"):
        continue
    digests[f] = hashlib.sha256(open(os.path.join(folder, f), "rb").read()).hexdigest()
for f in archives:
    try:
        expected, name = open(os.path.join(folder, f + ".sha256"), encoding="utf-8").read().split()
    except FileNotFoundError:
        sys.exit(f"github-release: no {f}.sha256")
    if (expected, name) != (digests[f], f):
        sys.exit(f"github-release: {f} does not match its .sha256")
with open(os.path.join(folder, "SHA256SUMS"), "w", newline="\n") as out:
    out.writelines(f"{digest}  {f}\n" for f, digest in sorted(digests.items()))

changelog = open("CHANGELOG.md", encoding="utf-8").read()
section = re.search(rf"^## \[{re.escape(version)}\][^\n]*\n(.*?)(?=^## |^\[[^\]]+\]: |\Z)", changelog, re.S | re.M)
if not section:
    sys.exit(f"github-release: CHANGELOG.md has no section ## [{version}]")
open(notes, "w", encoding="utf-8").write(section.group(1).strip() + "\n")
print(f"github-release: {len(digests)} files, SHA256SUMS written")
PY

shopt -s nullglob
assets=("$dir"/*)
shopt -u nullglob
command=(gh release create "$tag" --verify-tag --title "rankeval $version" --notes-file "$notes" "${assets[@]}")
if [ "$dry_run" = 1 ]; then
    echo "github-release: would run: ${command[*]}"
    echo "github-release: notes:"
    cat "$notes"
    exit 0
fi
command -v gh >/dev/null 2>&1 || { echo "github-release: no 'gh' (GitHub CLI) on PATH" >&2; exit 1; }
[ -n "${GH_TOKEN:-}" ] || { echo "github-release: GH_TOKEN is not set" >&2; exit 1; }
"${command[@]}"
