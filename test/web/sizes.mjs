// Bundle sizes of a minimal counter program per data set, for the browser (esbuild
// --platform=browser) and for Cloudflare Workers (esbuild with the workerd conditions, the .wasm a
// module of the Worker as wrangler uploads it), minified: raw and gzip (level 9) of the
// JavaScript and the .wasm, and their sum, the figure Cloudflare's script limit is about.
//
//   node test/web/sizes.mjs <scratch project with ctxwin installed>   (run.mjs --sizes does this)
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { bundle, filesOf, webWasm } from "./support.mjs";

const SETS = [
  ["o200k_base only", ["o200k_base"], 'getCounter("gpt-4o").count(text)'],
  ["cl100k_base only", ["cl100k_base"], 'getCounter("gpt-4").count(text)'],
  ["Claude only (v4.7 and v5)", ["claude-v4.7"], 'getCounter("claude-opus-4-7").count(text)'],
  ["Claude only (v3)", ["claude-v3"], 'getCounter("claude-3-5-sonnet").count(text)'],
  [
    "everything (4 encodings, 2 Claude vocabularies)",
    ["all"],
    'getCounter("gpt-4o").count(text) + getCounter("claude-opus-4-7").count(text)',
  ],
];

const binding = (name) => name.replace(/[^A-Za-z0-9]+(.)/g, (_, c) => c.toUpperCase());
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;

function program(modules, call) {
  const imports = modules.map((name) => `import ${binding(name)} from "ctxwin/data/${name}";`).join("\n");
  const data = modules.map((name) => (name === "all" ? `...${binding(name)}` : binding(name))).join(", ");
  return `import { getCounter, init } from "ctxwin";\n${imports}\nexport async function count(text) {\n  await init({ data: [${data}] });\n  return ${call};\n}\n`;
}

function sizeOf(files) {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzip };
}

export async function measureSizes(app) {
  const wasm = sizeOf([webWasm(app)]);
  const rows = [];
  for (const [name, modules, call] of SETS) {
    const entry = `size-${modules.join("-")}.js`;
    writeFileSync(join(app, entry), program(modules, call));
    const row = [name];
    for (const [target, conditions, platform] of [
      ["browser", [], "browser"],
      ["workerd", ["workerd", "worker", "browser"], "neutral"],
    ]) {
      const outdir = join(app, "sizes", target, modules.join("-"));
      await bundle({ app, entry: `./${entry}`, outdir, conditions, platform, minify: true });
      const js = sizeOf(filesOf(outdir).filter((file) => file.endsWith(".js")));
      row.push(js, { raw: js.raw + wasm.raw, gzip: js.gzip + wasm.gzip });
    }
    rows.push(row);
  }
  console.log(
    `\nThe WebAssembly core (prebuilds/wasm-web/ctxwin.wasm, SIMD128): ${kb(wasm.raw)}, gzip ${kb(wasm.gzip)}; ` +
      `its JavaScript glue is inside each bundle.\n`,
  );
  console.log("| data in the bundle | browser JS | browser JS + .wasm | Worker JS | Worker upload (JS + .wasm) |\n|---|---|---|---|---|");
  for (const [name, bjs, ball, wjs, wall] of rows) {
    const cell = (s) => `${kb(s.raw)} (gzip ${kb(s.gzip)})`;
    console.log(`| ${name} | ${cell(bjs)} | ${cell(ball)} | ${cell(wjs)} | ${cell(wall)} |`);
  }
  return rows;
}

if (process.argv[1]?.endsWith("sizes.mjs")) {
  const app = process.argv[2];
  if (!app || !statSync(join(app, "node_modules", "ctxwin")).isDirectory())
    throw new Error("usage: node test/web/sizes.mjs <scratch project with ctxwin installed>");
  await measureSizes(app);
}
