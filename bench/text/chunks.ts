// How the throughput benches feed text to a counter: in chunks of about 64 KiB, as a caller counts
// documents, never cut inside a surrogate pair. bench/native/count_driver.hpp cuts UTF-8 the same
// way, so that the native drivers count the same chunks.
export const CHUNK = 64 * 1024;

/** `text` cut into chunks of about `size` UTF-16 units, never inside a surrogate pair. */
export function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + size);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1] as string)) end++;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}
