// A chunk at least this large that fills most of its buffer (a read's own chunk, not a small slice of a
// larger one) is kept by reference until newer chunks push it out of the tail, or the tail is read:
// most of a long output then is never copied. What such chunks hold on to stays under twice the
// capacity plus one chunk.
const DEFER_MIN_BYTES = 4096;

/**
 * The last `capacity` bytes of a stream, in a ring that grows up to its capacity. A small chunk is
 * copied in, so that it cannot hold on to the larger buffer it was cut from; a large one is kept as it
 * is until it leaves the tail or the tail is read, unless `copy` says to copy every chunk: a tail of
 * megabytes would keep its chunks long enough for the garbage collector to move them to the old
 * generation, whose collections (one each time such buffers add up to tens of MiB) cost more than the
 * copy.
 */
export class TailBuffer {
  readonly #capacity: number;
  readonly #byReference: boolean;
  #ring: Buffer = Buffer.alloc(0);
  #start = 0;
  #length = 0;
  // Chunks kept by reference, newer than what the ring holds, oldest first; and their total.
  #deferred: Buffer[] = [];
  #deferredBytes = 0;

  constructor(capacity: number, options: { readonly copy?: boolean } = {}) {
    this.#capacity = capacity;
    this.#byReference = options.copy !== true;
  }

  get length(): number {
    return Math.min(this.#capacity, this.#length + this.#deferredBytes);
  }

  push(chunk: Buffer): void {
    if (this.#byReference && chunk.length >= DEFER_MIN_BYTES && chunk.length * 2 >= chunk.buffer.byteLength) {
      this.#deferred.push(chunk);
      this.#deferredBytes += chunk.length;
      // The oldest goes once the newer ones fill the tail without it; then the ring is all older too.
      while (
        this.#deferred.length > 1 &&
        this.#deferredBytes - (this.#deferred[0] as Buffer).length >= this.#capacity
      ) {
        this.#deferredBytes -= (this.#deferred.shift() as Buffer).length;
      }
      if (this.#deferredBytes >= this.#capacity) {
        this.#start = 0;
        this.#length = 0;
      }
      return;
    }
    this.#flush();
    this.#copyIn(chunk);
  }

  /** The last `count` bytes (all when larger), in order, copied into `target` from its start. */
  copyTo(target: Buffer, count: number): number {
    this.#flush();
    return this.#ringCopyTo(target, count);
  }

  /** The last `count` bytes (all by default), as one new buffer. */
  tail(count: number = this.length): Buffer {
    this.#flush();
    const out = Buffer.allocUnsafe(Math.min(count, this.#length));
    this.#ringCopyTo(out, out.length);
    return out;
  }

  #flush(): void {
    if (this.#deferred.length === 0) return;
    const deferred = this.#deferred;
    this.#deferred = [];
    this.#deferredBytes = 0;
    for (const chunk of deferred) this.#copyIn(chunk);
  }

  #copyIn(chunk: Buffer): void {
    const data = chunk.length > this.#capacity ? chunk.subarray(chunk.length - this.#capacity) : chunk;
    if (this.#ring.length < this.#capacity && this.#length + data.length > this.#ring.length) {
      // Copying every chunk, it grows at once to its capacity: the memory is the system's to give only
      // as it is written, and no smaller ring is left behind for the garbage collector.
      const grown = Buffer.allocUnsafe(
        this.#byReference
          ? Math.min(this.#capacity, Math.max(4096, 2 * (this.#length + data.length)))
          : this.#capacity,
      );
      this.#ringCopyTo(grown, this.#length);
      this.#ring = grown;
      this.#start = 0;
    }
    const size = this.#ring.length;
    let end = (this.#start + this.#length) % size;
    const first = Math.min(data.length, size - end);
    data.copy(this.#ring, end, 0, first);
    data.copy(this.#ring, 0, first);
    end = (end + data.length) % size;
    this.#length = Math.min(size, this.#length + data.length);
    this.#start = (end - this.#length + size) % size;
  }

  #ringCopyTo(target: Buffer, count: number): number {
    const n = Math.min(count, this.#length);
    const size = this.#ring.length;
    const from = (this.#start + this.#length - n) % (size || 1);
    const first = Math.min(n, size - from);
    this.#ring.copy(target, 0, from, from + first);
    this.#ring.copy(target, first, 0, n - first);
    return n;
  }
}
