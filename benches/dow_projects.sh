#!/usr/bin/env bash
# Fetches the real third-party projects that `cargo bench --bench diagnostics_on_write` writes
# into, from the package registries, with their ordinary clients, into
# target/dow-bench-projects (ignored by git). Idempotent. The bench also uses projects already on
# the machine: regex-syntax 0.8.12 and liblzma-sys 0.4.9 from the cargo registry cache (fetched by
# building runbound), and go-cmp from Debian's golang-github-google-go-cmp-dev.
#
# Usage: bash benches/dow_projects.sh [DEST]
set -euo pipefail
dest="${1:-$(cd "$(dirname "$0")/.." && pwd)/target/dow-bench-projects}"
mkdir -p "$dest"
cd "$dest"
# A PyPI sdist (src layout, typed, modules importing each other, tests).
if [ ! -d packaging-24.1 ]; then
  python3 -m pip download --quiet --no-deps --no-binary :all: packaging==24.1 -d .
  tar xzf packaging-24.1.tar.gz
fi
# An npm package that ships its TypeScript sources (57 modules behind an internal barrel).
if [ ! -d mobx-6.13.5 ]; then
  npm pack --silent mobx@6.13.5 >/dev/null
  mkdir -p mobx-6.13.5
  tar xzf mobx-6.13.5.tgz -C mobx-6.13.5 --strip-components=1
fi
# Go: go-cmp from Debian (a module with internal packages that import each other).
if [ ! -d /usr/share/gocode/src/github.com/google/go-cmp ] && command -v apt-get >/dev/null; then
  apt-get install -y -qq golang-github-google-go-cmp-dev >/dev/null || echo "note: golang-github-google-go-cmp-dev not installed; the gopls case will be skipped" >&2
fi
echo "$dest"
