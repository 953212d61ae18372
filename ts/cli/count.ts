// `ctxwin count`: exact token counts of files (or standard input), per file and in total.
//
// Inputs are read as a stream and counted in chunks on the libuv pool, so that a file of any size
// is counted (one string holds at most about 512 MB) and a progress bar can move. The
// chunks are cut only where every OpenAI encoding (r50k, p50k, cl100k, o200k) ends a pre-tokenizer
// piece, so the sum of the chunks' counts is the count of the whole text: after a "\n" that a
// letter, digit, punctuation mark or symbol other than "/" follows. No pattern of those encodings
// carries a piece across that point (a letter run may take one leading non-newline character,
// never "\n"; runs of whitespace and newlines stop before a non-space), except o200k_base's run of
// punctuation, which takes the newlines and slashes after it ("}\n\n//" is one piece): hence no
// cut before "/". Counters of other tokenizers count each input whole: one that is larger than a
// string holds is refused with a message saying so.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { encodingForModel } from "../tokens/tokenizer-choice.js";
import { getCounter } from "../tokens/get-counter.js";
import { TiktokenCounter } from "../tokens/tiktoken-counter.js";
import type { BatchTokenCounter, TokenCounter } from "../tokens/token-counter.js";
import { InputError } from "./input.js";
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

/** The last place in `text` where chunkAtPieceBoundaries may cut (0: none). */
export function lastPieceBoundary(text: string): number {
  for (let nl = text.lastIndexOf("\n", text.length - 2); nl >= 0; nl = text.lastIndexOf("\n", nl - 1)) {
    const next = text[nl + 1] as string;
    if (next !== JOINS_PUNCTUATION && SAFE_AFTER_NEWLINE.test(next)) return nl + 1;
    if (nl === 0) break;
  }
  return 0;
}

/** What the text held between cuts may reach: V8's longest string (2^29 - 24 UTF-16 units) less room for a decoded chunk. */
const MAX_HELD = 2 ** 29 - 2 ** 21;

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

/** Counts `text` (a whole input, or a part of one that ends at a piece boundary) in chunks on the pool. */
async function countChunks(counter: TiktokenCounter, text: string): Promise<number> {
  let tokens = 0;
  // A few chunks per call: the pool counts them in parallel.
  const chunks = chunkAtPieceBoundaries(text);
  for (let i = 0; i < chunks.length; i += 4) {
    const counts = await counter.countManyAsync(chunks.slice(i, i + 4));
    for (const n of counts) tokens += n;
  }
  return tokens;
}

/**
 * Counts a stream of bytes (UTF-8) with `counter`: an exact OpenAI encoding part by part, cut at
 * piece boundaries as they come (memory: a few chunks, whatever the size), any other counter whole
 * (a text larger than a string holds is an InputError). `chunkChars`: how much is gathered before a cut.
 */
export async function countStream(
  counter: TokenCounter,
  source: AsyncIterable<Buffer | string>,
  where: string,
  onProgress: (bytes: number) => void,
  chunkChars = 4 * CHUNK,
): Promise<{ tokens: number; bytes: number; characters: number }> {
  const decoder = new StringDecoder("utf8");
  const streamed = counter instanceof TiktokenCounter && counter.exact;
  let held = "";
  let tokens = 0;
  let bytes = 0;
  let characters = 0;
  for await (const chunk of source) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    bytes += buffer.length;
    const part = decoder.write(buffer);
    if (held.length + part.length > MAX_HELD) {
      throw new InputError(
        streamed
          ? `${where}: more than ${MAX_HELD} characters without a place where the count may be cut (a newline before a letter, digit or punctuation): too long to count as one piece`
          : `${where}: more than ${MAX_HELD} characters: ${counter.constructor.name} counts an input whole, and one this large does not fit in a string (the OpenAI encodings count inputs of any size)`,
      );
    }
    held += part;
    if (streamed && held.length >= chunkChars) {
      const cut = lastPieceBoundary(held);
      if (cut > 0) {
        tokens += await countChunks(counter, held.slice(0, cut));
        characters += cut;
        held = held.slice(cut);
      }
    }
    onProgress(buffer.length);
  }
  held += decoder.end();
  // Off the main thread where the counter can (a text past 2^24 units has no synchronous count).
  const whole = counter as Partial<BatchTokenCounter>;
  tokens += streamed
    ? await countChunks(counter, held)
    : typeof whole.countAsync === "function"
      ? await whole.countAsync(held)
      : counter.count(held);
  characters += held.length;
  return { tokens, bytes, characters };
}

/** The bytes of a file or standard input ("-"), as they are read. */
function open(file: string, io: Io): AsyncIterable<Buffer | string> {
  if (file === "-") return io.stdin as AsyncIterable<Buffer | string>;
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for await (const chunk of stream) yield chunk as Buffer;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new InputError(
          code === "ENOENT"
            ? `${file}: no such file`
            : code === "EISDIR"
              ? `${file}: is a directory`
              : `${file}: ${(error as Error).message}`,
        );
      }
    },
  };
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

  const sizes = await Promise.all(
    files.map(async (f) =>
      f === "-"
        ? 0
        : await stat(f).then(
            (s) => s.size,
            () => 0,
          ),
    ),
  );
  const totalBytes = sizes.reduce((a, b) => a + b, 0);
  const bar = totalBytes > PROGRESS_THRESHOLD && io.stderr.isTTY === true ? await progressBar(io, totalBytes) : undefined;

  const results: FileCount[] = [];
  let done = 0;
  try {
    for (const file of files) {
      const name = file === "-" ? "(stdin)" : file;
      const counted = await countStream(counter, open(file, io), name, (bytes) => {
        done += bytes;
        bar?.update(Math.min(totalBytes, done));
      });
      results.push({ file: name, ...counted });
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
