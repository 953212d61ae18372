// The bounded LRU map from texts to their counts behind CachingCounter, built so that a text it has
// not seen costs next to nothing: the wrapper is getCounter's default, and a managed history counts
// every message once, as it arrives, so nearly every lookup there is a miss.
//
// Two costs of a Map keyed by the texts themselves, in LRU order through the Map's own insertion
// order, made a miss cost about a third of counting the text (about 4 µs for 1 KB):
// - V8 hashes the whole string on its first lookup (about 1.2 ns a character; the counter then
//   reads it again anyway). A long text is keyed here by its length and 96 of its characters, and
//   found by comparing it with the few texts remembered under that key;
// - evicting the oldest through `map.keys().next()` scans every entry deleted since the table was
//   last rebuilt (a hole at its front per eviction): thousands once the cache is full. The order
//   is kept here in a linked list instead, and a hit moves no Map entry.

/** Texts up to this many UTF-16 units are their own key; longer ones are keyed by a sample of them. */
const SHORT_TEXT = 64;
/** Texts remembered under one sampled key at most (texts of one length that differ only between samples). */
const MAX_SAME_KEY = 4;

type Key = string | number;

/** No slot. */
const NONE = -1;

/** The key `text` is remembered under. */
export function keyOf(text: string): Key {
  const n = text.length;
  if (n <= SHORT_TEXT) return text;
  let h = n;
  for (let i = 0; i < 16; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  for (let i = n - 16; i < n; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const step = (n - 32) / 65;
  for (let k = 1; k <= 64; k++) h = Math.imul(h ^ text.charCodeAt(16 + Math.floor(k * step)), 0x01000193);
  return h & 0x3fffffff; // a small integer: the Map hashes it without boxing it
}

/**
 * The entries live in parallel arrays indexed by slot (the text, its key and count, the LRU links
 * and the next older text under the same key), reused as texts are evicted: remembering a text
 * allocates no object, so a cache that turns over at every message adds nothing for the garbage
 * collector to copy or sweep beyond the Map's own table.
 */
export class TextCache {
  private readonly byKey = new Map<Key, number>();
  private texts: string[] = [];
  private keys: Key[] = [];
  // Typed: four numbers a slot in 20 bytes (a count as the counter gave it, a custom counter's
  // included). Grown by doubling, to maxEntries + 1 slots at most (set() remembers a text before
  // it evicts one).
  private counts = new Float64Array(0);
  private older = new Int32Array(0);
  private newer = new Int32Array(0);
  private sameKey = new Int32Array(0);
  private free: number[] = [];
  private oldest = NONE;
  private newest = NONE;
  private entries = 0;

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.entries;
  }

  /** The count remembered for `text`, made the most recently used; undefined when it has none. */
  get(text: string, key: Key = keyOf(text)): number | undefined {
    const slot = this.find(key, text);
    if (slot === NONE) return undefined;
    if (slot !== this.newest) {
      this.unlink(slot);
      this.append(slot);
    }
    return this.counts[slot];
  }

  /** Whether `text` is remembered, its place in the order unchanged. */
  has(text: string): boolean {
    return this.find(keyOf(text), text) !== NONE;
  }

  /** Remembers `count` for `text` as the most recently used, evicting the least recently used past maxEntries. */
  set(text: string, count: number, key: Key = keyOf(text)): void {
    const existing = this.find(key, text);
    if (existing !== NONE) this.drop(existing);
    let same = 0;
    let last = NONE;
    for (let slot = this.byKey.get(key) ?? NONE; slot !== NONE; slot = this.sameKey[slot] as number) {
      same++;
      last = slot;
    }
    if (same >= MAX_SAME_KEY) this.drop(last);
    const slot = this.free.pop() ?? this.texts.length;
    if (slot >= this.counts.length) this.grow();
    this.texts[slot] = text;
    this.keys[slot] = key;
    this.counts[slot] = count;
    this.sameKey[slot] = this.byKey.get(key) ?? NONE;
    this.byKey.set(key, slot);
    this.append(slot);
    this.entries++;
    while (this.entries > this.maxEntries && this.oldest !== NONE) this.drop(this.oldest);
  }

  clear(): void {
    this.byKey.clear();
    this.texts = [];
    this.keys = [];
    this.counts = new Float64Array(0);
    this.older = new Int32Array(0);
    this.newer = new Int32Array(0);
    this.sameKey = new Int32Array(0);
    this.free = [];
    this.oldest = this.newest = NONE;
    this.entries = 0;
  }

  private grow(): void {
    const size = Math.min(this.maxEntries + 1, Math.max(64, this.counts.length * 2));
    const grown = <T extends Float64Array | Int32Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.counts = grown(this.counts, new Float64Array(size));
    this.older = grown(this.older, new Int32Array(size));
    this.newer = grown(this.newer, new Int32Array(size));
    this.sameKey = grown(this.sameKey, new Int32Array(size));
  }

  private find(key: Key, text: string): number {
    let slot = this.byKey.get(key) ?? NONE;
    while (slot !== NONE && this.texts[slot] !== text) slot = this.sameKey[slot] as number;
    return slot;
  }

  private append(slot: number): void {
    this.older[slot] = this.newest;
    this.newer[slot] = NONE;
    if (this.newest === NONE) this.oldest = slot;
    else this.newer[this.newest] = slot;
    this.newest = slot;
  }

  private unlink(slot: number): void {
    const older = this.older[slot] as number;
    const newer = this.newer[slot] as number;
    if (older === NONE) this.oldest = newer;
    else this.newer[older] = newer;
    if (newer === NONE) this.newest = older;
    else this.older[newer] = older;
  }

  /** Forgets the text in `slot`: out of the order and out of its key's texts; the slot is reused. */
  private drop(slot: number): void {
    this.unlink(slot);
    this.entries--;
    const key = this.keys[slot] as Key;
    const head = this.byKey.get(key) as number;
    const next = this.sameKey[slot] as number;
    if (head === slot) {
      if (next === NONE) this.byKey.delete(key);
      else this.byKey.set(key, next);
    } else {
      let before = head;
      while (this.sameKey[before] !== slot) before = this.sameKey[before] as number;
      this.sameKey[before] = next;
    }
    this.texts[slot] = ""; // the text is the caller's: not kept alive by a free slot
    this.keys[slot] = 0;
    this.free.push(slot);
  }
}
