// One numeric column of a managed history (roles, tokens, flags, tool units) as a typed array that
// grows by doubling. A trim hands the columns to the core as they are: kept as arrays of numbers,
// each trim of 10,000 messages copied all four into typed arrays first (about 60 µs), and read
// eight times the memory.

/** The typed arrays a column is kept in. */
export type ColumnArray = Uint8Array | Uint32Array | Int32Array;

/** A typed array's constructor. */
type ColumnType<T extends ColumnArray> = { new (length: number): T; from(values: ArrayLike<number>): T };

export class NumberColumn<T extends ColumnArray> {
  private data: T;
  private size = 0;
  /** values' view, made again after a change of length or of buffer. */
  private view: T | undefined;

  constructor(private readonly Type: ColumnType<T>) {
    this.data = new Type(16);
  }

  get length(): number {
    return this.size;
  }

  /** The column's values: a view of its buffer, current until the next change of length. */
  get values(): T {
    if (this.view === undefined) this.view = this.data.subarray(0, this.size) as T;
    return this.view;
  }

  at(index: number): number {
    return this.data[index] as number;
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  /** Puts `value` at `index`, the values from there on one place later. */
  insert(index: number, value: number): void {
    if (this.size === this.data.length) this.reserve(this.size * 2);
    if (index < this.size) this.data.copyWithin(index + 1, index, this.size);
    this.data[index] = value;
    this.size++;
    this.view = undefined;
  }

  /** Replaces every value. */
  assign(values: ArrayLike<number>): void {
    this.data = this.Type.from(values);
    this.size = this.data.length;
    this.view = undefined;
  }

  /** Keeps the values at `runs` (flat start, end pairs, ascending), in order. */
  keepRuns(runs: readonly number[]): void {
    this.replaceData(this.gather(runs, 16), lengthOfRuns(runs));
  }

  /** The values at `runs` (flat start, end pairs, ascending), in order, in a typed array at least `minLength` long. */
  gather(runs: readonly number[], minLength = 0): T {
    const out = new this.Type(Math.max(minLength, lengthOfRuns(runs)));
    for (let r = 0, at = 0; r < runs.length; r += 2) {
      const from = runs[r] as number;
      const to = runs[r + 1] as number;
      out.set(this.data.subarray(from, to), at);
      at += to - from;
    }
    return out;
  }

  /** Keeps the values at `indices`, in that order. */
  keepIndices(indices: readonly number[]): void {
    const next = new this.Type(Math.max(16, indices.length));
    for (let k = 0; k < indices.length; k++) next[k] = this.data[indices[k] as number] as number;
    this.replaceData(next, indices.length);
  }

  /** The sum of the values. */
  sum(): number {
    let total = 0;
    for (let i = 0; i < this.size; i++) total += this.data[i] as number;
    return total;
  }

  private reserve(capacity: number): void {
    const next = new this.Type(Math.max(16, capacity));
    next.set(this.data.subarray(0, this.size));
    this.data = next;
    this.view = undefined;
  }

  private replaceData(next: T, size: number): void {
    this.data = next;
    this.size = size;
    this.view = undefined;
  }
}

/** How many values `runs` (flat start, end pairs) span. */
function lengthOfRuns(runs: readonly number[]): number {
  let n = 0;
  for (let r = 0; r < runs.length; r += 2) n += (runs[r + 1] as number) - (runs[r] as number);
  return n;
}
