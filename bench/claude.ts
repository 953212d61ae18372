// Claude token counts, side by side in one run: ctxwin's ClaudeCounter (exact, the core) against
// ai-tokenizer's Claude count (its `claude` encoding: an old Claude vocabulary, x1.1 in its SDK) on
// the shared corpus, in 64 KiB chunks, one thread. Prints MB/s and the ratio.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer } from "ai-tokenizer";
import * as claudeEncoding from "ai-tokenizer/encoding/claude";
import { ClaudeCounter } from "ctxwin";
import { consume } from "./harness.js";
import { CHUNK, chunks } from "./text/chunks.js";

// ../shared/corpus beside the repository (a worktree one level deeper finds it one further up).
const CORPUS = [
  join(import.meta.dirname, "..", "..", "shared", "corpus"),
  join(import.meta.dirname, "..", "..", "..", "shared", "corpus"),
].find((dir) => existsSync(join(dir, "prose.txt.xz")));
const BYTES_PER_CATEGORY = 1_000_000;
const CATEGORIES = ["prose", "code", "cjk", "euro"];

function read(name: string): string {
  if (!CORPUS) throw new Error("bench/claude: the shared corpus (../shared/corpus) is not there");
  return execFileSync("xz", ["-dc", join(CORPUS, name)], { maxBuffer: 1 << 30 }).toString("utf8");
}

/** The first `bytes` of `text` (from its end when `fromEnd`), on a character boundary. */
function firstBytes(text: string, bytes: number, fromEnd = false): string {
  let chars = 0;
  const at = (i: number) => text[fromEnd ? text.length - 1 - i : i] as string;
  for (let n = 0; chars < text.length && n < bytes; chars++) n += Buffer.byteLength(at(chars));
  return fromEnd ? text.slice(text.length - chars) : text.slice(0, chars);
}

/**
 * Prose of dictionary words (the system's word list, `wamerican` on Debian), where there is one:
 * sentences of 5 to 22 words drawn uniformly from 100,000, so most words are rare and a third or
 * more of the segments miss the counter's cache, as an unseen document's names and terms do. The
 * code was not tuned on it (issue 40 measured 19.1 MB/s on such text against a budget of 30).
 */
function dictionaryProse(bytes: number): string | undefined {
  const list = ["/usr/share/dict/words", "/usr/share/dict/american-english"].find((path) => existsSync(path));
  if (!list) return undefined;
  const words = readFileSync(list, "utf8")
    .split("\n")
    .filter((w) => w.length > 0);
  let seed = 40;
  // mulberry32: the same text on every run.
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = () => words[Math.floor(random() * words.length)] as string;
  const out: string[] = [];
  let size = 0;
  while (size < bytes) {
    const sentences: string[] = [];
    for (let s = 3 + Math.floor(random() * 6); s > 0; s--) {
      const n = 5 + Math.floor(random() * 18);
      const sentence = Array.from({ length: n }, (_, i) => pick() + (i > 0 && i < n - 1 && random() < 0.08 ? "," : "")).join(" ");
      sentences.push(sentence.charAt(0).toUpperCase() + sentence.slice(1) + (".....?!;"[Math.floor(random() * 8)] as string));
    }
    const paragraph = `${sentences.join(" ")}\n\n`;
    out.push(paragraph);
    size += Buffer.byteLength(paragraph);
  }
  return firstBytes(out.join(""), bytes);
}

type Count = (text: string) => number;

/**
 * MB/s of each counter over `texts`: five passes, the counters interleaved pass by pass so that
 * they see the same machine, each timed by the CPU time it used (the process's user + system time,
 * which other processes on a shared machine do not inflate the way they inflate wall time); the
 * median pass counts.
 */
function mbPerSecond(counts: Count[], texts: string[], bytes: number, beforePass: Array<(() => void) | undefined> = []): number[] {
  for (const count of counts) for (const t of texts.slice(0, 4)) consume(count(t));
  const times: number[][] = counts.map(() => []);
  for (let pass = 0; pass < 5; pass++) {
    counts.forEach((count, i) => {
      beforePass[i]?.();
      const start = process.cpuUsage();
      for (const t of texts) consume(count(t));
      const used = process.cpuUsage(start);
      (times[i] as number[]).push((used.user + used.system) / 1e6);
    });
  }
  return times.map((t) => bytes / 1e6 / (t.sort((a, b) => a - b)[2] as number));
}

export async function benchClaude(): Promise<void> {
  // The first counter of a family loads its vocabulary: timed here, once per process.
  const loads: string[] = [];
  const counters = (["v3", "v4.7", "v5"] as const).map((family) => {
    const start = process.hrtime.bigint();
    const counter = new ClaudeCounter({ family });
    loads.push(
      `${family} ${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(1)} ms (${(counter.memoryBytes / 1e6).toFixed(1)} MB of index)`,
    );
    return counter;
  });
  const start = process.hrtime.bigint();
  const peer = new Tokenizer(claudeEncoding);
  const peerLoad = Number(process.hrtime.bigint() - start) / 1e6;

  const whole = CATEGORIES.map((c) => read(`${c}.txt.xz`));
  const corpus = whole.map((text) => firstBytes(text, BYTES_PER_CATEGORY));
  const texts = corpus.flatMap((t) => chunks(t, CHUNK));
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

  console.log(
    `\n### Claude counts: ${(bytes / 1e6).toFixed(1)} MB of the corpus (prose, code, cjk, euro) in 64 KiB chunks, one thread (MB/s by CPU time)\n`,
  );
  console.log(
    `Load: ClaudeCounter ${loads.join(", ")}; ai-tokenizer claude encoding ${peerLoad.toFixed(1)} ms (its import not included)\n`,
  );
  console.log("| counter | MB/s | ClaudeCounter v3 (unseen) is |");
  console.log("|---|---|---|");
  const [v3, v47, v5] = counters as [ClaudeCounter, ClaudeCounter, ClaudeCounter];
  // Unseen text: each pass starts with the counter's segment cache empty (hits come only from
  // words repeated within the pass); the warm row counts text it has seen.
  const rows: Array<{ name: string; count: Count; beforePass?: () => void }> = [
    { name: "ctxwin ClaudeCounter v3, unseen text", count: (t) => v3.count(t), beforePass: () => v3.clearCache() },
    { name: "ctxwin ClaudeCounter v4.7, unseen text", count: (t) => v47.count(t), beforePass: () => v47.clearCache() },
    { name: "ctxwin ClaudeCounter v5, unseen text", count: (t) => v5.count(t), beforePass: () => v5.clearCache() },
    { name: "ctxwin ClaudeCounter v3, segment cache warm", count: (t) => v3.count(t) },
    // count(t) is encode(t).length, which throws on special-token text (`<EOT>` is in the corpus):
    // encode with no special tokens counts it as text, the same work.
    { name: "ai-tokenizer 1.0.6, claude encoding", count: (t) => peer.encode(t, [], []).length },
  ];
  const speeds = mbPerSecond(
    rows.map((row) => row.count),
    texts,
    bytes,
    rows.map((row) => row.beforePass),
  );
  const results = rows.map((row, i) => ({ ...row, mbs: speeds[i] as number }));
  const base = results[0] as (typeof results)[number];
  for (const r of results) console.log(`| ${r.name} | ${r.mbs.toFixed(1)} | ${r === base ? "-" : `${(base.mbs / r.mbs).toFixed(2)}x`} |`);

  console.log("\nPer category (1 MB each, unseen text; held out: text the code was not tuned on):\n");
  console.log("| category | ClaudeCounter v3 MB/s | v4.7 MB/s | ai-tokenizer MB/s | v3 / ai-tokenizer |");
  console.log("|---|---|---|---|---|");
  const categories: Array<[string, string]> = CATEGORIES.map((c, i) => [c, corpus[i] as string]);
  CATEGORIES.forEach((c, i) =>
    categories.push([`${c}, held out (the file's last MB)`, firstBytes(whole[i] as string, BYTES_PER_CATEGORY, true)]),
  );
  const words = dictionaryProse(BYTES_PER_CATEGORY);
  if (words) categories.push(["dictionary words, held out (generated)", words]);
  else console.log("(no word list at /usr/share/dict: the dictionary-words row is left out)\n");
  for (const [category, text] of categories) {
    const parts = chunks(text, CHUNK);
    const size = parts.reduce((n, t) => n + Buffer.byteLength(t), 0);
    const [a = 0, b = 0, theirs = 0] = mbPerSecond(
      [(t) => v3.count(t), (t) => v47.count(t), (t) => peer.encode(t, [], []).length],
      parts,
      size,
      [() => v3.clearCache(), () => v47.clearCache()],
    );
    console.log(`| ${category} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${theirs.toFixed(1)} | ${(a / theirs).toFixed(2)}x |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchClaude();
