// `ctxwin/report` on Node (package.json "exports": import, require): the core loaded first, as the
// root does, so that this subpath works imported alone; then the list, index.ts. The web
// conditions get index.ts alone: there `await init()` from the root loads the core.
import "../runtime/node-loader.js";
export * from "./index.js";
