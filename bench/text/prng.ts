// A small seeded PRNG for the bench's generated text: the same seed gives the same text on every
// machine and Node version (Math.random cannot be seeded). sfc32, seeded through splitmix32, passes
// PractRand far beyond the few megabytes drawn here and is four lines of 32-bit integer code.
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.uint32(); // mix the seed through before the first draw
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.uint32() / 0x1_0000_0000) * n);
  }

  /** An integer in [low, high]. */
  range(low: number, high: number): number {
    return low + this.int(high - low + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.uint32() / 0x1_0000_0000 < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick: items is empty");
    return items[this.int(items.length)] as T;
  }

  /** `digits` lowercase hexadecimal digits. */
  hex(digits: number): string {
    let out = "";
    while (out.length < digits) out += this.uint32().toString(16).padStart(8, "0");
    return out.slice(0, digits);
  }
}

/** Appends pieces from `next` until the UTF-8 size reaches `bytes` (the last piece may pass it). */
export function fill(bytes: number, next: () => string): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const part = next();
    parts.push(part);
    size += Buffer.byteLength(part);
  }
  return parts.join("");
}
