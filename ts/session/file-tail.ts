// What a writer or a reader of a session file needs without reading the whole file: where to
// start (the checkpoint of a line near the end), the state at the end (version, last accepted
// append, its log id and pointers), whether an append id was already applied. Each reads from the
// end back to the nearest checkpoint and forward from there, so its cost is the length of the last
// few lines, not of the file.
import type { FileHandle } from "node:fs/promises";
import { backwardLines } from "./file-lines.js";
import { Acceptance, MAX_LINE_BYTES, acceptedBatches, parseLine, type Checkpoint, type KnownLine, type PlacedBatch } from "./file-log.js";
import { IDEMPOTENCY_WINDOW, SNAPSHOT_TYPE, corruptError, metadataOf } from "./store.js";

/**
 * The checkpoint of the last line whose append extends a version <= `at` (Infinity: the last
 * line's), read backward from `size`; the file's start when there is none. The line it came from
 * is parsed already: `known` hands it to the forward pass, which would parse it again.
 */
export async function findCheckpoint(
  handle: FileHandle,
  size: number,
  at: number,
  where: string,
  includeUnterminated: boolean,
): Promise<Checkpoint & { known?: KnownLine }> {
  for await (const line of backwardLines(handle, size, MAX_LINE_BYTES, where)) {
    // A reader leaves out a last line without its newline: its checkpoint may be past every line it takes.
    if (line.bytes.length === 0 || (!line.terminated && !includeUnterminated)) continue;
    const batch = parseLine(line.bytes);
    if (!batch || batch.seq > at) continue;
    const known = { start: line.start, batch };
    if (batch.after === undefined) {
      if (!line.terminated) continue; // a first-format line still being written
      return { offset: line.start, version: batch.seq, known };
    }
    if (batch.after > line.start)
      throw corruptError(`${where} (byte ${line.start}): the append at seq ${batch.seq} extends a point after itself`);
    return { offset: batch.after, version: batch.seq, known };
  }
  return { offset: 0, version: 0 };
}

/** The state at the end of the file: version, checkpoint and last accepted append. */
export async function readTail(handle: FileHandle, size: number, where: string, includeUnterminated: boolean): Promise<Acceptance> {
  const from = await findCheckpoint(handle, size, Infinity, where, includeUnterminated);
  const state = new Acceptance(from);
  for await (const _ of acceptedBatches(handle, state, size, {
    where,
    includeUnterminated,
    lineNumbers: from.offset === 0,
    known: from.known,
  })) {
    // the state follows
  }
  return state;
}

/** The first accepted append at or after a checkpoint. */
export async function firstAccepted(handle: FileHandle, from: Checkpoint, size: number, where: string): Promise<PlacedBatch | undefined> {
  for await (const batch of acceptedBatches(handle, new Acceptance(from), size, {
    where,
    includeUnterminated: false,
    lineNumbers: from.offset === 0,
  }))
    return batch;
  return undefined;
}

/** The checkpoint before an accepted append (where a scan that reaches it can start). */
export const checkpointOf = (batch: PlacedBatch): Checkpoint => ({ offset: batch.after ?? batch.start, version: batch.seq });

/** The id of a log whose last accepted append is of the first format: derived from its first record's time. */
export async function legacyLogId(handle: FileHandle, size: number, where: string): Promise<string> {
  const first = await firstAccepted(handle, { offset: 0, version: 0 }, size, where);
  return `legacy-${first?.time ?? 0}`;
}

/**
 * The accepted append that applied `appendId`, if the log has one: the one at `expected` when
 * the caller names the version its first attempt extended; otherwise among the last
 * IDEMPOTENCY_WINDOW lines (the search reads lines as bytes, parsing only those that hold the id).
 */
export async function findApplied(
  handle: FileHandle,
  size: number,
  tail: Acceptance,
  expected: number | undefined,
  appendId: string,
  where: string,
): Promise<PlacedBatch | undefined> {
  if (expected !== undefined) {
    if (expected >= tail.next) return undefined;
    const from = await findCheckpoint(handle, size, expected, where, true);
    for await (const batch of acceptedBatches(handle, new Acceptance(from), size, {
      where,
      includeUnterminated: true,
      lineNumbers: from.offset === 0,
      known: from.known,
    })) {
      if (batch.seq >= expected) return batch.seq === expected && batch.append === appendId ? batch : undefined;
    }
    return undefined;
  }
  const needle = Buffer.from(`"append":${JSON.stringify(appendId)},`);
  let lines = 0;
  for await (const line of backwardLines(handle, size, MAX_LINE_BYTES, where)) {
    if (line.bytes.length === 0) continue;
    if (++lines > IDEMPOTENCY_WINDOW) return undefined;
    if (!line.bytes.includes(needle)) continue;
    const batch = parseLine(line.bytes);
    if (!batch || batch.append !== appendId || batch.after === undefined) continue;
    // Its last attempt: it won its version, or no attempt did (an earlier one lost before it was made).
    const winner = await firstAccepted(handle, { offset: batch.after, version: batch.seq }, size, where);
    return winner?.append === appendId ? winner : undefined;
  }
  return undefined;
}

export interface Pointers {
  metadata: Checkpoint | undefined;
  snapshot: (Checkpoint & { seq: number }) | undefined;
}

/**
 * Where the log's last metadata and snapshot entries are, as of its last accepted append: carried
 * by that append's line, or (for a file of the first format) found by one pass over the file.
 */
export async function pointersOf(handle: FileHandle, tail: Acceptance, size: number, where: string): Promise<Pointers> {
  const last = tail.last;
  if (!last) return { metadata: undefined, snapshot: undefined };
  if (last.after !== undefined) return { metadata: last.metadata, snapshot: last.snapshot };
  const pointers: Pointers = { metadata: undefined, snapshot: undefined };
  for await (const batch of acceptedBatches(handle, new Acceptance({ offset: 0, version: 0 }), size, {
    where,
    includeUnterminated: false,
    lineNumbers: true,
  })) {
    batch.entries.forEach((entry, k) => {
      if (metadataOf(entry)) pointers.metadata = checkpointOf(batch);
      if (entry.type === SNAPSHOT_TYPE) pointers.snapshot = { ...checkpointOf(batch), seq: batch.seq + k };
    });
  }
  return pointers;
}

/** The metadata of the log's last metadata entry, found from its pointer. */
export async function metadataAt(
  handle: FileHandle,
  pointer: Checkpoint | undefined,
  size: number,
  where: string,
): Promise<Record<string, unknown>> {
  if (!pointer) return {};
  const batch = await firstAccepted(handle, pointer, size, where);
  let metadata: Record<string, unknown> = {};
  for (const entry of batch?.entries ?? []) metadata = metadataOf(entry) ?? metadata;
  return metadata;
}
