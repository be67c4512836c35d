/**
 * An append-only log that keeps only its newest `capacity` entries, so a simulator hosting a
 * thousand phones for an hour does not hold every stanza it ever saw. `total` still counts every
 * entry ever appended, for tests that only need "how many since". Trimming happens in chunks of a
 * quarter of the capacity so appends stay O(1) amortised.
 */
export class BoundedLog<T> {
  private entries: T[] = []
  private dropped = 0

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer, got ${capacity}`)
  }

  push(entry: T): void {
    this.entries.push(entry)
    const slack = Math.max(1, Math.floor(this.capacity / 4))
    if (this.entries.length >= this.capacity + slack) {
      const excess = this.entries.length - this.capacity
      this.entries = this.entries.slice(excess)
      this.dropped += excess
    }
  }

  /** Entries appended since the log was created, including those no longer kept. */
  get total(): number {
    return this.dropped + this.entries.length
  }

  /** The entries still kept (at most `capacity`, newest last). */
  get retained(): readonly T[] {
    return this.entries.length > this.capacity ? this.entries.slice(this.entries.length - this.capacity) : this.entries
  }

  some(predicate: (entry: T) => boolean): boolean {
    return this.retained.some(predicate)
  }
}
