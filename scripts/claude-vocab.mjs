// Converts ctok's measured Claude vocabularies (pieces_*.json, MIT, github sanderland/ctok) into
// the compact binary the core loads (data/claude/*.bin): no JSON parsing at run time, and only
// what a count needs (the pieces and the byte-fallback prefixes; the witnesses stay in ctok).
//
//   node scripts/claude-vocab.mjs <folder holding pieces_v3.json and pieces_v4_7.json>
//
// Format, little-endian: "ctxwcl01", u32 message_overhead, u32 fold_quotes, u32 allcaps_min
// (0 = no ⟨caps⟩ marker), u32 piece count, then per piece u16 byte length + bytes, u32 prefix
// count, then per prefix u8 byte length + bytes. In pieces the markers are single bytes that UTF-8
// never uses: ⟨bow⟩ 0xF8, ⟨eow⟩ 0xF9, ⟨shift⟩ 0xFA, ⟨caps⟩ 0xFB; ⟨0xNN⟩ escapes become raw bytes.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const MARKERS = { bow: 0xf8, eow: 0xf9, shift: 0xfa, caps: 0xfb };

function pieceBytes(piece) {
  const out = [];
  const atom = /⟨(bow|eow|shift|caps|0x[0-9A-Fa-f]{2})⟩/gy;
  let i = 0;
  while (i < piece.length) {
    atom.lastIndex = i;
    const m = atom.exec(piece);
    if (m) {
      const name = m[1];
      out.push(name.startsWith("0x") ? parseInt(name.slice(2), 16) : MARKERS[name]);
      i = atom.lastIndex;
      continue;
    }
    const cp = piece.codePointAt(i);
    const ch = String.fromCodePoint(cp);
    out.push(...Buffer.from(ch, "utf8"));
    i += ch.length;
  }
  return Buffer.from(out);
}

function convert(doc) {
  const { meta, tokens } = doc;
  const pieces = new Set();
  for (const [group, entries] of Object.entries(tokens)) {
    if (group === "bytes_fallback") continue;
    for (const piece of Object.keys(entries)) pieces.add(pieceBytes(piece).toString("latin1"));
  }
  // The vocabulary file stores a contraction as `'t`; the stream writes it closed: `'t⟨eow⟩`.
  for (const piece of Object.keys(tokens.contractions)) {
    pieces.add(Buffer.concat([pieceBytes(piece), Buffer.from([MARKERS.eow])]).toString("latin1"));
  }
  const sorted = [...pieces].sort();
  const prefixes = Object.keys(tokens.bytes_fallback).sort();
  const parts = [Buffer.from("ctxwcl01", "latin1")];
  const u32 = (n) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    parts.push(b);
  };
  u32(meta.message_overhead);
  u32(meta.fold_quotes ? 1 : 0);
  u32(meta.allcaps_min ?? 0);
  u32(sorted.length);
  for (const piece of sorted) {
    const bytes = Buffer.from(piece, "latin1");
    const len = Buffer.alloc(2);
    len.writeUInt16LE(bytes.length);
    parts.push(len, bytes);
  }
  u32(prefixes.length);
  for (const hex of prefixes) {
    const bytes = Buffer.from(hex, "hex");
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  return Buffer.concat(parts);
}

const source = process.argv[2];
if (!source) {
  console.error("usage: node scripts/claude-vocab.mjs <folder with pieces_v3.json and pieces_v4_7.json>");
  process.exit(2);
}
const outDir = join(dirname(fileURLToPath(import.meta.url)), "..", "data", "claude");
mkdirSync(outDir, { recursive: true });
for (const [input, output] of [
  ["pieces_v3.json", "v3.bin"],
  ["pieces_v4_7.json", "v4_7.bin"],
]) {
  const bin = convert(JSON.parse(readFileSync(join(source, input), "utf8")));
  writeFileSync(join(outDir, output), bin);
  console.log(`${output}: ${bin.length} bytes`);
}
