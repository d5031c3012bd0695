#!/usr/bin/env bash
# Checks that what a release publishes says the same thing everywhere:
#
# - the repository URL: `repository` in [workspace.package] (Cargo.toml) is
#   the one place to fill in; pyproject.toml's [project.urls], the links of
#   CHANGELOG.md and the README's download lines must start with it (maturin
#   does not read it from Cargo.toml);
# - the licences: every published crate and crates/python has LICENSE-MIT
#   and LICENSE-APACHE with the root's texts (links to them);
# - the version: CHANGELOG.md has a section for the workspace's version;
# - `cargo binstall`'s archive name is the one scripts/release/build-binary.sh writes;
# - maturin is pinned to one version in scripts/tools/wheel.txt and
#   crates/python/tests/requirements.txt.
#
# Usage: scripts/ci/check-metadata.sh. Needs cargo and python3 (3.11+, for
# tomllib). Run by .ci/run; see docs/distribution.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo metadata --format-version 1 --no-deps --locked | python3 -c "$(cat <<'PY'
import json, os, re, sys

try:
    import tomllib
except ImportError:
    sys.exit("check-metadata: needs Python 3.11 or later (tomllib)")

meta = json.load(sys.stdin)
members = set(meta["workspace_members"])
packages = {p["name"]: p for p in meta["packages"] if p["id"] in members}
problems = []

python = packages["rankeval-python"]
repository = python["repository"]
version = python["version"]
if not repository:
    problems.append("Cargo.toml: no `repository` in [workspace.package]")

with open("crates/python/pyproject.toml", "rb") as f:
    pyproject = tomllib.load(f)
urls = pyproject.get("project", {}).get("urls", {})
if urls.get("Repository") != repository:
    problems.append(f"crates/python/pyproject.toml: [project.urls] Repository is {urls.get('Repository')!r}, "
                    f"Cargo.toml's repository is {repository!r}")
for key, url in urls.items():
    if not url.startswith(repository):
        problems.append(f"crates/python/pyproject.toml: [project.urls] {key} = {url!r} is not under {repository!r}")

changelog = open("CHANGELOG.md", encoding="utf-8").read()
for number, line in enumerate(changelog.splitlines(), 1):
    if (m := re.match(r"\[[^\]]+\]:\s*(\S+)", line)) and not m.group(1).startswith(repository) \
            and "keepachangelog.com" not in m.group(1) and "semver.org" not in m.group(1):
        problems.append(f"CHANGELOG.md:{number}: link {m.group(1)} is not under {repository!r}")
if not re.search(rf"^## \[{re.escape(version)}\]", changelog, re.M):
    problems.append(f"CHANGELOG.md: no section `## [{version}]` for the workspace's version")

readme = open("README.md", encoding="utf-8").read()
for number, line in enumerate(readme.splitlines(), 1):
    for url in re.findall(r"https?://\S+/releases/download/\S+", line):
        if not url.startswith(repository):
            problems.append(f"README.md:{number}: {url} is not under {repository!r}")

root_texts = {name: open(name, "rb").read() for name in ("LICENSE-MIT", "LICENSE-APACHE")}
for name, package in sorted(packages.items()):
    if package["publish"] == [] and name != "rankeval-python":
        continue
    folder = os.path.dirname(package["manifest_path"])
    for licence, text in root_texts.items():
        path = os.path.relpath(os.path.join(folder, licence))
        if not os.path.isfile(path):
            problems.append(f"{path}: missing (a link to ../../{licence})")
        elif open(path, "rb").read() != text:
            problems.append(f"{path}: not the text of the root's {licence}")

binstall = (packages["rankeval-cli"].get("metadata") or {}).get("binstall") or {}
if not binstall.get("pkg-url", "").endswith("/rankeval-{ version }-{ target }.tar.gz"):
    problems.append("crates/cli/Cargo.toml: [package.metadata.binstall] pkg-url does not end with "
                    "/rankeval-{ version }-{ target }.tar.gz, the archive scripts/release/build-binary.sh writes")

def pin(path, package):
    for line in open(path, encoding="utf-8"):
        if m := re.match(rf"{package}==(\S+)", line.strip()):
            return m.group(1)
    return None
pins = {path: pin(path, "maturin") for path in ("scripts/tools/wheel.txt", "crates/python/tests/requirements.txt")}
if len(set(pins.values())) != 1 or None in pins.values():
    problems.append(f"maturin is pinned differently: {pins}")

if problems:
    print("check-metadata: " + "\ncheck-metadata: ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"check-metadata: version {version}, repository {repository}: "
      f"pyproject, CHANGELOG, README, licences, binstall and maturin pins agree")
PY
)"
