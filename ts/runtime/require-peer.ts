// Loading a framework that an adapter subpath needs at run time. The frameworks are optional peer
// dependencies: importing a subpath without its framework gives an error whose code names it and
// whose message ends with the exact command that installs it, rather than Node's bare
// ERR_MODULE_NOT_FOUND from somewhere inside the adapter.
import { plainError, type CtxwinError, type CtxwinErrorCode } from "./errors.js";

/** What a missing framework is called and how it is installed. */
export interface PeerPackage {
  /** The package(s) as a reader names them, e.g. "the `ai` package (6 or 7)". */
  what: string;
  /** The `npm install` arguments that install it, e.g. "ai@^7". */
  install: string;
  code: CtxwinErrorCode;
}

/** The error for a missing framework, its `cause` the loader's error. */
export function missingPeer(needer: string, peer: PeerPackage, cause: unknown): CtxwinError {
  return plainError(`${needer} needs ${peer.what}: npm install ${peer.install}`, peer.code, { cause });
}

export async function requirePeer<T>(load: () => Promise<T>, subpath: string, peer: PeerPackage): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    return Promise.reject(missingPeer(`ctxwin/${subpath}`, peer, cause));
  }
}

/** `ai` 7 requires Node 22 or later: on an older Node the command installs `ai` 6. */
export const AI_SDK_PEER: PeerPackage = {
  what: "the `ai` package (6 or 7)",
  install: Number(process.versions.node.split(".")[0]) >= 22 ? "ai@^7" : "ai@^6",
  code: "ERR_CTXWIN_AI_SDK_MISSING",
};

export const LANGCHAIN_CORE_PEER: PeerPackage = {
  what: "`@langchain/core` (version 1)",
  install: "@langchain/core@^1",
  code: "ERR_CTXWIN_LANGCHAIN_MISSING",
};
