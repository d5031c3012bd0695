#!/usr/bin/env bash
# Installs what the browser test needs (scripts/browser-test.sh): Debian's
# `chromium` and the npm package `playwright-core` (the driver only; it uses
# this Chromium, it downloads no browser). Idempotent: what is there already
# is left alone. Needs root for apt-get (or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_if_needed() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v chromium >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium" >&2
    sudo_if_needed apt-get update
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi

if ! command -v node >/dev/null 2>&1; then
    echo "setup: installing node and npm" >&2
    sudo_if_needed apt-get update
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm
fi

# The driver's one dependency, pinned in scripts/browser-test/package.json,
# installed under scripts/browser-test/node_modules (git-ignored).
if [ ! -d scripts/browser-test/node_modules/playwright-core ]; then
    echo "setup: installing playwright-core (npm)" >&2
    (cd scripts/browser-test && npm install --no-audit --no-fund --silent)
fi
