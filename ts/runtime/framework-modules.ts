// Frameworks' modules that the core entry uses when the caller's own objects come from them (a
// history of LangChain messages gets its inserted messages as LangChain messages), loaded only
// where a synchronous loader exists: Node's entries install one (node-loader.ts); the web entry
// has none, and there the caller passes what to build with (the manager's `createMessage`).

let loader: ((specifier: string) => unknown) | undefined;
const loaded = new Map<string, unknown>();

/** Installs the loader (Node's entries, once). */
export function setFrameworkLoader(load: (specifier: string) => unknown): void {
  loader = load;
}

/** The module `specifier` when a loader is installed and it loads; undefined otherwise (never throws). */
export function optionalFramework<T>(specifier: string): T | undefined {
  if (!loaded.has(specifier)) {
    let module: unknown;
    try {
      module = loader?.(specifier);
    } catch {
      module = undefined;
    }
    loaded.set(specifier, module);
  }
  return loaded.get(specifier) as T | undefined;
}
