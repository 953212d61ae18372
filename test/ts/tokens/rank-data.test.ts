// The package's OpenAI rank tables (data/openai/*.bin) are OpenAI's: the .tiktoken files they are
// made from are the ones OpenAI publishes (the SHA-256 tiktoken pins for each), and
// scripts/rank-data.mjs still makes exactly the committed files from them, which the package's
// data modules hold deflated (what the loaders read, on Node and on the web). That the compact files
// hold the same tokens in the same ranks, read back by the core's reader, is
// test/native/tokenizer/bpe/rank_file_test.cc.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { TiktokenCounter } from "ctxwin";
// @ts-expect-error: a plain JavaScript build script without types
import { compactRankFile, ENCODINGS, tiktokenDir } from "../../../scripts/rank-data.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

// tiktoken_ext/openai_public.py: the expected_hash of each file tiktoken downloads.
const OPENAI_SHA256: Record<string, string> = {
  r50k_base: "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
  p50k_base: "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
  cl100k_base: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
  o200k_base: "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
};

describe.each(ENCODINGS as string[])("the %s rank table", (name) => {
  const tiktoken = readFileSync(join(tiktokenDir() as string, `${name}.tiktoken`));

  it("is made from the file OpenAI publishes", () => {
    expect(createHash("sha256").update(tiktoken).digest("hex")).toBe(OPENAI_SHA256[name]);
  });

  it("is what scripts/rank-data.mjs makes from it", () => {
    const made = compactRankFile(tiktoken.toString("utf8")) as Buffer;
    expect(made.equals(readFileSync(join(ROOT, "data", "openai", `${name}.bin`)))).toBe(true);
  });

  it("is what the package's data module inflates to", async () => {
    const module = (await import(join(ROOT, "prebuilds", "wasm-web", "data", `${name}.js`))) as {
      default: { path: string; size: number; deflated?: string; base?: { path: string; deflated: string }; appended?: string[] };
    };
    const table = module.default;
    expect(table.path).toBe(`openai/${name}.bin`);
    const committed = readFileSync(join(ROOT, "data", "openai", `${name}.bin`));
    expect(table.size).toBe(committed.length);
    if (table.deflated !== undefined) {
      expect(inflateSync(Buffer.from(table.deflated, "base64")).equals(committed)).toBe(true);
      return;
    }
    // p50k_base ships only the ranks after r50k_base's: OpenAI's r50k file with those ranks after
    // it, made compact, is the committed p50k_base table.
    expect(name).toBe("p50k_base");
    expect(table.base?.path).toBe("openai/r50k_base.bin");
    const base = readFileSync(join(tiktokenDir() as string, "r50k_base.tiktoken"), "utf8").trimEnd();
    const next = base.split("\n").length;
    const lines = (table.appended ?? []).flatMap((token, i) => (token === "" ? [] : [`${token} ${next + i}`]));
    expect(lines).toHaveLength(24);
    expect((compactRankFile(`${base}\n${lines.join("\n")}\n`) as Buffer).equals(committed)).toBe(true);
  });
});

// Through the package for the two encodings other tests load anyway: the core keeps one table per
// encoding per process (the addon is shared by the test files), and counters.test.ts needs the
// first load of p50k_base to be its own. rank_file_test.cc checks all four byte for byte.
describe.each(["cl100k_base", "o200k_base"])("the %s rank table, read by the package", (name) => {
  const tiktoken = readFileSync(join(tiktokenDir() as string, `${name}.tiktoken`));

  it("decodes every token to its bytes in OpenAI's file", () => {
    const counter = new TiktokenCounter({ encoding: name as "cl100k_base" });
    const lines = tiktoken
      .toString("utf8")
      .split("\n")
      .filter((line) => line !== "");
    const ranks = Uint32Array.from(lines, (line) => Number(line.split(" ")[1]));
    // decode() joins the tokens' bytes; whole lines of valid UTF-8 compare as text, byte for byte.
    const decoded = new TextEncoder().encode(counter.decode(ranks));
    const expected = Buffer.concat(lines.map((line) => Buffer.from(line.split(" ")[0] as string, "base64")));
    expect(decoded.length).toBeGreaterThan(0);
    expect(Buffer.from(decoded).equals(Buffer.from(new TextEncoder().encode(new TextDecoder().decode(expected))))).toBe(true);
  });
});
