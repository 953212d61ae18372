// What a tokenizer.json counter reads from the host's files, and the error it throws when the
// host cannot give it.
import { plainError, quoted, type CtxwinError } from "../runtime/errors.js";
import { coreHost, type HostFiles } from "../runtime/native.js";

/** The runtime's files; a path or package name needs them (the web has none). */
export function hostFiles(name: string, source: string): HostFiles {
  const files = coreHost().files;
  if (files === undefined) {
    throw tokenizerUnavailable(
      `ctxwin: ${name} ${quoted(source)} names a file or a package, which needs a file system; here pass the parsed tokenizer.json (for example \`await (await fetch(url)).json()\`)`,
    );
  }
  return files;
}

export function tokenizerUnavailable(message: string, cause?: unknown): CtxwinError {
  return plainError(message, "ERR_CTXWIN_TOKENIZER_UNAVAILABLE", cause === undefined ? undefined : { cause });
}
