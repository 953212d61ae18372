// The file system's failures as ctxwin errors. A session store's caller catches one kind of error
// (`isCtxwinError`) whatever failed under it; the system's own code (EACCES, EROFS, ENOSPC, ...)
// stays readable as `systemCode`, and the failure itself as `cause`.
import { CtxwinError, plainError } from "../runtime/errors.js";

/** A failure of the file system under a session store: code ERR_CTXWIN_SESSION_IO. */
export type SessionIoError = CtxwinError & { code: "ERR_CTXWIN_SESSION_IO"; systemCode: string | undefined };

/** The system code of a Node file-system error (`"ENOENT"`), if `error` is one. */
export function systemCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

export function ioError(message: string, cause: unknown, systemCode = systemCodeOf(cause)): SessionIoError {
  return Object.assign(plainError(message, "ERR_CTXWIN_SESSION_IO", { cause }), { code: "ERR_CTXWIN_SESSION_IO" as const, systemCode });
}

/** `error` as the store's caller gets it: a ctxwin error as it is, a system failure wrapped. */
export function asIoError(error: unknown): unknown {
  if (error instanceof CtxwinError || systemCodeOf(error) === undefined) return error;
  return ioError((error as Error).message, error);
}

/** Runs one of a store's operations, its system failures turned into SessionIoErrors. */
export async function io<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw asIoError(error);
  }
}

/** The same for a scan: the records as they come, a failure while reading them wrapped. */
export async function* ioRecords<T>(records: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* records;
  } catch (error) {
    throw asIoError(error);
  }
}
