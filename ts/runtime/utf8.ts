// The size of a string in UTF-8, which bounds on logs and appends are written in.

/** Bytes of a string in UTF-8 (Node's Buffer where there is one; a lone surrogate counts as U+FFFD). */
export const utf8Length: (text: string) => number =
  typeof Buffer === "function" ? (text) => Buffer.byteLength(text, "utf8") : (text) => new TextEncoder().encode(text).length;
