// Memory: what a MessageContextManager costs per message beyond the caller's own message objects,
// and what each loaded encoding costs in resident memory (issue 17 item 5; budget < 200 bytes
// per message). Needs --expose-gc (npm run bench passes it).
import { execFileSync } from "node:child_process";
import { MessageContextManager, TiktokenCounter, type MessageLike } from "ctxwin";
import { ENCODING_NAMES } from "ctxwin/tokens";

const gc = (globalThis as { gc?: () => void }).gc;

function settledHeap(): number {
  for (let i = 0; i < 4; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

/** 20,000 messages of about 1 KB, every one a distinct string (nothing shared to flatter the figure). */
function messages(n: number): MessageLike[] {
  const out: MessageLike[] = [];
  for (let i = 0; i < n; i++) {
    const words: string[] = [];
    for (let length = 0; length < 1000; ) {
      const word = `w${(i * 7919 + length * 31) % 100_003}`;
      words.push(word);
      length += word.length + 1;
    }
    out.push({ role: i % 2 === 0 ? "user" : "assistant", content: words.join(" ") });
  }
  return out;
}

/**
 * With `counter`, or with the default one (getCounter: a CachingCounter, whose cache of counted
 * texts is then part of what the manager keeps; its entries hold the caller's strings by reference).
 */
function managerBytesPerMessage(n: number, counter?: TiktokenCounter): { perMessage: number; heapBefore: number; heapAfter: number } {
  const history = messages(n);
  const manager = new MessageContextManager({
    model: "gpt-4o",
    ...(counter ? { counter } : {}),
    limits: { maxTokens: 100_000_000 },
    compaction: { autoTruncate: false },
  });
  manager.addMessage({ role: "user", content: "warm-up" });
  manager.clear();
  const heapBefore = settledHeap();
  for (const message of history) manager.addMessage(message);
  const heapAfter = settledHeap();
  if (manager.getStats().messageCount !== n) throw new Error("the manager dropped messages");
  // Both alive until here: the difference is the manager's own arrays and bookkeeping.
  return { perMessage: (heapAfter - heapBefore) / n, heapBefore, heapAfter };
}

/** Resident memory an encoding adds when first loaded, each in a fresh process (encodings are never unloaded). */
function encodingResidentCost(encoding: string): { load: number; warm: number } {
  const script = `
    import { TiktokenCounter } from "ctxwin"; // loads the addon, no encoding yet
    const rss = () => { for (let i = 0; i < 3; i++) globalThis.gc(); return process.memoryUsage().rss; };
    const words = [];
    for (let i = 0, length = 0; length < 1_000_000; i++) { const w = "word" + (i * 7919 % 100003); words.push(w); length += w.length + 1; }
    const text = words.join(" ");
    const before = rss();
    const counter = new TiktokenCounter({ encoding: ${JSON.stringify(encoding)} });
    counter.count("hello");
    const loaded = rss();
    counter.count(text);
    const warm = rss();
    console.log(JSON.stringify({ load: loaded - before, warm: warm - loaded }));
  `;
  const output = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(output.trim().split("\n").at(-1) as string) as { load: number; warm: number };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function benchMemory(): void {
  console.log("\n### Memory\n");
  if (!gc) {
    console.log("(skipped: run with node --expose-gc, as npm run bench does)");
    return;
  }
  const n = 20_000;
  const exact = managerBytesPerMessage(n, new TiktokenCounter({ encoding: "o200k_base" })).perMessage;
  const cached = managerBytesPerMessage(n).perMessage;
  console.log("| what | figure | budget |");
  console.log("|---|---|---|");
  console.log(
    `| MessageContextManager, bytes per message beyond the caller's objects (${n.toLocaleString("en-US")} messages of 1 KB), counter: TiktokenCounter | ${exact.toFixed(0)} B | < 200 B |`,
  );
  console.log(
    `| the same with the default counter (getCounter: a CachingCounter, its cache included) | ${cached.toFixed(0)} B | < 200 B |`,
  );
  for (const encoding of ENCODING_NAMES) {
    const cost = encodingResidentCost(encoding);
    console.log(
      `| ${encoding}: resident memory when loaded / piece cache after counting 1 MB of text | ${mb(cost.load)} / +${mb(cost.warm)} | |`,
    );
  }
}
