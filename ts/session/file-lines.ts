// The lines of a session file, read in chunks forward from an offset or backward from the end, so
// that no file, however large, is ever held whole: memory is one chunk plus the longest line, and
// a line longer than the store ever writes is refused with a code before it is gathered.
import type { FileHandle } from "node:fs/promises";
import { corruptError, tooLargeError } from "./store.js";

export interface Line {
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past its content (where its newline is, when it has one). */
  end: number;
  bytes: Buffer;
  /** False for the last bytes of a file that no newline ends yet (a write under way, or torn). */
  terminated: boolean;
}

const NEWLINE = 0x0a;
const CHUNK = 64 * 1024;

function tooLong(where: string, at: number, maxLine: number): Error {
  return tooLargeError(`${where}: the line at byte ${at} is longer than any record the store writes (${maxLine} bytes)`);
}

/** The lines between byte `from` (a line's start) and byte `to`, in order. */
export async function* forwardLines(handle: FileHandle, from: number, to: number, maxLine: number, where: string): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineStart = from;
  const chunk = Buffer.allocUnsafe(CHUNK);
  for (let at = from; at < to; ) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK, to - at), at);
    if (bytesRead === 0) break; // the file shrank (deleted and written again): stop at what is there
    let pos = 0;
    for (let nl = chunk.indexOf(NEWLINE, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(NEWLINE, pos)) {
      const piece = chunk.subarray(pos, nl);
      const bytes = parts.length === 0 ? Buffer.from(piece) : Buffer.concat([...parts, piece]);
      if (bytes.length > maxLine) throw tooLong(where, lineStart, maxLine);
      yield { start: lineStart, end: at + nl, bytes, terminated: true };
      parts = [];
      partBytes = 0;
      pos = nl + 1;
      lineStart = at + nl + 1;
    }
    if (pos < bytesRead) {
      partBytes += bytesRead - pos;
      if (partBytes > maxLine) throw tooLong(where, lineStart, maxLine);
      parts.push(Buffer.from(chunk.subarray(pos, bytesRead)));
    }
    at += bytesRead;
  }
  if (partBytes > 0) yield { start: lineStart, end: lineStart + partBytes, bytes: Buffer.concat(parts), terminated: false };
}

/**
 * The lines before byte `end`, last first. When `end` is the file's size and the file does not end
 * with a newline, the first line yielded is that unterminated tail. Blank lines are yielded too.
 */
export async function* backwardLines(handle: FileHandle, end: number, maxLine: number, where: string): AsyncGenerator<Line> {
  // `parts` holds the bytes of the line being gathered (right of the newline found last).
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineEnd = end;
  let terminated = false; // only the first line gathered (the file's tail) can lack its newline
  const chunk = Buffer.allocUnsafe(CHUNK);
  for (let at = end; at > 0; ) {
    const start = Math.max(0, at - CHUNK);
    const { bytesRead } = await handle.read(chunk, 0, at - start, start);
    if (bytesRead < at - start) throw corruptError(`${where}: the file shrank while it was read (something other than a store cut it)`);
    let right = bytesRead;
    for (let nl = chunk.lastIndexOf(NEWLINE, right - 1); nl !== -1; nl = right > 0 ? chunk.lastIndexOf(NEWLINE, right - 1) : -1) {
      const piece = chunk.subarray(nl + 1, right);
      const length = piece.length + partBytes;
      if (length > maxLine) throw tooLong(where, start + nl + 1, maxLine);
      if (terminated || length > 0) {
        const bytes = parts.length === 0 ? Buffer.from(piece) : Buffer.concat([piece, ...parts]);
        yield { start: start + nl + 1, end: lineEnd, bytes, terminated };
      }
      parts = [];
      partBytes = 0;
      lineEnd = start + nl;
      terminated = true;
      right = nl;
    }
    if (right > 0) {
      partBytes += right;
      if (partBytes > maxLine) throw tooLong(where, start, maxLine);
      parts.unshift(Buffer.from(chunk.subarray(0, right)));
    }
    at = start;
  }
  if (partBytes > 0 || terminated) yield { start: 0, end: lineEnd, bytes: Buffer.concat(parts), terminated };
}
