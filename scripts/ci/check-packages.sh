#!/usr/bin/env bash
# Checks that every publishable crate of the workspace can go to crates.io:
#
# 1. its manifest has what crates.io shows (description, license, repository
#    or homepage, a README file, keywords, categories), and each dependency on
#    another workspace crate carries a version and is itself publishable;
# 2. `cargo package --workspace` packages the crates together and VERIFIES
#    each `.crate` by building it on its own, against a local overlay of the
#    others (so `rankeval-cli` builds against the packaged
#    `rankeval-core`, not the source tree);
# 3. no `.crate` is larger than the limit (test data slipping in).
#
# Crates with `publish = false` (the Python cdylib, the example) are listed
# and left out. Needs the crates.io index (cargo fetches it) and python3.
# See docs/distribution.md.
#
# Usage: scripts/ci/check-packages.sh [--publish-dry-run] [-- CARGO_ARGS...]
#   --publish-dry-run   run `cargo publish --dry-run --workspace` instead of
#                       `cargo package --workspace` (also asks the registry
#                       whether each version is already uploaded)
#   CARGO_ARGS          passed to cargo, e.g. `-- --allow-dirty` to check
#                       uncommitted changes
# Environment: RANKEVAL_CRATE_LIMIT_KIB (default 1024), the largest `.crate`.
set -euo pipefail
cd "$(dirname "$0")/../.."

mode=package
cargo_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --publish-dry-run) mode=publish ;;
        --) shift; cargo_args+=("$@"); break ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "check-packages: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
limit_kib="${RANKEVAL_CRATE_LIMIT_KIB:-1024}"

# Step 1: the manifests. Prints "publish NAME VERSION" and "skip NAME"
# lines for the steps below, or the problems found (exit 1).
manifest_check="$(cat <<'PY'
import json, os, sys

meta = json.load(sys.stdin)
members = set(meta["workspace_members"])
packages = [p for p in meta["packages"] if p["id"] in members]
publishable = {p["name"] for p in packages if p["publish"] != []}
problems = []
for p in sorted(packages, key=lambda p: p["name"]):
    name = p["name"]
    if name not in publishable:
        print("skip", name)
        continue
    where = os.path.relpath(p["manifest_path"])
    for key in ("description", "license", "readme", "keywords", "categories"):
        if not p.get(key):
            problems.append(f"{where}: no `{key}`")
    if not (p.get("repository") or p.get("homepage")):
        problems.append(f"{where}: neither `repository` nor `homepage`")
    readme = p.get("readme")
    if readme:
        path = os.path.join(os.path.dirname(p["manifest_path"]), readme)
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            problems.append(f"{where}: readme `{readme}` is missing or empty")
    for dep in p["dependencies"]:
        dep_name = dep["name"]
        if dep.get("path") is None or dep["kind"] == "dev":
            continue
        if dep["req"] == "*":
            problems.append(f"{where}: path dependency `{dep_name}` has no version")
        if dep_name not in publishable:
            problems.append(f"{where}: depends on `{dep_name}`, which is not published")
    print("publish", name, p["version"])
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
PY
)"
plan="$(cargo metadata --format-version 1 --no-deps | python3 -c "$manifest_check")" ||
    { echo "check-packages: the manifests above need fixing" >&2; exit 1; }

publish=()
exclude=()
while read -r action name version; do
    case "$action" in
        publish) publish+=("$name-$version") ;;
        skip) exclude+=(--exclude "$name"); echo "check-packages: $name is not published (publish = false)" ;;
    esac
done <<<"$plan"

# Step 2: package and verify together, in a target directory of its own
# (target/package-check). Cargo treats a registry crate of a given name and
# version as never changing: it unpacks the local overlay of the packaged
# crates into $CARGO_HOME/registry/src/-<hash>/NAME-VERSION once, and reuses
# what it compiled from them. After a change to a crate whose version did not
# move, the next check would verify its dependents against the old sources
# (a method "not found" that the tree has). So the unpacked copies and what
# was compiled from them are removed first; crates.io's own sources and the
# other dependencies' builds stay (the first check builds those, once).
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
verify_dir="$target_dir/package-check"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
for crate in "${publish[@]}"; do
    name="${crate%-*}"
    rm -rf "$cargo_home"/registry/src/-*/"$crate" \
        "$verify_dir"/debug/.fingerprint/"$name"-* "$verify_dir"/debug/build/"$name"-* \
        "$verify_dir"/debug/deps/lib"${name//-/_}"-* "$verify_dir"/debug/deps/"${name//-/_}"-*
done
# The verification only compiles: no debug info (a third of the disk it takes).
export CARGO_PROFILE_DEV_DEBUG=false
if [ "$mode" = publish ]; then
    CARGO_TARGET_DIR="$verify_dir" cargo publish --dry-run --workspace "${exclude[@]}" ${cargo_args[@]+"${cargo_args[@]}"}
else
    CARGO_TARGET_DIR="$verify_dir" cargo package --workspace "${exclude[@]}" ${cargo_args[@]+"${cargo_args[@]}"}
fi

# Step 3: the sizes of what would be uploaded.
status=0
for crate in "${publish[@]}"; do
    file="$verify_dir/package/$crate.crate"
    if [ ! -f "$file" ]; then
        echo "check-packages: $file was not written" >&2
        status=1
        continue
    fi
    kib=$(( ($(wc -c <"$file") + 1023) / 1024 ))
    printf 'check-packages: %-32s %5d KiB\n' "$crate.crate" "$kib"
    if [ "$kib" -gt "$limit_kib" ]; then
        echo "check-packages: $crate.crate is over ${limit_kib} KiB: check \`cargo package -p ${crate%-*} --list\` for data a user does not need" >&2
        status=1
    fi
done
# The unpacked copies cargo verified are not needed afterwards.
for crate in "${publish[@]}"; do
    rm -rf "${verify_dir:?}/package/$crate"
done
exit "$status"
