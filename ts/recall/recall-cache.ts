// The originals compaction took, kept in memory for recall when there is no session log to read
// them from. Bounded in bytes (UTF-16 code units x 2, what the strings hold): the oldest
// originals go first when a new one would pass the bound, and their ids are remembered (up to a
// count) so that a recall of one says it was evicted rather than that it never existed.

/** The default bound of a RecallCache: 8 MiB of original text. */
export const DEFAULT_RECALL_CACHE_BYTES = 8 * 1024 * 1024;
/** Evicted ids remembered, oldest forgotten first: past this a very old id reads as unknown. */
const MAX_EVICTED_IDS = 65_536;

export type CacheLookup = { kind: "found"; text: string } | { kind: "evicted" } | { kind: "unknown" };

export class RecallCache {
  private readonly entries = new Map<string, string>();
  private readonly evicted = new Set<string>();
  private used = 0;

  constructor(readonly maxBytes: number = DEFAULT_RECALL_CACHE_BYTES) {}

  /** Bytes the kept originals take (2 per UTF-16 code unit). */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Keeps `text` under `id` (a newer original of the same id replaces the older one); one larger than the whole bound is not kept (recorded as evicted). */
  remember(id: string, text: string): void {
    const size = text.length * 2;
    const old = this.entries.get(id);
    if (old !== undefined) {
      this.entries.delete(id);
      this.used -= old.length * 2;
    }
    if (size > this.maxBytes) {
      this.forget(id);
      return;
    }
    while (this.used + size > this.maxBytes) {
      const [oldest, value] = this.entries.entries().next().value as [string, string];
      this.entries.delete(oldest);
      this.used -= value.length * 2;
      this.forget(oldest);
    }
    this.entries.set(id, text);
    this.evicted.delete(id);
    this.used += size;
  }

  lookup(id: string): CacheLookup {
    const text = this.entries.get(id);
    if (text !== undefined) return { kind: "found", text };
    return this.evicted.has(id) ? { kind: "evicted" } : { kind: "unknown" };
  }

  private forget(id: string): void {
    this.evicted.delete(id);
    this.evicted.add(id);
    if (this.evicted.size > MAX_EVICTED_IDS) this.evicted.delete(this.evicted.values().next().value as string);
  }
}
