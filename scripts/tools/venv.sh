# shellcheck shell=bash
# Sourced by the scripts that need tools from PyPI (build-wheel.sh,
# build-binary.sh, lint-workflows.sh): `tools_venv NAME` makes the virtual
# environment target/tools-NAME (under CARGO_TARGET_DIR when set) with the
# pinned packages of scripts/tools/NAME.txt, once: it is reinstalled only when
# that file changes. Prints the venv's directory of executables (bin, or
# Scripts on Windows). A failed install is remembered (target/tools-NAME.failed)
# and not tried again until the file changes. PYTHON picks the interpreter (default python3, else
# python).

tools_venv() {
    local name="$1"
    local root requirements venv bin stamp failed wanted python
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    requirements="$root/scripts/tools/$name.txt"
    if [ ! -f "$requirements" ]; then
        echo "tools: no $requirements" >&2
        return 1
    fi
    venv="${CARGO_TARGET_DIR:-$root/target}/tools-$name"
    python="${PYTHON:-}"
    if [ -z "$python" ]; then
        if command -v python3 >/dev/null 2>&1; then python=python3
        elif command -v python >/dev/null 2>&1; then python=python
        else
            echo "tools: no python3 or python on PATH (Python 3.10+ with venv and pip is needed; PYTHON picks one)" >&2
            return 1
        fi
    fi
    stamp="$venv/requirements.sha256"
    wanted="$("$python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$requirements")"
    if [ -d "$venv/Scripts" ]; then bin="$venv/Scripts"; else bin="$venv/bin"; fi
    failed="$venv.failed"
    if [ -f "$failed" ] && [ "$(cat "$failed")" = "$wanted" ]; then
        echo "tools: scripts/tools/$name.txt did not install before (remove $failed to try again)" >&2
        return 1
    fi
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
        echo "tools: installing scripts/tools/$name.txt into $venv" >&2
        rm -rf "$venv"
        "$python" -m venv "$venv" || {
            echo "tools: '$python -m venv' failed (on Debian: apt-get install python3-venv)" >&2
            return 1
        }
        if [ -d "$venv/Scripts" ]; then bin="$venv/Scripts"; else bin="$venv/bin"; fi
        "$bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -r "$requirements" || {
            echo "tools: pip could not install scripts/tools/$name.txt (PyPI unreachable, or no wheel for this platform)" >&2
            echo "$wanted" >"$failed"
            return 1
        }
        rm -f "$failed"
        echo "$wanted" >"$stamp"
    fi
    echo "$bin"
}
