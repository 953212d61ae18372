// Random identifiers from the Web Crypto API, which every runtime ctxwin runs in has as
// `globalThis.crypto` (Node >= 20, browsers, Workers, edge runtimes, Deno). Not `randomUUID()`:
// browsers offer it only on secure (https) pages, getRandomValues everywhere.

function randomBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** A version 4 UUID (RFC 9562), as `crypto.randomUUID()` makes it. */
export function randomUuid(): string {
  const bytes = randomBytes(16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80; // variant 10
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** `length` random bytes (a multiple of 3) in base64url, as Node's `randomBytes(length).toString("base64url")`. */
export function randomBase64url(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i + 2 < bytes.length; i += 3) {
    const chunk = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += BASE64URL[chunk >> 18]! + BASE64URL[(chunk >> 12) & 63]! + BASE64URL[(chunk >> 6) & 63]! + BASE64URL[chunk & 63]!;
  }
  return out;
}
