// Loading a framework that an adapter subpath needs at run time. The frameworks are optional peer
// dependencies: importing a subpath without its framework gives an error whose code names it,
// rather than Node's bare ERR_MODULE_NOT_FOUND from somewhere inside the adapter.
import { plainError, type CtxwinErrorCode } from "../../runtime/errors.js";

export async function requirePeer<T>(load: () => Promise<T>, subpath: string, packages: string, code: CtxwinErrorCode): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    const error = plainError(`ctxwin/${subpath} needs ${packages}: npm install ${packages.replace(/`/g, "")}`, code);
    return Promise.reject(Object.assign(error, { cause }));
  }
}
