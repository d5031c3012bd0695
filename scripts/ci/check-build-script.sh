#!/usr/bin/env bash
# Checks that crates/rankeval/build.rs reruns when, and only when, HEAD
# moves: a second `cargo build -p rankeval` compiles nothing, in a checkout
# without .git/packed-refs and in one whose refs are packed, and a commit
# rebuilds the crate with the new commit in RANKEVAL_COMMIT. (A build script
# that declares a missing path reruns on every build, and everything above
# the crate is compiled again.)
#
# Usage: scripts/ci/check-build-script.sh. It clones the committed HEAD into a
# temporary directory (removed at the end) and builds there, in
# CARGO_TARGET_DIR (default: this checkout's target/, so that only the
# workspace's own crates compile). Needs git and cargo; about a minute once
# the dependencies are built.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
export CARGO_TARGET_DIR="$target"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
clone="$scratch/rankeval"

git clone -q "$root" "$clone"
git -C "$clone" checkout -q -B check "$(git -C "$root" rev-parse HEAD)"
common="$(git -C "$clone" rev-parse --git-common-dir)"
commit() {
    git -C "$clone" -c user.name=check -c user.email=check@example.invalid \
        commit -q --allow-empty -m "$1"
}

# Builds; sets `compiled` to whether cargo compiled rankeval ("yes", "no").
build() {
    local log="$scratch/build.log"
    if ! (cd "$clone" && cargo build -p rankeval) >"$log" 2>&1; then
        cat "$log" >&2
        exit 1
    fi
    if grep -q '^ *Compiling rankeval v' "$log"; then compiled=yes; else compiled=no; fi
}

# The commit the newest build script run of the clone's rankeval named.
built_commit() {
    local output
    output="$(ls -t "$target"/debug/build/rankeval-*/output | head -1)"
    sed -n 's/^cargo:rustc-env=RANKEVAL_COMMIT=//p' "$output"
}

expect() {
    if [ "$2" != "$3" ]; then
        echo "check-build-script: $1: expected $2, got $3" >&2
        exit 1
    fi
    echo "check-build-script: $1: $3"
}

rm -f "$(cd "$clone" && cd "$common" && pwd)/packed-refs"
build
build
expect "without packed-refs, the second build compiles rankeval" no "$compiled"
commit one
build
expect "after a commit, the build compiles rankeval" yes "$compiled"
expect "and names the commit" "$(git -C "$clone" rev-parse --short=10 HEAD)" "$(built_commit)"
build
expect "the next build compiles rankeval" no "$compiled"

git -C "$clone" pack-refs --all
build
build
expect "with every ref packed, the second build compiles rankeval" no "$compiled"
commit two
build
expect "after a commit on a packed branch, the build compiles rankeval" yes "$compiled"
expect "and names the commit" "$(git -C "$clone" rev-parse --short=10 HEAD)" "$(built_commit)"
build
expect "the next build compiles rankeval" no "$compiled"
echo "check-build-script: ok"
