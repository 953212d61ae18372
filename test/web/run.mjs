// The web entry in the real runtimes, from the packed tarball installed into a scratch project, as
// users get it: Node's WebAssembly backend, headless Chromium (an esbuild --platform=browser bundle, a Vite build, a Web
// Worker), Cloudflare's workerd with and without nodejs_compat, and Vercel's edge-runtime. Each
// runs test/web/program.js on the same generated texts (cl100k_base, o200k_base, Claude v4.7,
// the estimate, whole chats, a MessageContextManager trim) and must answer exactly what Node
// answers in the same run. Ends with "N passed, M failed".
//
//   node test/web/run.mjs                      pack the repository first (needs a build)
//   node test/web/run.mjs --tarball x.tgz      test a tarball already packed
//   node test/web/run.mjs --sizes              also print the bundle-size table (test/web/sizes.mjs)
//   node test/web/run.mjs --only Chromium      only the runtimes whose name holds the text (Node runs always)
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  runEdge,
  runEsbuildChromium,
  runEsbuildChromiumWithoutWasm,
  runNode,
  runViteChromium,
  runWorkerChromium,
  runWorkerd,
  withChromium,
} from "./runtimes.mjs";
import { scratchProject } from "./support.mjs";
import { makeTexts } from "./texts.mjs";

const { values } = parseArgs({
  options: { tarball: { type: "string" }, sizes: { type: "boolean" }, keep: { type: "boolean" }, only: { type: "string" } },
});
const chosen = (name) => values.only === undefined || name.includes(values.only);

/** The fields that must equal Node's: everything but the timings and the backend. */
function comparable(result) {
  const { coldStartMs: _cold, outsideMs: _outside, backend: _backend, ...rest } = result;
  return rest;
}

/** The first place where two answers differ, or undefined. */
function difference(expected, actual, path = "") {
  if (typeof expected !== "object" || expected === null)
    return Object.is(expected, actual) ? undefined : `${path || "value"}: Node ${JSON.stringify(expected)}, here ${JSON.stringify(actual)}`;
  if (typeof actual !== "object" || actual === null) return `${path}: Node ${JSON.stringify(expected)}, here ${JSON.stringify(actual)}`;
  for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const found = difference(expected[key], actual[key], path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

const texts = makeTexts();
const { work, app } = scratchProject(values.tarball);
let passed = 0;
let failed = 0;
const timings = [];
try {
  const node = await runNode({ app, texts });
  console.log(
    `node (${node.backend}): ${texts.length} texts, o200k ${node.o200k.reduce((a, b) => a + b, 0)} tokens, cold start ${node.coldStartMs.toFixed(0)} ms`,
  );
  timings.push(["Node (installed package, native addon)", node]);
  const check = async (name, runner) => {
    if (!chosen(name)) return;
    try {
      const result = await runner();
      const found = difference(comparable(node), comparable(result));
      if (found) throw new Error(`differs from Node: ${found}`);
      if (result.backend !== "wasm") throw new Error(`backend is ${result.backend}, not wasm`);
      passed++;
      timings.push([name, result]);
      console.log(
        `ok   ${name}: the same answers as Node (cold start ${result.coldStartMs?.toFixed(0) ?? "-"} ms in the runtime, ${result.outsideMs.toFixed(0)} ms from outside)`,
      );
    } catch (error) {
      failed++;
      console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // A run that must fail, and how: `expected` says what is wrong with the error, or nothing.
  const checkError = async (name, runner, expected) => {
    if (!chosen(name)) return;
    try {
      const error = await runner();
      const wrong = expected(error);
      if (wrong) throw new Error(`${wrong}: ${error.code} ${error.message}`);
      passed++;
      console.log(`ok   ${name}`);
    } catch (error) {
      failed++;
      console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  await check("Node, WebAssembly backend (CTXWIN_BACKEND=wasm)", () => runNode({ app, texts, backend: "wasm" }));
  await withChromium(async (context) => {
    await check("Chromium, esbuild --platform=browser bundle (the .wasm through the file loader)", () =>
      runEsbuildChromium({ app, texts, context }),
    );
    await checkError(
      "Chromium, esbuild bundle without init({ wasm }): init() names the URL it tried and what to pass",
      () => runEsbuildChromiumWithoutWasm({ app, texts, context }),
      (error) => {
        if (error.code !== "ERR_CTXWIN_ADDON_MISSING") return "not ERR_CTXWIN_ADDON_MISSING";
        if (
          !/not found at http:\/\/127\.0\.0\.1:\d+\/prebuilds\/wasm-web\/ctxwin\.wasm \(HTTP 404\), beside the bundle/.test(error.message)
        )
          return "the URL or the answer is not named";
        if (!error.message.includes('await init({ wasm: "/ctxwin.wasm", data })') || !error.message.includes("--loader:.wasm=file"))
          return "what to pass is not named";
        return undefined;
      },
    );
    await check("Chromium, Vite build", () => runViteChromium({ app, texts, context }));
    await check("Chromium, Web Worker (esbuild bundle)", () => runWorkerChromium({ app, texts, context }));
  });
  await check("workerd", () => runWorkerd({ app, texts, nodejsCompat: false }));
  await check("workerd with nodejs_compat", () => runWorkerd({ app, texts, nodejsCompat: true }));
  await check("edge-runtime (Vercel)", () => runEdge({ app, texts }));
  if (values.sizes) {
    const { measureSizes } = await import("./sizes.mjs");
    await measureSizes(app);
  }
} finally {
  if (!values.keep) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
console.log("\n| runtime | import to first count (ms, in the runtime) | load to answer (ms, from the harness) |\n|---|---|---|");
for (const [name, result] of timings)
  console.log(`| ${name} | ${result.coldStartMs === undefined ? "-" : result.coldStartMs.toFixed(0)} | ${result.outsideMs.toFixed(0)} |`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
