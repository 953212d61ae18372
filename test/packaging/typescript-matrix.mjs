// Type-checks a consumer of the packed package with each TypeScript version it supports, each
// module resolution and with and without @types/node, `skipLibCheck: false` (so ctxwin's own .d.ts
// files are checked too), and prints the results as a Markdown table. Exits 1 if a combination
// that should pass does not.
//
//   node test/packaging/typescript-matrix.mjs [path/to/ctxwin-x.y.z.tgz]
//
// CTXWIN_TS_VERSIONS="5.0 7" and CTXWIN_TS_RESOLUTIONS="node10" narrow it to some rows.
// Without a tarball it packs one. The TypeScript versions, @types/node and the frameworks the
// adapter subpaths' declarations name are installed once into the tool cache (tools.mjs).
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureTools, installedVersion, tscCommand } from "./tools.mjs";

const repo = resolve(fileURLToPath(import.meta.url), "..", "..", "..");
const VERSIONS = (process.env.CTXWIN_TS_VERSIONS || "5.0 5.4 5.9 6 7").split(/\s+/).filter(Boolean);
const ONLY_RESOLUTIONS = (process.env.CTXWIN_TS_RESOLUTIONS || "").split(/\s+/).filter(Boolean);

/** The capability subpaths (docs/api.md): like the root, checked in every combination. */
const CAPABILITIES = [
  "tokens",
  "models",
  "budget",
  "truncation",
  "compaction",
  "session",
  "cost",
  "context",
  "recall",
  "report",
  "agent-threads",
].map((s) => `ctxwin/${s}`);
/** The public subpaths; each has a CommonJS build (require) as well as its ES modules. */
const SUBPATHS = [
  "ctxwin",
  ...CAPABILITIES,
  "ctxwin/cli",
  "ctxwin/openai-agents",
  "ctxwin/mastra",
  "ctxwin/langchain-history",
  "ctxwin/ai-sdk",
  "ctxwin/langchain",
];
/** Subpaths that only run on Node: their declarations use Node's types, so they need @types/node. */
const NODE_ONLY = new Set(["ctxwin/cli"]);
/**
 * The adapter subpaths name their frameworks' types (ai, langchain, @openai/agents), whose
 * declarations are large: checking them costs a minute a run on a loaded 2-core machine. They are
 * checked once per TypeScript version (nodenext, ESM and CommonJS files, with @types/node, as a
 * Node program using a framework is); ctxwin's own entries in every combination.
 */
const CORE = new Set(["ctxwin", ...CAPABILITIES, "ctxwin/cli"]);

/**
 * The resolutions, each with its tsconfig options and the consumer files it checks. node16 and
 * nodenext check an ESM file (.mts, import) and a CommonJS one (.cts, require).
 */
const RESOLUTIONS = {
  node16: { options: { module: "node16", moduleResolution: "node16" }, files: ["esm.mts", "cjs.cts"] },
  nodenext: { options: { module: "nodenext", moduleResolution: "nodenext" }, files: ["esm.mts", "cjs.cts"] },
  bundler: { options: { module: "esnext", moduleResolution: "bundler" }, files: ["esm.ts"] },
  node10: { options: { module: "commonjs", moduleResolution: "node10" }, files: ["cjs-node10.ts"] },
};

/** Combinations that cannot work, with the reason; reported, not run. */
function unsupported(version, resolution) {
  if (resolution === "node10" && version === "7") return "TypeScript 7 removed moduleResolution node10";
  return undefined;
}

function consumerFiles(withNode, frameworks) {
  const names = SUBPATHS.filter((s) => (withNode || !NODE_ONLY.has(s)) && (frameworks || CORE.has(s)));
  const id = (s) => s.replace(/[^a-z]/gi, "_");
  // What a program does with the root API, typed: the event names and payloads of the emitter (the
  // approximate counter is ctxwin/tokens', which every consumer file imports).
  const use = (ns) => `
const limits = new ${ns}.ContextLimits({ model: "m", maxTokens: 1000, maxOutputTokens: 0, reservedTokens: 0 });
const manager = new ${ns}.MessageContextManager({ model: "m", limits, counter: new ${id("ctxwin/tokens")}.ApproximateCounter(), compaction: { trimAt: 0.95 } });
manager.on("warning", (warning) => { const text: string = warning.message; void text; });
const count: number = ${ns}.estimateTokens("hello");
void count;
`;
  const esm = `${names.map((s) => `import * as ${id(s)} from "${s}";`).join("\n")}\n${use(id("ctxwin"))}\nexport const all = [${names.map(id).join(", ")}];\n`;
  const cjs = `${names.map((s) => `import ${id(s)} = require("${s}");`).join("\n")}
${use(id("ctxwin"))}
export const all = [${names.map(id).join(", ")}];
`;
  const suffix = frameworks ? "-frameworks" : "";
  return { [`esm${suffix}.mts`]: esm, [`esm${suffix}.ts`]: esm, [`cjs${suffix}.cts`]: cjs, [`cjs-node10${suffix}.ts`]: cjs };
}

function linkAll(fromModules, toModules, skip) {
  mkdirSync(toModules, { recursive: true });
  for (const name of readdirSync(fromModules)) {
    if (name.startsWith(".")) continue;
    if (name.startsWith("@")) {
      for (const inner of readdirSync(join(fromModules, name))) {
        if (skip(`${name}/${inner}`)) continue;
        mkdirSync(join(toModules, name), { recursive: true });
        symlinkSync(join(fromModules, name, inner), join(toModules, name, inner));
      }
    } else if (!skip(name)) {
      symlinkSync(join(fromModules, name), join(toModules, name));
    }
  }
}

export function typescriptMatrix(tarball) {
  const work = mkdtempSync(join(tmpdir(), "ctxwin-ts-matrix-"));
  try {
    if (!tarball) {
      execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: repo, stdio: ["ignore", "ignore", "inherit"] });
      tarball = join(
        work,
        readdirSync(work).find((f) => f.endsWith(".tgz")),
      );
    }
    // The package installed as a user installs it (real files, so that its declarations resolve
    // the frameworks from the project's node_modules), the frameworks its adapters' types name
    // linked in from the cache, and @types/node only in the project that asks for it.
    const peers = ensureTools("ts-consumer-peers", ["ai@6", "langchain@1", "@langchain/core@1", "@openai/agents@0.14", "zod@4"]);
    const typesNode = ensureTools("types-node-20", ["@types/node@20"]);
    const first = join(work, "with-node");
    mkdirSync(first);
    writeFileSync(join(first, "package.json"), JSON.stringify({ name: "consumer", private: true }));
    execFileSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", tarball], {
      cwd: first,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const modulesOf = (project) => join(project, "node_modules");
    linkAll(join(peers, "node_modules"), modulesOf(first), (name) => name === "@types/node" || existsSync(join(modulesOf(first), name)));
    cpSync(first, join(work, "without-node"), { recursive: true, verbatimSymlinks: true });
    mkdirSync(join(modulesOf(first), "@types"), { recursive: true });
    if (!existsSync(join(modulesOf(first), "@types", "node")))
      symlinkSync(join(typesNode, "node_modules", "@types", "node"), join(modulesOf(first), "@types", "node"));
    rmSync(join(work, "without-node", "node_modules", "@types", "node"), { recursive: true, force: true });

    const rows = [];
    let failures = 0;
    for (const withNode of [true, false]) {
      const project = join(work, withNode ? "with-node" : "without-node");
      for (const frameworks of [false, true]) {
        for (const [file, text] of Object.entries(consumerFiles(withNode, frameworks))) writeFileSync(join(project, file), text);
      }
      for (const version of VERSIONS) {
        const tsc = tscCommand(version);
        const tsVersion = installedVersion(join(tsc[1], "..", "..", "..", ".."), "typescript");
        const runs = Object.entries(RESOLUTIONS).map(([resolution, r]) => ({ resolution, ...r, frameworks: false }));
        if (withNode)
          runs.push({
            resolution: "nodenext",
            ...RESOLUTIONS.nodenext,
            files: ["esm-frameworks.mts", "cjs-frameworks.cts"],
            frameworks: true,
          });
        for (const { resolution, options, files, frameworks } of runs) {
          if (ONLY_RESOLUTIONS.length > 0 && !ONLY_RESOLUTIONS.includes(resolution)) continue;
          const reason = unsupported(version, resolution);
          const label = {
            typescript: tsVersion,
            resolution,
            typesNode: withNode,
            subpaths: frameworks
              ? `all ${SUBPATHS.length}`
              : withNode
                ? "ctxwin, its capabilities, ctxwin/cli"
                : "ctxwin and its capabilities",
          };
          if (reason) {
            rows.push({ ...label, result: `unsupported: ${reason}` });
            continue;
          }
          const config = {
            compilerOptions: {
              ...options,
              target: "es2022",
              // Without @types/node the consumer is a web one: the DOM lib declares the globals
              // (ReadableStream) that Node's types declare otherwise.
              lib: withNode ? ["es2022"] : ["es2022", "dom"],
              types: withNode ? ["node"] : [],
              strict: true,
              skipLibCheck: false,
              noEmit: true,
              // TypeScript 6 deprecates node10; the check is that the package's types resolve.
              ...(resolution === "node10" && version === "6" ? { ignoreDeprecations: "6.0" } : {}),
            },
            files,
          };
          const configPath = join(project, `tsconfig.${resolution}${frameworks ? "-frameworks" : ""}.json`);
          writeFileSync(configPath, JSON.stringify(config, null, 2));
          process.stderr.write(`typescript ${tsVersion} ${resolution}${withNode ? " @types/node" : ""} ${label.subpaths}: `);
          const run = spawnSync(tsc[0], [...tsc.slice(1), "-p", configPath], { cwd: project, encoding: "utf8" });
          // Errors in the frameworks' own declarations (they need the DOM lib, and some of their
          // .d.cts files import ESM) are theirs: counted, not failed on. Errors in ctxwin's
          // declarations or in the consumer are failures.
          const lines = `${run.stdout}${run.stderr}`.split("\n").filter((line) => /error TS\d+/.test(line));
          const errors = lines.filter((line) => !/node_modules\//.test(line) || /node_modules\/ctxwin\//.test(line));
          const theirs = lines.length - errors.length;
          const passed = errors.length === 0 && (run.status === 0 || theirs > 0);
          process.stderr.write(`${passed ? "pass" : "FAIL"}${theirs ? ` (${theirs} errors in the frameworks' declarations)` : ""}\n`);
          if (passed) rows.push({ ...label, result: theirs ? `pass (${theirs} errors in the frameworks' own .d.ts)` : "pass" });
          else {
            failures++;
            for (const line of errors) process.stderr.write(`  ${line}\n`);
            rows.push({
              ...label,
              result: `FAIL (${errors.length} errors): ${errors.slice(0, 3).join(" | ") || run.stderr.trim().slice(0, 300)}`,
            });
          }
        }
      }
    }
    return { rows, failures };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const { rows, failures } = typescriptMatrix(process.argv[2] && resolve(process.argv[2]));
  console.log("| TypeScript | moduleResolution | @types/node | subpaths | result |\n|---|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.typescript} | ${r.resolution} | ${r.typesNode ? "yes" : "no"} | ${r.subpaths} | ${r.result} |`);
  console.log(`\n${rows.length} combinations, ${failures} failed, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exit(failures > 0 ? 1 : 0);
}
