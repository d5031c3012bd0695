#!/usr/bin/env bash
# Runs scripts/release/test-artifacts.sh inside a container image that has
# Python but no Rust and no C compiler: the release workflow tests the
# musllinux wheels this way, in the official python:*-alpine images (a
# musl system; the runner itself is glibc). The checkout is mounted read-only;
# bash is added with apk where the image lacks it.
#
# Usage: scripts/release/test-in-container.sh IMAGE WHEEL_DIR BINARY_DIR
#   WHEEL_DIR, BINARY_DIR  paths inside the checkout
# Needs docker. Environment: RANKEVAL_EXPECTED_COMMIT (default: HEAD of the
# checkout, read here since git in the container does not own the mount).
set -euo pipefail
cd "$(dirname "$0")/../.."

[ $# -eq 3 ] || { echo "test-in-container: usage: scripts/release/test-in-container.sh IMAGE WHEEL_DIR BINARY_DIR" >&2; exit 2; }
image="$1"
command -v docker >/dev/null 2>&1 || { echo "test-in-container: no docker on PATH" >&2; exit 1; }
for dir in "$2" "$3"; do
    case "$(cd "$dir" && pwd)/" in
        "$PWD"/*) ;;
        *) echo "test-in-container: $dir is not inside the checkout ($PWD), which is all the container sees" >&2; exit 1 ;;
    esac
done
commit="${RANKEVAL_EXPECTED_COMMIT-$(git rev-parse --short=10 HEAD)}"
docker run --rm -e RANKEVAL_EXPECTED_COMMIT="$commit" -e CARGO_TARGET_DIR=/tmp/target \
    -v "$PWD:/src:ro" -w /src "$image" \
    sh -c 'command -v bash >/dev/null 2>&1 || apk add --no-cache bash >/dev/null; exec bash scripts/release/test-artifacts.sh "$0" "$1"' "$2" "$3"
