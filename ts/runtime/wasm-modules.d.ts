// The files of the WebAssembly build for the web (prebuilds/wasm-web, made by
// scripts/build-wasm.mjs) as the web loader and entries import them.

/** Emscripten's ES module factory: resolves with the instantiated core once it is ready. */
declare module "*/wasm-web/ctxwin.mjs" {
  const createCtxwinCore: (options: Record<string, unknown>) => Promise<unknown>;
  export default createCtxwinCore;
}

/** The .wasm itself, as Cloudflare's workerd imports it (wrangler's CompiledWasm rule). */
declare module "*/wasm-web/ctxwin.wasm" {
  const module: object;
  export default module;
}

/** The .wasm itself, as Vercel's edge runtime imports it (the `?module` suffix of Next.js). */
declare module "*/wasm-web/ctxwin.wasm?module" {
  const module: object;
  export default module;
}

/**
 * tiny-inflate (plain CommonJS, no types of its own): inflates raw DEFLATE `source` into `dest`,
 * returning the part of `dest` written; throws on a malformed block.
 */
declare module "tiny-inflate" {
  const inflate: (source: ArrayLike<number>, dest: Uint8Array) => Uint8Array;
  export default inflate;
}
