#!/usr/bin/env bash
# Publishes the workspace's crates to crates.io, one by one in dependency
# order (docs/distribution.md): each `cargo publish` waits until the crate is
# in the index before the next starts. A version already on crates.io is
# skipped, so a release whose publishing stopped half-way can be run again.
#
# Usage: scripts/release/publish-crates.sh [--plan]
#   --plan   print the order and check that it names every publishable crate
#            (cargo metadata), without publishing
# Environment: CARGO_REGISTRY_TOKEN, a crates.io token allowed to publish
# these crates (the release workflow's `crates-io` environment holds it).
set -euo pipefail
cd "$(dirname "$0")/../.."

# The order of docs/distribution.md: each crate after those it depends on.
order=(rankeval-macros rankeval-core rankeval-stats rankeval-ope rankeval-history rankeval-metrics rankeval-readers rankeval rankeval-report rankeval-cli)

plan=0
case "${1:-}" in
    --plan) plan=1 ;;
    "") ;;
    *) echo "publish-crates: unknown argument '$1' (--plan or nothing)" >&2; exit 2 ;;
esac

# The order must hold every publishable crate, each after its dependencies
# on other workspace crates.
cargo metadata --format-version 1 --no-deps --locked | python3 -c '
import json, sys
order = sys.argv[1:]
meta = json.load(sys.stdin)
members = set(meta["workspace_members"])
packages = {p["name"]: p for p in meta["packages"] if p["id"] in members and p["publish"] != []}
problems = []
if sorted(order) != sorted(packages):
    problems.append(f"the order {order} is not the publishable crates {sorted(packages)}")
for position, name in enumerate(order):
    for dep in packages.get(name, {}).get("dependencies", []):
        if dep["kind"] != "dev" and dep["name"] in packages and dep["name"] not in order[:position]:
            problems.append(name + " comes before its dependency " + dep["name"])
if problems:
    sys.exit("publish-crates: " + "\npublish-crates: ".join(problems))
' "${order[@]}"

if [ "$plan" = 1 ]; then
    echo "publish-crates: would publish, in order: ${order[*]}"
    exit 0
fi
[ -n "${CARGO_REGISTRY_TOKEN:-}" ] || { echo "publish-crates: CARGO_REGISTRY_TOKEN is not set" >&2; exit 1; }
for crate in "${order[@]}"; do
    echo "publish-crates: $crate"
    log="$(mktemp)"
    if cargo publish --locked -p "$crate" 2>&1 | tee "$log"; then
        rm -f "$log"
        continue
    fi
    if grep -q "already exists" "$log"; then
        echo "publish-crates: $crate: this version is on crates.io already; skipped"
        rm -f "$log"
        continue
    fi
    rm -f "$log"
    echo "publish-crates: publishing $crate failed; the crates before it are published" >&2
    exit 1
done
echo "publish-crates: all published"
