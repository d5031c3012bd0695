#!/usr/bin/env bash
# Builds the Python package (crates/python, `rankeval-rs`, import
# `rankeval_rs`) as one abi3 wheel (CPython 3.10+) for a target, and the
# sdist, then checks what was built:
#
#   Linux   maturin --zig (zig from PyPI as linker and C compiler: no Docker,
#           no system cross toolchain), manylinux2014 (manylinux_2_17) for
#           *-linux-gnu, musllinux_1_2 for *-linux-musl; `auditwheel show`
#           must name that policy or an older one.
#   macOS, Windows   maturin with the platform's own toolchain.
#
# Every wheel and sdist must carry LICENSE-MIT and LICENSE-APACHE, the
# workspace's version and repository URL. The release workflow
# (.github/workflows/release.yml) runs this script on each platform;
# scripts/release/test-wheel.sh tests what it builds. See docs/distribution.md.
#
# Usage: scripts/release/build-wheel.sh [--target TRIPLE] [--no-sdist] [OUT_DIR]
#   --target TRIPLE  a Rust target (default: the host's), added with rustup
#                    when missing
#   --no-sdist       the wheel only (the release builds the sdist once)
#   OUT_DIR          where the wheel and sdist go (default: target/wheels,
#                    under CARGO_TARGET_DIR when set); earlier rankeval_rs
#                    wheels and sdists there are removed first
# Needs cargo and rustc (Rust 1.95+), python3 (3.10+) with venv and pip, and
# PyPI for the tools (maturin, ziglang, auditwheel: scripts/tools/wheel.txt,
# cached in target/tools-wheel).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
# shellcheck source=scripts/tools/venv.sh
source scripts/tools/venv.sh

target=""
sdist=1
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --target) [ $# -ge 2 ] || { echo "build-wheel: --target needs a triple" >&2; exit 2; }
                  target="$2"; shift ;;
        --no-sdist) sdist=0 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "build-wheel: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) [ -z "$out" ] || { echo "build-wheel: one OUT_DIR only" >&2; exit 2; }
           out="$1" ;;
    esac
    shift
done

for tool in cargo rustc; do
    command -v "$tool" >/dev/null 2>&1 ||
        { echo "build-wheel: no '$tool' on PATH: the wheel is built from the Rust sources (rustup installs Rust 1.95+)" >&2; exit 1; }
done
target_dir="${CARGO_TARGET_DIR:-$root/target}"
out="${out:-$target_dir/wheels}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
host="$(rustc -vV | sed -n 's/^host: //p')"
target="${target:-$host}"

case "$target" in
    *-linux-gnu) compat=manylinux2014; zig=1 ;;
    *-linux-musl) compat=musllinux_1_2; zig=1 ;;
    *-apple-darwin | *-windows-msvc) compat=""; zig=0 ;;
    *) echo "build-wheel: no wheel is built for target '$target' (Linux gnu/musl, macOS, Windows MSVC)" >&2; exit 2 ;;
esac
if ! rustc --print target-libdir --target "$target" >/dev/null 2>&1 ||
    [ ! -d "$(rustc --print target-libdir --target "$target")" ]; then
    command -v rustup >/dev/null 2>&1 ||
        { echo "build-wheel: the Rust standard library for $target is not installed, and there is no rustup to add it" >&2; exit 1; }
    rustup target add "$target"
fi

tools="$(tools_venv wheel)"
export PATH="$tools:$PATH"   # maturin, and `python -m ziglang` for --zig

# The version and repository URL the wheel's metadata must carry (from the
# workspace's Cargo.toml, as maturin takes them; pyproject.toml repeats the URL).
read -r version repository < <(cargo metadata --format-version 1 --no-deps --locked |
    "$tools/python" -c 'import json, sys
package = next(p for p in json.load(sys.stdin)["packages"] if p["name"] == "rankeval-python")
print(package["version"], package["repository"])')
[ -n "${repository:-}" ] || { echo "build-wheel: no version or repository for rankeval-python in cargo metadata" >&2; exit 1; }

rm -f "$out"/rankeval_rs-*.whl "$out"/rankeval_rs-*.tar.gz
start=$SECONDS
build=(maturin build --release --locked --manifest-path crates/python/Cargo.toml --target "$target" --out "$out")
if [ "$zig" = 1 ]; then
    build+=(--zig --compatibility "$compat")
fi
echo "build-wheel: ${build[*]}" >&2
"${build[@]}"
if [ "$sdist" = 1 ]; then
    maturin sdist --manifest-path crates/python/Cargo.toml --out "$out"
fi
echo "build-wheel: built in $((SECONDS - start)) s" >&2

shopt -s nullglob
wheels=("$out"/rankeval_rs-"$version"-cp310-abi3-*.whl)
sdists=("$out"/rankeval_rs-"$version".tar.gz)
shopt -u nullglob
if [ "${#wheels[@]}" -ne 1 ]; then
    echo "build-wheel: expected one rankeval_rs-$version-cp310-abi3-*.whl in $out, found ${#wheels[@]}:" >&2
    ls "$out" >&2
    exit 1
fi
wheel="${wheels[0]}"
if [ "$sdist" = 1 ] && [ "${#sdists[@]}" -ne 1 ]; then
    echo "build-wheel: no sdist rankeval_rs-$version.tar.gz in $out" >&2
    exit 1
fi

# What the wheel and the sdist carry: the licences (the texts, not links
# written as text by a checkout without symbolic links), the version and the
# repository URL of the workspace.
checked=("$wheel")
if [ "$sdist" = 1 ]; then checked+=("${sdists[0]}"); fi
"$tools/python" - "$version" "$repository" "${checked[@]}" <<'PY'
import email.parser, sys, tarfile, zipfile

version, repository, *archives = sys.argv[1:]
problems = []
for path in archives:
    if path.endswith(".whl"):
        archive = zipfile.ZipFile(path)
        members = {name: (lambda n=name: archive.read(n)) for name in archive.namelist()}
    else:
        archive = tarfile.open(path)
        members = {m.name: (lambda m=m: archive.extractfile(m).read()) for m in archive.getmembers() if m.isfile()}
    for licence, words in (("LICENSE-MIT", b"Permission is hereby granted"), ("LICENSE-APACHE", b"Apache License")):
        found = [name for name in members if name.rsplit("/", 1)[-1] == licence]
        if not found:
            problems.append(f"{path}: no {licence}")
        for name in found:
            if words not in members[name]():
                problems.append(f"{path}: {name} is not the licence text (a link written as a file?)")
    metadata = [name for name in members if name.endswith(("dist-info/METADATA", "/PKG-INFO")) and name.count("/") == 1]
    if not metadata:
        problems.append(f"{path}: no METADATA or PKG-INFO")
        continue
    fields = email.parser.BytesParser().parsebytes(members[metadata[0]]())
    if fields["Version"] != version:
        problems.append(f"{path}: version {fields['Version']}, the workspace's is {version}")
    urls = dict(u.split(", ", 1) for u in fields.get_all("Project-URL") or [])
    if urls.get("Repository") != repository:
        problems.append(f"{path}: Project-URL Repository is {urls.get('Repository')!r}, Cargo.toml's repository is {repository!r}")
if problems:
    print("build-wheel: " + "\nbuild-wheel: ".join(problems), file=sys.stderr)
    sys.exit(1)
PY

if [ -n "$compat" ]; then
    # auditwheel reads the extension's ELF: the glibc (musl) symbol versions
    # and the libraries it links. It names the most widely compatible policy.
    report="$(auditwheel show "$wheel")"
    echo "$report"
    "$tools/python" - "$compat" "$report" <<'PY' || exit 1
import re, sys

compat, report = sys.argv[1:]
tags = re.findall(r'platform tag:\s*"([^"]+)"', report)
if compat == "manylinux2014":
    # manylinux2014 is manylinux_2_17: a policy of glibc 2.17 or older.
    ok = [t for t in tags if (m := re.match(r"manylinux_2_(\d+)_", t)) and int(m.group(1)) <= 17]
else:
    ok = [t for t in tags if (m := re.match(r"musllinux_1_(\d+)_", t)) and int(m.group(1)) <= 2]
if not ok:
    print(f"build-wheel: auditwheel names {tags or 'no policy'}, not {compat} or older", file=sys.stderr)
    sys.exit(1)
PY
fi
ls -l "${checked[@]}"
