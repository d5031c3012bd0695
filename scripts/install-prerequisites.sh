#!/usr/bin/env bash
# Installs what the project's scripts need on a fresh Debian machine (as
# root, or with sudo), by group; with no group, all of them:
#
#   scripts/install-prerequisites.sh                 # build, spark, browser
#   scripts/install-prerequisites.sh browser spark   # only those
#
#   build    a C compiler (zstd's build), git, Python 3 with venv (the
#            Python tests and the PyPI tools of scripts/tools/ get virtual
#            environments of their own under target/); checks that cargo is
#            the workspace's rust-version or later (Rust itself comes from
#            rustup, which this script does not download)
#   spark    Java 17 (Debian's openjdk-17-jre-headless) where no `java` is
#            on PATH, for scripts/test/spark.sh
#   browser  Debian's chromium, node and npm, and the npm package
#            playwright-core (the driver only: it uses this Chromium and
#            downloads no browser) under scripts/test/browser/node_modules,
#            for scripts/test/browser.sh
#
# Idempotent: what is there already is left alone, and apt-get runs only for
# what is missing. Needs apt-get (Debian, Ubuntu). What only a script run by
# hand needs (benchmarks, cross-checks, fuzzing) is in scripts/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build spark browser)
for group in "${groups[@]}"; do
    case "$group" in
        build | spark | browser) ;;
        *) echo "install-prerequisites: unknown group '$group' (build, spark, browser)" >&2; exit 2 ;;
    esac
done

sudo_if_needed() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

updated=0
# Installs the Debian packages among "$@" that are not installed yet.
apt_install() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$package")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    echo "install-prerequisites: installing ${missing[*]} (apt-get)" >&2
    if [ "$updated" -eq 0 ]; then
        sudo_if_needed apt-get update
        updated=1
    fi
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

# Whether cargo is at least the workspace's rust-version (Cargo.toml).
check_rust() {
    local wanted have
    wanted="$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)"
    if ! command -v cargo >/dev/null 2>&1; then
        echo "install-prerequisites: no cargo on PATH: install Rust $wanted or later with rustup" >&2
        return 1
    fi
    have="$(cargo --version | sed -n 's/^cargo \([0-9][0-9.]*\).*/\1/p')"
    if [ "$(printf '%s\n%s\n' "$wanted" "$have" | sort -V | head -n 1)" != "$wanted" ]; then
        echo "install-prerequisites: cargo $have is older than the workspace's rust-version $wanted: rustup update" >&2
        return 1
    fi
}

status=0
for group in "${groups[@]}"; do
    case "$group" in
        build)
            apt_install build-essential git python3 python3-venv
            check_rust || status=1
            ;;
        spark)
            command -v java >/dev/null 2>&1 || apt_install openjdk-17-jre-headless
            ;;
        browser)
            command -v chromium >/dev/null 2>&1 || apt_install chromium
            command -v node >/dev/null 2>&1 || apt_install nodejs npm
            # The driver's one dependency, pinned in scripts/test/browser/package.json,
            # installed under scripts/test/browser/node_modules (git-ignored).
            if [ ! -d scripts/test/browser/node_modules/playwright-core ]; then
                echo "install-prerequisites: installing playwright-core (npm)" >&2
                (cd scripts/test/browser && npm install --no-audit --no-fund --silent)
            fi
            ;;
    esac
done
exit "$status"
