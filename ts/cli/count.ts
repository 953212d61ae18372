// `ctxwin count`: exact token counts of files (or standard input), per file and in total.
//
// Large inputs are counted in chunks on the libuv pool so that a progress bar can move. The
// chunks are cut only where every OpenAI encoding (r50k, p50k, cl100k, o200k) ends a pre-tokenizer
// piece, so the sum of the chunks' counts is the count of the whole text: after a "\n" that a
// letter, digit, punctuation mark or symbol other than "/" follows. No pattern of those encodings
// carries a piece across that point (a letter run may take one leading non-newline character,
// never "\n"; runs of whitespace and newlines stop before a non-space), except o200k_base's run of
// punctuation, which takes the newlines and slashes after it ("}\n\n//" is one piece): hence no
// cut before "/". Counters of other tokenizers count each file whole.
import { stat } from "node:fs/promises";
import { encodingForModel } from "../tokens/tokenizer-choice.js";
import { getCounter } from "../tokens/get-counter.js";
import { TiktokenCounter } from "../tokens/tiktoken-counter.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { readText } from "./input.js";
import { num, paletteFor, type Io } from "./terminal.js";
import { COMMANDS, UsageError, parse } from "./usage.js";

/** Inputs above this many bytes get a progress bar (when stderr is a terminal). */
export const PROGRESS_THRESHOLD = 4 << 20;
/** About this many UTF-16 units per chunk. */
const CHUNK = 1 << 20;
const SAFE_AFTER_NEWLINE = /[\p{L}\p{N}\p{P}\p{S}]/u;
const JOINS_PUNCTUATION = "/"; // o200k_base: [^\s\p{L}\p{N}]+[\r\n/]*

/**
 * `text` cut into pieces of about `size` characters, each cut right after a "\n" that a letter,
 * digit, punctuation mark or symbol other than "/" follows; a text without such a place stays whole.
 */
export function chunkAtPieceBoundaries(text: string, size = CHUNK): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (text.length - start > size) {
    let cut = -1;
    for (let nl = text.indexOf("\n", start + size); nl >= 0 && nl + 1 < text.length; nl = text.indexOf("\n", nl + 1)) {
      const next = text[nl + 1] as string;
      if (next !== JOINS_PUNCTUATION && SAFE_AFTER_NEWLINE.test(next)) {
        cut = nl + 1;
        break;
      }
    }
    if (cut < 0) break;
    chunks.push(text.slice(start, cut));
    start = cut;
  }
  chunks.push(text.slice(start));
  return chunks;
}

interface FileCount {
  file: string;
  bytes: number;
  characters: number;
  tokens: number;
}

/** The counter for exact counts of long texts: the uncached inner counter where there is one. */
function rawCounter(model: string): TokenCounter {
  const counter = getCounter(model);
  return counter.inner;
}

async function countText(counter: TokenCounter, text: string, onProgress: (characters: number) => void): Promise<number> {
  if (!(counter instanceof TiktokenCounter) || !counter.exact) {
    const tokens = counter.count(text);
    onProgress(text.length);
    return tokens;
  }
  let tokens = 0;
  // A few chunks per call: the pool counts them in parallel, and the bar moves between calls.
  const chunks = chunkAtPieceBoundaries(text);
  for (let i = 0; i < chunks.length; i += 4) {
    const batch = chunks.slice(i, i + 4);
    const counts = await counter.countManyAsync(batch);
    for (let k = 0; k < batch.length; k++) {
      tokens += counts[k] as number;
      onProgress((batch[k] as string).length);
    }
  }
  return tokens;
}

export async function countCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse("count", args, {
    model: { type: "string", short: "m", default: "gpt-4o" },
    json: { type: "boolean", default: false },
  });
  if (values.help) {
    io.stdout.write(`${COMMANDS.count}\n`);
    return 0;
  }
  const files = positionals.length > 0 ? positionals : io.stdin.isTTY ? [] : ["-"];
  if (files.length === 0) throw new UsageError("no FILE given (and standard input is a terminal)", "count");
  if (files.filter((f) => f === "-").length > 1) throw new UsageError('"-" (standard input) may be given once', "count");
  const model = values.model as string;
  const { encoding, exact } = encodingForModel(model);
  const counter = rawCounter(model);

  const sizes = await Promise.all(files.map(async (f) => (f === "-" ? 0 : await stat(f).then((s) => s.size, () => 0))));
  const totalBytes = sizes.reduce((a, b) => a + b, 0);
  const bar = totalBytes > PROGRESS_THRESHOLD && io.stderr.isTTY === true ? await progressBar(io, totalBytes) : undefined;

  const results: FileCount[] = [];
  let done = 0;
  try {
    for (const file of files) {
      const text = await readText(file, io);
      const bytes = Buffer.byteLength(text, "utf8");
      // The bar counts bytes; characters are converted at the file's own ratio.
      const ratio = text.length > 0 ? bytes / text.length : 0;
      const tokens = await countText(counter, text, (characters) => {
        done += characters * ratio;
        bar?.update(Math.min(totalBytes, Math.round(done)));
      });
      results.push({ file: file === "-" ? "(stdin)" : file, bytes, characters: text.length, tokens });
    }
  } finally {
    bar?.stop();
  }
  const total = results.reduce((a, r) => a + r.tokens, 0);
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ model, encoding, exact, files: results, total }, null, 2)}\n`);
    return 0;
  }
  const colors = paletteFor(io.stdout, io.env);
  const width = Math.max(...results.map((r) => num(r.tokens).length), num(total).length);
  for (const r of results) io.stdout.write(`${num(r.tokens).padStart(width)}  ${r.file}\n`);
  if (results.length > 1) io.stdout.write(`${colors.bold(num(total).padStart(width))}  total\n`);
  const note = exact ? `${encoding}, exact` : `${encoding}: an approximation for ${model}, whose own tokenizer is not available`;
  io.stderr.write(colors.dim(`${model} (${note})\n`));
  return 0;
}

/** cli-progress, loaded only when a bar is shown. */
async function progressBar(io: Io, totalBytes: number) {
  const { SingleBar, Presets } = (await import("cli-progress")).default;
  const bar = new SingleBar(
    {
      stream: io.stderr,
      format: "counting {bar} {percentage}% | {value}/{total} MB | ETA {eta}s",
      formatValue: (value, _options, type) => (type === "value" || type === "total" ? (value / (1 << 20)).toFixed(1) : String(value)),
      hideCursor: true,
      clearOnComplete: true,
    },
    Presets.shades_classic,
  );
  bar.start(totalBytes, 0);
  return bar;
}
