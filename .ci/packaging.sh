#!/usr/bin/env bash
# The packed tarball's declarations and package.json, checked as TypeScript and bundlers read them:
#   - @arethetypeswrong/cli on every entry point and resolution (node10 through typesVersions,
#     node16 from CommonJS and from ESM, bundler): every cell green.
#   - publint --strict.
#   - test/packaging/typescript-matrix.mjs: a consumer type-checked with TypeScript 5.0 to 7,
#     node16 / nodenext / bundler / node10, skipLibCheck false, with and without @types/node.
# The tools are installed once into the tool cache (test/packaging/tools.mjs).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/ctxwin-packaging.XXXXXX)"
trap 'rm -rf "$work"' EXIT
tool() { node --input-type=module -e "import * as t from '$repo/test/packaging/tools.mjs'; console.log(t.ensureTools('$1', ['$2']))"; }

(cd "$repo" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/ctxwin-*.tgz)"

echo "== attw (are the types wrong) =="
attw="$(tool attw @arethetypeswrong/cli@0.18)/node_modules/.bin/attw"
"$attw" --format table-flipped --no-emoji "$tarball" || {
  echo "FAILED: attw found problems"
  exit 1
}

echo "== publint --strict =="
"$(tool publint publint@0.3)/node_modules/.bin/publint" --strict "$tarball"

echo "== TypeScript versions x module resolutions =="
node "$repo/test/packaging/typescript-matrix.mjs" "$tarball"
