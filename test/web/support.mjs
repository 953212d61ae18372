// What the runtime tests share: the packed package installed into a scratch project, bundling
// with esbuild for a target's export conditions, a static file server for the browser pages.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, "..", "..");
/** Tools the tests drive, from the repository's devDependencies. */
export const tool = (name) => join(repo, "node_modules", name);

// workerd (Cloudflare's runtime; its binary is a 150 MB npm package) is installed into the
// scratch project only, not into every checkout's node_modules.
export const WORKERD_VERSION = "1.20261117.1";

/** Packs the repository (npm pack runs scripts/prepack.mjs) unless a tarball is given. */
export function packTarball(work, given) {
  if (given) return resolve(given);
  const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return join(work, out.trim().split("\n").at(-1));
}

/** A scratch project with the tarball (packed here unless given) installed, as a user installs it, plus workerd. */
export function scratchProject(given) {
  const work = mkdtempSync(join(tmpdir(), "ctxwin-web-"));
  const tarball = packTarball(work, given);
  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "ctxwin-web-test", private: true, type: "module" }));
  execFileSync(
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", tarball, `workerd@${WORKERD_VERSION}`],
    { cwd: app, stdio: "inherit" },
  );
  // workerd's binary comes from its platform package's own install step, which --ignore-scripts skipped.
  execFileSync("node", [join(app, "node_modules", "workerd", "install.js")], {
    cwd: join(app, "node_modules", "workerd"),
    stdio: "inherit",
  });
  for (const file of ["program.js", "texts.mjs"]) copyFileSync(join(here, file), join(app, file));
  return { work, app };
}

/** The installed package's WebAssembly core for the web. */
export function webWasm(app) {
  return join(app, "node_modules", "ctxwin", "prebuilds", "wasm-web", "ctxwin.wasm");
}

/** Writes texts-data.js (the texts as a module) into `dir`. */
export function writeTexts(dir, texts) {
  writeFileSync(join(dir, "texts-data.js"), `export const texts = ${JSON.stringify(texts)};\n`);
}

/**
 * Bundles `entry` (in the scratch project) with esbuild for one runtime's export conditions. The
 * core's .wasm stays a file of its own where the runtime imports it as a module (workerd: an
 * external "./ctxwin.wasm" beside the bundle, the way wrangler uploads it; the edge runtime: the
 * module its host compiled, as Next.js hands one to an edge function).
 */
export async function bundle({ app, entry, outdir, conditions, platform = "browser", format = "esm", minify = false, wasm = "file" }) {
  const esbuild = await import(join(tool("esbuild"), "lib", "main.js"));
  // wasm "loader": as a user's esbuild does it, the .wasm imported by its path with
  // --loader:.wasm=file (the file copied beside the bundle, the import its URL).
  const plugins =
    wasm === "loader"
      ? []
      : [
          {
            name: "ctxwin-wasm",
            setup(build) {
              build.onResolve({ filter: /\.wasm(\?module)?$/ }, (args) => {
                if (wasm === "global") return { path: "ctxwin-wasm", namespace: "wasm-global" };
                mkdirSync(outdir, { recursive: true });
                copyFileSync(resolve(args.resolveDir, args.path.replace(/\?module$/, "")), join(outdir, "ctxwin.wasm"));
                return { path: "./ctxwin.wasm", external: true };
              });
              build.onLoad({ filter: /.*/, namespace: "wasm-global" }, () => ({
                contents: "export default globalThis.__ctxwinWasm;",
                loader: "js",
              }));
            },
          },
        ];
  const result = await esbuild.build({
    absWorkingDir: app,
    entryPoints: [entry],
    outdir,
    bundle: true,
    format,
    platform,
    conditions,
    minify,
    mainFields: ["browser", "module", "main"],
    logLevel: "error",
    metafile: true,
    plugins,
    ...(wasm === "loader" ? { loader: { ".wasm": "file" } } : {}),
  });
  return result.metafile;
}

const TYPES = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
};

/** Serves `dir` on 127.0.0.1 until close(). */
export async function serve(dir) {
  const server = createServer((request, response) => {
    const path = join(dir, decodeURIComponent(new URL(request.url, "http://x").pathname));
    try {
      const body = readFileSync(path.endsWith("/") ? join(path, "index.html") : path);
      response.writeHead(200, { "content-type": TYPES[extname(path)] ?? (path.endsWith("/") ? "text/html" : "application/octet-stream") });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  // close() waits for every connection to end, and a browser keeps its sockets to the page's
  // server open after the tab: they are ended here, or a check can hang in close().
  const close = () =>
    new Promise((done) => {
      server.close(done);
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${server.address().port}/`, close };
}

export function filesOf(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}
