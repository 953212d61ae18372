// The lock a FileSessionStore takes around an append (proper-lockfile: an atomic mkdir of
// `<file>.lock`, refreshed while held, taken over once stale), and what a failure to take it says.
//
// proper-lockfile reports the error it met most often over its retries: a lock it could not take
// over because the directory is read-only (EROFS on rmdir, once, after many ELOCKED) read as
// "another writer held the session's lock" while none did. So an ELOCKED at the end is looked at
// again: a directory the process cannot write (a read-only file system, no permission) is that
// error, with its own code; a stale lock that cannot be removed is the removal's error; only a
// lock a live writer keeps refreshing is ERR_CTXWIN_SESSION_BUSY.
import { constants } from "node:fs";
import { access, rmdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { lock as lockFunction } from "proper-lockfile";
import { plainError } from "../runtime/errors.js";
import { ioError, systemCodeOf } from "./io-error.js";

export interface LockOptions {
  staleLockMs: number;
  lockTimeoutMs: number;
}

// proper-lockfile is loaded by the first lock rather than with the package: it and graceful-fs,
// which patches `fs` as it loads, were 8 ms of CPU of every `import "ctxwin"` (issue 40's cold start).
let lockModule: Promise<{ lock: typeof lockFunction }> | undefined;
function loadLockfile(): Promise<{ lock: typeof lockFunction }> {
  lockModule ??= import("proper-lockfile").then((loaded) => loaded.default);
  return lockModule;
}

/** Takes the lock of the session file `path`; resolves with its release. */
export async function takeLock(path: string, options: LockOptions): Promise<() => Promise<void>> {
  const lockfile = await loadLockfile();
  try {
    return await lockfile.lock(path, {
      realpath: false,
      stale: options.staleLockMs,
      retries: { retries: Math.ceil(options.lockTimeoutMs / 25), factor: 1.3, minTimeout: 1, maxTimeout: 25, randomize: true },
      onCompromised: () => {},
    });
  } catch (error) {
    if (systemCodeOf(error) === "ELOCKED") throw await whyLocked(path, error, options);
    // The file system's own failure (EROFS, EACCES, ENOSPC), saying what it stopped.
    throw ioError(`${path}: cannot take the session's lock: ${(error as Error).message}`, error);
  }
}

/** What an ELOCKED after every retry really was. */
async function whyLocked(path: string, error: unknown, options: LockOptions): Promise<Error> {
  const lock = `${path}.lock`;
  const directory = dirname(path);
  try {
    await access(directory, constants.W_OK);
  } catch (denied) {
    // The file system's refusal (EACCES, EROFS).
    return ioError(
      `${path}: cannot take the session's lock: its directory is not writable (${systemCodeOf(denied) ?? "denied"}: ${(denied as Error).message}); a lock left in it (${lock}) cannot be taken over, and nothing can be appended`,
      denied,
    );
  }
  let age: number | undefined;
  try {
    age = Date.now() - (await stat(lock)).mtimeMs;
  } catch {
    // Gone meanwhile: it was held, and let go too late.
  }
  if (age !== undefined && age > options.staleLockMs) {
    // Stale, yet not taken over: removing it fails, and that failure is the answer.
    try {
      await rmdir(lock);
    } catch (removal) {
      // The file system's refusal.
      return ioError(
        `${path}: cannot take over a stale lock (${lock}, ${Math.round(age)} ms old): removing it failed (${systemCodeOf(removal) ?? "error"}: ${(removal as Error).message})`,
        removal,
      );
    }
  }
  const held = age === undefined ? "it was let go only after lockTimeoutMs" : `last refreshed ${Math.round(age)} ms ago`;
  return plainError(
    `${path}: another writer held the session's lock for lockTimeoutMs (${options.lockTimeoutMs} ms; ${held})`,
    "ERR_CTXWIN_SESSION_BUSY",
    { cause: error },
  );
}
