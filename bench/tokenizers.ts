// Exact token counting, side by side in one run: ctxwin against tiktoken (WASM build of OpenAI's
// Rust core), gpt-tokenizer and js-tiktoken, on the shared corpus.
import * as gptCl100k from "gpt-tokenizer/encoding/cl100k_base";
import * as gptO200k from "gpt-tokenizer/encoding/o200k_base";
import { getEncoding } from "js-tiktoken";
import { get_encoding } from "tiktoken";
import { TiktokenCounter } from "ctxwin";
import { CachingCounter, type EncodingName } from "ctxwin/tokens";
import { consume } from "./harness.js";
import { CHUNK, chunks } from "./text/chunks.js";
import { read } from "./text/corpus.js";
import { compareCountManyAsync } from "./pool-scaling.js";

export { CHUNK, chunks, read };
export const BYTES_PER_CATEGORY = 1_000_000; // keeps the slowest peer's passes to seconds

export type Count = (text: string) => number;

/** `beforePass` runs outside the timed region (to start each pass with cold caches). */
export function mbPerSecond(count: Count, texts: string[], bytes: number, beforePass?: () => void): number {
  for (const t of texts.slice(0, 4)) consume(count(t)); // warm-up
  const times: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    beforePass?.();
    const start = process.hrtime.bigint();
    for (const t of texts) consume(count(t));
    times.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  times.sort((a, b) => a - b);
  return bytes / 1e6 / (times[1] as number);
}

function p50Micros(count: Count, texts: string[]): number {
  for (const t of texts.slice(0, 200)) consume(count(t));
  const samples = new Float64Array(texts.length);
  texts.forEach((t, i) => {
    const start = process.hrtime.bigint();
    consume(count(t));
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
  });
  samples.sort();
  return samples[Math.floor(samples.length / 2)] as number;
}

/** A long run of one character is one piece: quadratic merging shows here. */
function benchLongRun(): void {
  const tiktoken = get_encoding("cl100k_base");
  const ours = new TiktokenCounter({ encoding: "cl100k_base" });
  const time = (count: Count, text: string) => {
    const start = process.hrtime.bigint();
    consume(count(text));
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  console.log("\n### One piece: a run of one character (cl100k_base)\n");
  console.log("| length | ctxwin | tiktoken 1.0.22 (WASM) |");
  console.log("|---|---|---|");
  for (const n of [10_000, 50_000]) {
    const text = "a".repeat(n);
    console.log(
      `| ${n.toLocaleString("en-US")} chars | ${time((t) => ours.count(t), text).toFixed(1)} ms | ${time((t) => tiktoken.encode_ordinary(t).length, text).toFixed(1)} ms |`,
    );
  }
  const mega = "a".repeat(1_000_000);
  console.log(`| 1,000,000 chars | ${time((t) => ours.count(t), mega).toFixed(1)} ms | (not run: quadratic) |`);
  tiktoken.free();
}

/** CachingCounter: the same 20,000 chat.json strings counted twice. */
function benchCaching(chat: string[]): void {
  const timePass = (count: Count) => {
    const start = process.hrtime.bigint();
    for (const t of chat) consume(count(t));
    return Number(process.hrtime.bigint() - start) / 1e3 / chat.length;
  };
  const plain = new TiktokenCounter({ encoding: "cl100k_base" });
  const caching = new CachingCounter(new TiktokenCounter({ encoding: "cl100k_base" }), { maxEntries: 50_000 });
  TiktokenCounter.clearPieceCaches(); // each first pass counts unseen text
  const plainFirst = timePass((t) => plain.count(t));
  const plainSecond = timePass((t) => plain.count(t));
  TiktokenCounter.clearPieceCaches();
  const cachedFirst = timePass((t) => caching.count(t));
  const cachedSecond = timePass((t) => caching.count(t));
  console.log("\n### CachingCounter: the 20,000 chat.json strings counted twice (cl100k_base, mean per call)\n");
  console.log("| counter | first pass | second pass |");
  console.log("|---|---|---|");
  console.log(`| TiktokenCounter | ${plainFirst.toFixed(2)} µs | ${plainSecond.toFixed(2)} µs |`);
  console.log(
    `| CachingCounter(TiktokenCounter) | ${cachedFirst.toFixed(2)} µs | ${cachedSecond.toFixed(2)} µs (${(plainSecond / cachedSecond).toFixed(0)}x faster) |`,
  );
}

export async function benchTokenizers(): Promise<void> {
  benchLongRun();
  benchCaching(JSON.parse(read("chat.json.xz")) as string[]);
  const corpus = ["prose", "code", "cjk", "euro"].map((c) => {
    const text = read(`${c}.txt.xz`);
    // About BYTES_PER_CATEGORY bytes of UTF-8 from the start of each category.
    let chars = 0;
    for (let bytes = 0; chars < text.length && bytes < BYTES_PER_CATEGORY; chars++) bytes += Buffer.byteLength(text[chars] as string);
    return text.slice(0, chars);
  });
  const texts = corpus.flatMap((t) => chunks(t, CHUNK));
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const chat = JSON.parse(read("chat.json.xz")) as string[];
  const short = chat.filter((s) => s.length <= 200);
  const chatSample = chat.filter((_, i) => i % 10 === 0); // 2,000 strings for the slow peers

  for (const encoding of ["cl100k_base", "o200k_base"] as EncodingName[]) {
    const ours = new TiktokenCounter({ encoding });
    const tiktoken = get_encoding(encoding);
    const gpt = encoding === "cl100k_base" ? gptCl100k : gptO200k;
    const js = getEncoding(encoding);
    // Unseen text: each pass starts with empty caches (ctxwin's cleared; gpt-tokenizer's merge cache off).
    const peers: Array<{ name: string; count: Count; beforePass?: () => void }> = [
      {
        name: "ctxwin, unseen text (piece caches cleared each pass)",
        count: (t) => ours.count(t),
        beforePass: () => TiktokenCounter.clearPieceCaches(),
      },
      { name: "ctxwin, piece cache warm", count: (t) => ours.count(t) },
      { name: "tiktoken 1.0.22 (WASM)", count: (t) => tiktoken.encode_ordinary(t).length },
      { name: "gpt-tokenizer 4.0.0, merge cache off", count: (t) => gpt.countTokens(t), beforePass: () => gpt.setMergeCacheSize(0) },
      { name: "gpt-tokenizer 4.0.0, merge cache warm", count: (t) => gpt.countTokens(t), beforePass: () => gpt.setMergeCacheSize(100_000) },
      { name: "js-tiktoken 1.0.21", count: (t) => js.encode(t).length },
    ];
    // Every library must agree before any of them is timed.
    for (const t of texts.slice(0, 40)) {
      const counts = peers.map((peer) => peer.count(t));
      if (new Set(counts).size !== 1) throw new Error(`${encoding}: counts disagree: ${counts.join(", ")}`);
    }
    console.log(
      `\n### Exact counting, ${encoding}: ${(bytes / 1e6).toFixed(1)} MB of the corpus (prose, code, cjk, euro) in 64 KiB chunks; chat.json per call\n`,
    );
    console.log("| library | MB/s | ctxwin (unseen) is | p50 per call, chat.json | p50, strings <= 200 chars |");
    console.log("|---|---|---|---|---|");
    const rows = peers.map((peer) => {
      const mine = peer.name.startsWith("ctxwin");
      const mbs = mbPerSecond(peer.count, texts, bytes, peer.beforePass);
      peer.beforePass?.();
      return {
        name: peer.name,
        mbs,
        p50: p50Micros(peer.count, mine ? chat : chatSample),
        p50Short: p50Micros(peer.count, mine ? short : short.slice(0, 1000)),
      };
    });
    const base = rows[0] as (typeof rows)[number];
    for (const r of rows) {
      const ratio = r.name.startsWith("ctxwin") ? "-" : `${(base.mbs / r.mbs).toFixed(1)}x faster`;
      console.log(`| ${r.name} | ${r.mbs.toFixed(1)} | ${ratio} | ${r.p50.toFixed(2)} µs | ${r.p50Short.toFixed(2)} µs |`);
    }
    gpt.setMergeCacheSize(100_000);

    // Where the mixed figure comes from: each category alone, unseen text, against tiktoken.
    console.log(`\nPer category, ${encoding} (1 MB each, unseen text):\n`);
    console.log("| category | ctxwin MB/s | tiktoken MB/s | ctxwin is |");
    console.log("|---|---|---|---|");
    ["prose", "code", "cjk", "euro"].forEach((category, i) => {
      const parts = chunks(corpus[i] as string, CHUNK);
      const size = parts.reduce((n, t) => n + Buffer.byteLength(t), 0);
      const mine = mbPerSecond(
        (t) => ours.count(t),
        parts,
        size,
        () => TiktokenCounter.clearPieceCaches(),
      );
      const theirs = mbPerSecond((t) => tiktoken.encode_ordinary(t).length, parts, size);
      console.log(`| ${category} | ${mine.toFixed(1)} | ${theirs.toFixed(1)} | ${(mine / theirs).toFixed(1)}x faster |`);
    });
    tiktoken.free();

    // One synchronous batch vs the same batch through countManyAsync, which splits a batch of a
    // megabyte or more over the libuv pool (up to the number of cores); both on unseen text.
    console.log();
    await compareCountManyAsync(encoding, ours, texts, () => TiktokenCounter.clearPieceCaches(), 3);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTokenizers();
