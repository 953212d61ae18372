// The WebAssembly backend beside tiktoken's WASM build (budget: >= 3x tiktoken in MB/s), in the
// same run as the native figures. The backend is chosen when the package is imported, so the
// WebAssembly side runs in a child process (CTXWIN_BACKEND=wasm) that times ctxwin and tiktoken
// on the same texts, side by side; this process adds the native addon's figure on those texts.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { get_encoding } from "tiktoken";
import { TiktokenCounter, backend } from "ctxwin";
import type { EncodingName } from "ctxwin/tokens";
import { BYTES_PER_CATEGORY, CHUNK, chunks, mbPerSecond, read } from "./tokenizers.js";

const ENCODINGS: EncodingName[] = ["cl100k_base", "o200k_base"];
const CATEGORIES = ["prose", "code", "cjk", "euro"];

interface Figures {
  backend: string;
  rows: Array<{ encoding: EncodingName; category: string; ctxwin: number; tiktoken: number }>;
}

function corpus(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const category of CATEGORIES) {
    const text = read(`${category}.txt.xz`);
    let chars = 0;
    for (let bytes = 0; chars < text.length && bytes < BYTES_PER_CATEGORY; chars++) bytes += Buffer.byteLength(text[chars] as string);
    out.set(category, chunks(text.slice(0, chars), CHUNK));
  }
  return out;
}

const size = (texts: string[]) => texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

/** MB/s of this process's backend and of tiktoken, per encoding and category, on unseen text. */
function measure(withTiktoken: boolean): Figures {
  const texts = corpus();
  const rows: Figures["rows"] = [];
  for (const encoding of ENCODINGS) {
    const ours = new TiktokenCounter({ encoding });
    const tiktoken = get_encoding(encoding);
    for (const category of [...CATEGORIES, "all"]) {
      const parts = category === "all" ? CATEGORIES.flatMap((c) => texts.get(c) as string[]) : (texts.get(category) as string[]);
      for (const t of parts.slice(0, 8)) {
        if (ours.count(t) !== tiktoken.encode_ordinary(t).length) throw new Error(`${backend}: ${encoding} disagrees with tiktoken`);
      }
      const bytes = size(parts);
      rows.push({
        encoding,
        category,
        ctxwin: mbPerSecond(
          (t) => ours.count(t),
          parts,
          bytes,
          () => TiktokenCounter.clearPieceCaches(),
        ),
        tiktoken: withTiktoken ? mbPerSecond((t) => tiktoken.encode_ordinary(t).length, parts, bytes) : NaN,
      });
    }
    tiktoken.free();
  }
  return { backend, rows };
}

export function benchWasm(): void {
  const child = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url)], {
    encoding: "utf8",
    env: { ...process.env, CTXWIN_BACKEND: "wasm" },
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 24,
  });
  const wasm = JSON.parse(child.trim().split("\n").at(-1) as string) as Figures;
  if (wasm.backend !== "wasm") throw new Error(`the child ran on ${wasm.backend}`);
  const native = backend === "native" ? measure(false) : undefined;
  console.log(
    "\n### The WebAssembly backend beside tiktoken 1.0.22 (WASM), unseen text (piece caches cleared each pass), 1 MB per category in 64 KiB chunks\n",
  );
  console.log("| encoding | category | ctxwin wasm MB/s | tiktoken (WASM) MB/s | ctxwin wasm is | ctxwin native MB/s |");
  console.log("|---|---|---|---|---|---|");
  for (const row of wasm.rows) {
    const nativeRow = native?.rows.find((r) => r.encoding === row.encoding && r.category === row.category);
    console.log(
      `| ${row.encoding} | ${row.category} | ${row.ctxwin.toFixed(1)} | ${row.tiktoken.toFixed(1)} | ${(row.ctxwin / row.tiktoken).toFixed(1)}x tiktoken | ${nativeRow ? nativeRow.ctxwin.toFixed(1) : "-"} |`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(measure(true)));
}
