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

interface Entry {
  readonly key: Key;
  readonly text: string;
  readonly count: number;
  /** The LRU list. */
  older: Entry | undefined;
  newer: Entry | undefined;
  /** The next (older) text under the same key. */
  sameKey: Entry | undefined;
}

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

export class TextCache {
  private readonly byKey = new Map<Key, Entry>();
  private oldest: Entry | undefined;
  private newest: Entry | undefined;
  private entries = 0;

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.entries;
  }

  /** The count remembered for `text`, made the most recently used; undefined when it has none. */
  get(text: string, key: Key = keyOf(text)): number | undefined {
    const entry = this.find(key, text);
    if (entry === undefined) return undefined;
    if (entry !== this.newest) {
      this.unlink(entry);
      this.append(entry);
    }
    return entry.count;
  }

  /** Whether `text` is remembered, its place in the order unchanged. */
  has(text: string): boolean {
    return this.find(keyOf(text), text) !== undefined;
  }

  /** Remembers `count` for `text` as the most recently used, evicting the least recently used past maxEntries. */
  set(text: string, count: number, key: Key = keyOf(text)): void {
    let same = 0;
    let last: Entry | undefined;
    for (let entry = this.byKey.get(key); entry !== undefined; entry = entry.sameKey) {
      if (entry.text === text) {
        this.drop(entry);
        return this.set(text, count, key);
      }
      same++;
      last = entry;
    }
    if (same >= MAX_SAME_KEY && last !== undefined) this.drop(last);
    const entry: Entry = { key, text, count, older: undefined, newer: undefined, sameKey: this.byKey.get(key) };
    this.byKey.set(key, entry);
    this.append(entry);
    this.entries++;
    while (this.entries > this.maxEntries && this.oldest !== undefined) this.drop(this.oldest);
  }

  clear(): void {
    this.byKey.clear();
    this.oldest = this.newest = undefined;
    this.entries = 0;
  }

  private find(key: Key, text: string): Entry | undefined {
    let entry = this.byKey.get(key);
    while (entry !== undefined && entry.text !== text) entry = entry.sameKey;
    return entry;
  }

  private append(entry: Entry): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest === undefined) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
  }

  private unlink(entry: Entry): void {
    if (entry.older === undefined) this.oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.newest = entry.older;
    else entry.newer.older = entry.older;
  }

  /** Forgets `entry`: out of the order and out of its key's texts. */
  private drop(entry: Entry): void {
    this.unlink(entry);
    this.entries--;
    const head = this.byKey.get(entry.key) as Entry;
    if (head === entry) {
      if (entry.sameKey === undefined) this.byKey.delete(entry.key);
      else this.byKey.set(entry.key, entry.sameKey);
      return;
    }
    let before = head;
    while (before.sameKey !== entry) before = before.sameKey as Entry;
    before.sameKey = entry.sameKey;
  }
}
