// A rank table made of another's ranks with more after them, in the compact form of
// native/include/ctxwin/tokenizer/bpe/rank_file.hpp. p50k_base is r50k_base's 50,256 ranks, an
// empty rank 50256 (<|endoftext|>'s) and 24 runs of 2 to 25 spaces: the package ships the shared
// ranks once, and p50k_base's data module names r50k_base's as its base (scripts/build-wasm.mjs
// writes it; the loaders on Node and on the web put the two together here, and refuse a join that
// is not the size the module states). test/ts/tokens/rank-data.test.ts rebuilds OpenAI's p50k file
// from the module's ranks.

const MAGIC = "ctxwbp01";
const HEADER_BYTES = 16;

/** The bytes of the LEB128 length of a token of `length` bytes. */
function lengthBytes(length: number): number[] {
  const out: number[] = [];
  do {
    out.push((length & 0x7f) | (length > 0x7f ? 0x80 : 0));
    length >>>= 7;
  } while (length > 0);
  return out;
}

/**
 * `base` (a compact rank file) with the tokens `appended` (each one's bytes; an empty one for a
 * rank no token has) as its next ranks. Throws a plain Error when `base` is not a compact rank
 * file: the loaders make it the cause of their coded errors.
 */
export function appendRanks(base: Uint8Array, appended: readonly Uint8Array[]): Uint8Array {
  // plain Error: the loaders make it the cause of their coded errors, naming the data module.
  if (base.length < HEADER_BYTES || String.fromCharCode(...base.subarray(0, MAGIC.length)) !== MAGIC)
    throw new Error("the base table is not a ctxwin rank file");
  const view = new DataView(base.buffer, base.byteOffset, base.byteLength);
  const rankCount = view.getUint32(8, true);
  const byteCount = view.getUint32(12, true);
  // The lengths end where the rank_count-th LEB128 number does.
  let at = HEADER_BYTES;
  for (let rank = 0; rank < rankCount; rank++) {
    while (at < base.length && ((base[at] as number) & 0x80) !== 0) at++;
    at++;
  }
  // plain Error: wrapped by the loaders, as above.
  if (at + byteCount !== base.length) throw new Error("the base table's sizes do not add up");
  const lengths = appended.flatMap((token) => lengthBytes(token.length));
  const added = appended.reduce((sum, token) => sum + token.length, 0);
  const out = new Uint8Array(base.length + lengths.length + added);
  out.set(base.subarray(0, at));
  const header = new DataView(out.buffer);
  header.setUint32(8, rankCount + appended.length, true);
  header.setUint32(12, byteCount + added, true);
  out.set(lengths, at);
  out.set(base.subarray(at), at + lengths.length);
  let write = at + lengths.length + byteCount;
  for (const token of appended) {
    out.set(token, write);
    write += token.length;
  }
  return out;
}
