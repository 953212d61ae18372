#!/usr/bin/env bash
# Packs the tarball and installs it as a user would, in a new project, with install scripts
# ignored and no compiler on PATH, with npm and with pnpm 10; then runs .ci/smoke.mjs on both
# backends and requires the same results from each.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/ctxwin-install.XXXXXX)"
trap 'rm -rf "$work"' EXIT

npm pack --silent --pack-destination "$work" >/dev/null
tarball="$(ls "$work"/ctxwin-*.tgz)"
echo "packed $(basename "$tarball"): $(du -k "$tarball" | cut -f1) KiB"

# A PATH with every command of the system's but the compilers and build tools.
bin="$work/bin"
mkdir -p "$bin"
for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
  [ -d "$dir" ] || continue
  for tool in "$dir"/*; do
    name="$(basename "$tool")"
    case "$name" in
      gcc*|g++*|cc|c++|cpp*|cmake*|clang*|em++|emcc|emcmake|emmake|*-gcc*|*-g++*|*-cc|*-c++|ld|ld.*|*-ld|make|ninja) continue ;;
    esac
    [ -e "$bin/$name" ] || ln -s "$tool" "$bin/$name"
  done
done
for compiler in gcc g++ cc c++ cmake clang clang++ em++ make; do
  if PATH="$bin" command -v "$compiler" >/dev/null; then echo "FAILED: $compiler is still on the PATH"; exit 1; fi
done

smoke() {  # smoke <project dir>
  cp "$repo/.ci/smoke.mjs" "$1/smoke.mjs"
  local native wasm
  native="$(cd "$1" && PATH="$bin" CTXWIN_BACKEND=native node smoke.mjs)"
  wasm="$(cd "$1" && PATH="$bin" CTXWIN_BACKEND=wasm node smoke.mjs)"
  echo "  native: $native"
  echo "  wasm:   $wasm"
  [ "$native" = "$wasm" ] || { echo "FAILED: the backends disagree"; exit 1; }
  # Without CTXWIN_BACKEND, linux-x64 gets the prebuilt addon (no build/ in the package).
  [ ! -e "$1/node_modules/ctxwin/build" ] || { echo "FAILED: the install built something"; exit 1; }
  (cd "$1" && PATH="$bin" node --input-type=module -e 'import { backend } from "ctxwin"; if (backend !== "native") throw new Error(backend)')
}

echo "== npm install --ignore-scripts (no compiler on PATH) =="
mkdir -p "$work/npm-project"
echo '{ "name": "smoke", "private": true, "type": "module" }' > "$work/npm-project/package.json"
(cd "$work/npm-project" && PATH="$bin" npm install --ignore-scripts --no-audit --no-fund "$tarball" >/dev/null)
smoke "$work/npm-project"

echo "== pnpm 10 add (scripts blocked by default; no compiler on PATH) =="
mkdir -p "$work/pnpm-project"
echo '{ "name": "smoke", "private": true, "type": "module" }' > "$work/pnpm-project/package.json"
(cd "$work/pnpm-project" && PATH="$bin" npx --yes pnpm@10 add --ignore-scripts "$tarball" >/dev/null)
smoke "$work/pnpm-project"
echo "install smoke test: npm and pnpm, both backends: OK"
