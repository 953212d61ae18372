// Each runtime the web entry is tested in: how the program gets there (bundled for the runtime's
// export conditions, or as the package is installed) and its answer. Every runner resolves with
// the program's result (counts and the cold start it measured) and `outsideMs`, the time from
// asking the runtime to load the program to its answer, seen from the harness.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle, serve, tool, webWasm, writeTexts } from "./support.mjs";

const SETTLE_MS = 120_000;

/**
 * Node, from the installed package: the reference every other runtime is compared with (native
 * addon), or with `backend: "wasm"` its WebAssembly build.
 */
export async function runNode({ app, texts, backend = "native" }) {
  writeTexts(app, texts);
  const script = `const start = performance.now(); const { run } = await import("./program.js"); const { texts } = await import("./texts-data.js");
process.stdout.write(JSON.stringify(await run(texts, { start })));`;
  const began = performance.now();
  const output = await child("node", ["--input-type=module", "-e", script], { cwd: app, env: { ...process.env, CTXWIN_BACKEND: backend } });
  return { ...JSON.parse(output), outsideMs: performance.now() - began };
}

function child(command, args, options) {
  return new Promise((resolve, reject) => {
    const process = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    process.stdout.on("data", (chunk) => (out += chunk));
    process.stderr.on("data", (chunk) => (err += chunk));
    const timer = setTimeout(() => process.kill("SIGKILL"), SETTLE_MS);
    process.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${command} exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

// `wasm`: a JavaScript expression for init()'s `wasm` (none: the entry's default), after `imports`.
const PAGE_SCRIPT = (wasm, imports = "") => `import { run } from "./program.js";
import { texts } from "./texts-data.js";
${imports}
// start 0: the cold start counts from the page's navigation (fetching and compiling included).
run(texts, { start: 0${wasm ? `, wasm: ${wasm}` : ""} }).then(
  (result) => { window.__result = result; },
  (error) => { window.__result = { error: String(error && error.stack || error), code: error && error.code, message: error && error.message }; },
);
`;

/** A browser session: Debian's Chromium, headless, driven by playwright-core. */
export async function withChromium(use) {
  const { chromium } = await import(join(tool("playwright-core"), "index.mjs"));
  const profile = mkdtempSync(join(tmpdir(), "ctxwin-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    return await use(context);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function inPage(context, dir, page = "index.html") {
  const server = await serve(dir);
  const tab = await context.newPage();
  const errors = [];
  tab.on("pageerror", (error) => errors.push(String(error)));
  try {
    const began = performance.now();
    await tab.goto(server.url + page);
    await tab.waitForFunction(() => window.__result !== undefined, null, { timeout: SETTLE_MS });
    const result = await tab.evaluate(() => window.__result);
    if (result.error) throw Object.assign(new Error(result.message ?? result.error), { code: result.code, stack: result.error });
    if (errors.length > 0) throw new Error(errors.join("\n"));
    return { ...result, outsideMs: performance.now() - began };
  } finally {
    await tab.close();
    await server.close();
  }
}

/**
 * esbuild --platform=browser, as the docs tell its users: the .wasm imported by its path with the
 * file loader, which copies it beside the bundle and gives its URL, and `init({ wasm })`.
 */
export async function runEsbuildChromium({ app, texts, context }) {
  const dir = join(app, "esbuild-page");
  mkdirSync(dir, { recursive: true });
  writeTexts(app, texts);
  writeFileSync(
    join(app, "esbuild-page.js"),
    PAGE_SCRIPT("wasm", 'import wasm from "./node_modules/ctxwin/prebuilds/wasm-web/ctxwin.wasm";'),
  );
  await bundle({ app, entry: "./esbuild-page.js", outdir: dir, conditions: [], platform: "browser", wasm: "loader" });
  writeFileSync(join(dir, "index.html"), `<!doctype html><script type="module" src="./esbuild-page.js"></script>`);
  return inPage(context, dir);
}

/**
 * esbuild --platform=browser without `init({ wasm })`: the entry's default URL beside the bundle,
 * which esbuild did not copy. Resolves with the error init() rejected with.
 */
export async function runEsbuildChromiumWithoutWasm({ app, texts, context }) {
  const dir = join(app, "esbuild-page-default");
  mkdirSync(dir, { recursive: true });
  writeTexts(app, texts);
  writeFileSync(join(app, "esbuild-page-default.js"), PAGE_SCRIPT(undefined));
  await bundle({ app, entry: "./esbuild-page-default.js", outdir: dir, conditions: [], platform: "browser" });
  writeFileSync(join(dir, "index.html"), `<!doctype html><script type="module" src="./esbuild-page-default.js"></script>`);
  try {
    await inPage(context, dir);
  } catch (error) {
    return error;
  }
  throw new Error("init() loaded a .wasm that is not beside the bundle");
}

/** A Vite production build (the browser condition; the .wasm found through new URL(..., import.meta.url)). */
export async function runViteChromium({ app, texts, context }) {
  const root = join(app, "vite-app");
  mkdirSync(root, { recursive: true });
  writeTexts(app, texts);
  writeFileSync(
    join(root, "main.js"),
    PAGE_SCRIPT().replaceAll("./program.js", "../program.js").replaceAll("./texts-data.js", "../texts-data.js"),
  );
  writeFileSync(join(root, "index.html"), `<!doctype html><script type="module" src="./main.js"></script>`);
  const vite = await import(join(tool("vite"), "dist", "node", "index.js"));
  await vite.build({ root, configFile: false, logLevel: "error", build: { outDir: join(root, "dist"), chunkSizeWarningLimit: 100_000 } });
  return inPage(context, join(root, "dist"));
}

/**
 * The esbuild bundle in a Web Worker of the page (the worker condition), as docs/install.md's "A
 * page and its Web Worker" has it: the Worker holds the one copy of the core, the page (its own
 * esbuild bundle) sends the texts and imports nothing of ctxwin, which its bundle must show.
 */
export async function runWorkerChromium({ app, texts, context }) {
  const dir = join(app, "worker-page");
  mkdirSync(dir, { recursive: true });
  writeTexts(app, texts);
  writeFileSync(
    join(app, "worker-page.js"),
    `import { run } from "./program.js";
self.onmessage = ({ data }) => run(data.texts, { wasm: "./ctxwin.wasm" }).then((result) => postMessage(result), (error) => postMessage({ error: String(error && error.stack || error) }));
`,
  );
  writeFileSync(
    join(app, "worker-main.js"),
    `import { texts } from "./texts-data.js";
const worker = new Worker("./worker-page.js", { type: "module" });
worker.onmessage = (event) => { window.__result = { ...event.data, coldStartMs: performance.now() }; };
worker.postMessage({ texts });
`,
  );
  await bundle({ app, entry: "./worker-page.js", outdir: dir, conditions: ["worker"], platform: "browser" });
  cpSync(webWasm(app), join(dir, "ctxwin.wasm"));
  const page = await bundle({ app, entry: "./worker-main.js", outdir: dir, conditions: [], platform: "browser" });
  const shipped = Object.keys(page.inputs).filter((file) => file.includes("node_modules/ctxwin"));
  if (shipped.length > 0) throw new Error(`the page's bundle holds ctxwin a second time: ${shipped.join(", ")}`);
  writeFileSync(join(dir, "index.html"), `<!doctype html><script type="module" src="./worker-main.js"></script>`);
  return inPage(context, dir);
}

/** Cloudflare's workerd (the workerd condition, the .wasm a module of the Worker), with or without nodejs_compat. */
export async function runWorkerd({ app, texts, nodejsCompat }) {
  const dir = join(app, nodejsCompat ? "workerd-compat" : "workerd");
  writeTexts(app, texts);
  writeFileSync(
    join(app, "worker-entry.js"),
    `import { run } from "./program.js";
import { texts } from "./texts-data.js";
export default {
  async fetch() {
    try {
      return Response.json(await run(texts));
    } catch (error) {
      return Response.json({ error: String(error && error.stack || error) });
    }
  },
};
`,
  );
  await bundle({ app, entry: "./worker-entry.js", outdir: dir, conditions: ["workerd", "worker", "browser"], platform: "neutral" });
  const port = 20000 + Math.floor(Math.random() * 20000);
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker-entry.js", esModule = embed "worker-entry.js"), (name = "ctxwin.wasm", wasm = embed "ctxwin.wasm") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = [${nodejsCompat ? '"nodejs_compat"' : ""}],
);
`,
  );
  const began = performance.now();
  const server = spawn(join(app, "node_modules", ".bin", "workerd"), ["serve", join(dir, "config.capnp")], {
    cwd: dir,
    stdio: ["ignore", "inherit", "inherit"],
  });
  try {
    for (;;) {
      if (performance.now() - began > SETTLE_MS) throw new Error("workerd did not answer");
      if (server.exitCode !== null) throw new Error(`workerd exited ${server.exitCode}`);
      try {
        const result = await (await fetch(`http://127.0.0.1:${port}/`)).json();
        if (result.error) throw Object.assign(new Error(result.error), { fromWorker: true });
        return { ...result, outsideMs: performance.now() - began };
      } catch (error) {
        if (error.fromWorker) throw error;
        await new Promise((wait) => setTimeout(wait, 50));
      }
    }
  } finally {
    server.kill("SIGTERM");
  }
}

/** Vercel's edge-runtime (the edge-light condition), the .wasm compiled by the host as Next.js does. */
export async function runEdge({ app, texts }) {
  const dir = join(app, "edge");
  writeTexts(app, texts);
  writeFileSync(
    join(app, "edge-entry.js"),
    `import { run } from "./program.js";
import { texts } from "./texts-data.js";
addEventListener("fetch", (event) => {
  event.respondWith(run(texts).then((result) => Response.json(result), (error) => Response.json({ error: String(error && error.stack || error) })));
});
`,
  );
  await bundle({
    app,
    entry: "./edge-entry.js",
    outdir: dir,
    conditions: ["edge-light", "worker", "browser"],
    platform: "neutral",
    format: "iife",
    wasm: "global",
  });
  const { EdgeRuntime } = await import(join(tool("edge-runtime"), "dist", "index.js"));
  const began = performance.now();
  const module = await WebAssembly.compile(readFileSync(webWasm(app)));
  const runtime = new EdgeRuntime({
    initialCode: readFileSync(join(dir, "edge-entry.js"), "utf8"),
    extend: (context) => Object.assign(context, { __ctxwinWasm: module }),
  });
  const response = await runtime.dispatchFetch("http://127.0.0.1/");
  await response.waitUntil();
  const result = await response.json();
  if (result.error) throw new Error(result.error);
  return { ...result, outsideMs: performance.now() - began };
}
