#!/usr/bin/env bash
# Builds the `rankeval` command for one target with the `dist` profile
# (release without debug info) and archives it for a release:
#
#   OUT_DIR/rankeval-VERSION-TARGET.tar.gz          the binary, README.md,
#                                                   LICENSE-MIT, LICENSE-APACHE
#                                                   in rankeval-VERSION-TARGET/
#   OUT_DIR/rankeval-VERSION-TARGET.tar.gz.sha256   its SHA-256 (`sha256sum -c`)
#   OUT_DIR/rankeval-VERSION-TARGET/                 the same files, unpacked
#
# Linux targets are built with `cargo zigbuild` (zig from PyPI as linker and
# C compiler, for zstd's C code): the default on Linux is the host's
# *-unknown-linux-musl, a static binary that runs on any Linux of that
# architecture; *-unknown-linux-gnu is linked against glibc 2.17 (as the
# manylinux2014 wheel), and uses the system's libm, as that wheel does, so
# that its statistics agree with the wheel's to the last bit (musl's libm
# rounds some functions differently: docs/distribution.md). macOS and
# Windows use the platform's toolchain. The names
# are the ones `cargo binstall rankeval-cli` looks for
# ([package.metadata.binstall] in crates/cli/Cargo.toml). The release
# workflow runs this script for each target; see docs/distribution.md.
#
# Usage: scripts/release/build-binary.sh [--target TRIPLE] [OUT_DIR]
#   --target TRIPLE  a Rust target (default: the host's, musl on Linux),
#                    added with rustup when missing
#   OUT_DIR          default target/binaries (under CARGO_TARGET_DIR when set)
# Needs cargo and rustc (Rust 1.95+), python3 with venv and pip, and PyPI for
# zig on Linux (scripts/tools/binary.txt, cached in target/tools-binary).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
# shellcheck source=scripts/tools/venv.sh
source scripts/tools/venv.sh

target=""
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --target) [ $# -ge 2 ] || { echo "build-binary: --target needs a triple" >&2; exit 2; }
                  target="$2"; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "build-binary: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) [ -z "$out" ] || { echo "build-binary: one OUT_DIR only" >&2; exit 2; }
           out="$1" ;;
    esac
    shift
done

for tool in cargo rustc; do
    command -v "$tool" >/dev/null 2>&1 ||
        { echo "build-binary: no '$tool' on PATH (rustup installs Rust 1.95+)" >&2; exit 1; }
done
target_dir="${CARGO_TARGET_DIR:-$root/target}"
out="${out:-$target_dir/binaries}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
host="$(rustc -vV | sed -n 's/^host: //p')"
if [ -z "$target" ]; then
    case "$host" in
        *-unknown-linux-gnu) target="${host%-gnu}-musl" ;;
        *) target="$host" ;;
    esac
fi
if [ ! -d "$(rustc --print target-libdir --target "$target" 2>/dev/null || true)" ]; then
    command -v rustup >/dev/null 2>&1 ||
        { echo "build-binary: the Rust standard library for $target is not installed, and there is no rustup to add it" >&2; exit 1; }
    rustup target add "$target"
fi

python="${PYTHON:-}"
if [ -z "$python" ]; then
    if command -v python3 >/dev/null 2>&1; then python=python3
    elif command -v python >/dev/null 2>&1; then python=python
    else echo "build-binary: no python3 or python on PATH (set PYTHON)" >&2; exit 1; fi
fi
# The version of the command (the workspace's).
version="$(cargo metadata --format-version 1 --no-deps --locked | "$python" -c 'import json, sys
print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "rankeval-cli"))')"
[ -n "$version" ] || { echo "build-binary: no version of rankeval-cli in cargo metadata" >&2; exit 1; }
case "$target" in *-windows-*) exe=rankeval.exe ;; *) exe=rankeval ;; esac

start=$SECONDS
build=(build --locked --profile dist -p rankeval-cli --bin rankeval --target "$target")
case "$target" in
    *-linux-*)
        tools="$(tools_venv binary)"
        # cargo-zigbuild, and the zig of the ziglang package (`python3 -m
        # ziglang`); a glibc target is linked against glibc 2.17, as the
        # manylinux2014 wheel is, so that it runs where that wheel installs.
        zig_target="$target"
        case "$target" in *-linux-gnu) zig_target="$target.2.17" ;; esac
        PATH="$tools:$PATH" cargo zigbuild --locked --profile dist -p rankeval-cli --bin rankeval --target "$zig_target"
        ;;
    *) cargo "${build[@]}" ;;
esac
echo "build-binary: built in $((SECONDS - start)) s" >&2
built="$target_dir/$target/dist/$exe"
[ -f "$built" ] || { echo "build-binary: cargo wrote no $built" >&2; exit 1; }

name="rankeval-$version-$target"
epoch="$(git log -1 --format=%ct 2>/dev/null || date +%s)"
rm -rf "${out:?}/$name" "$out/$name.tar.gz" "$out/$name.tar.gz.sha256"
mkdir -p "$out/$name"
cp "$built" "$out/$name/$exe"
# The texts themselves (cp follows the crates' links to them).
cp README.md LICENSE-MIT LICENSE-APACHE "$out/$name/"

# The archive (fixed owner, modes and times: the same files give the same
# bytes) and its checksum, by Python, alike on every runner.
"$python" - "$out" "$name" "$exe" "$epoch" "$target" <<'PY'
import gzip, hashlib, io, os, sys, tarfile

out, name, exe, epoch, target = sys.argv[1:]
epoch = int(epoch)
archive = os.path.join(out, f"{name}.tar.gz")
buffer = io.BytesIO()
with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
    for file in (exe, "README.md", "LICENSE-MIT", "LICENSE-APACHE"):
        data = open(os.path.join(out, name, file), "rb").read()
        info = tarfile.TarInfo(f"{name}/{file}")
        info.size, info.mtime, info.mode = len(data), epoch, 0o755 if file == exe else 0o644
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        tar.addfile(info, io.BytesIO(data))
with open(archive, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=epoch, filename="") as gz:
    gz.write(buffer.getvalue())
digest = hashlib.sha256(open(archive, "rb").read()).hexdigest()
with open(archive + ".sha256", "w", newline="\n") as f:
    f.write(f"{digest}  {name}.tar.gz\n")

binary = open(os.path.join(out, name, exe), "rb").read()
if "-linux-musl" in target:
    # A static binary: an ELF without a program interpreter (PT_INTERP), so no
    # dynamic loader or libc of the system is needed.
    import struct
    if binary[:4] != b"\x7fELF" or binary[4] != 2:
        sys.exit(f"build-binary: {name}/{exe} is not a 64-bit ELF file")
    endian = "<" if binary[5] == 1 else ">"
    phoff, = struct.unpack_from(endian + "Q", binary, 0x20)
    phentsize, phnum = struct.unpack_from(endian + "HH", binary, 0x36)
    kinds = [struct.unpack_from(endian + "I", binary, phoff + i * phentsize)[0] for i in range(phnum)]
    if 3 in kinds:
        sys.exit(f"build-binary: {name}/{exe} asks for a dynamic loader (PT_INTERP): not static")
    print(f"build-binary: {name}/{exe} is static (no PT_INTERP)")
print(f"build-binary: {exe} {len(binary) / 1e6:.1f} MB, {name}.tar.gz {os.path.getsize(archive) / 1e6:.1f} MB, sha256 {digest}")
PY

# Where the target runs here (the host's, or musl on the same Linux
# architecture), the binary says its version.
if [ "$target" = "$host" ] || [ "${target%-musl}" = "${host%-gnu}" ]; then
    said="$("$out/$name/$exe" --version)"
    case "$said" in
        "rankeval $version" | "rankeval $version+"*) echo "build-binary: $said" ;;
        *) echo "build-binary: '$name/$exe --version' printed '$said', not rankeval $version" >&2; exit 1 ;;
    esac
fi
ls -l "$out/$name.tar.gz" "$out/$name.tar.gz.sha256"
