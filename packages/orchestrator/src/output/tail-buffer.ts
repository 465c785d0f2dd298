/**
 * The last `capacity` bytes of a stream, copied into a ring that grows up to its capacity: a chunk is
 * never kept by reference, so a one-byte chunk cannot hold on to the larger buffer it was cut from.
 */
export class TailBuffer {
  readonly #capacity: number;
  #ring: Buffer = Buffer.alloc(0);
  #start = 0;
  #length = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get length(): number {
    return this.#length;
  }

  push(chunk: Buffer): void {
    const data = chunk.length > this.#capacity ? chunk.subarray(chunk.length - this.#capacity) : chunk;
    if (this.#ring.length < this.#capacity && this.#length + data.length > this.#ring.length) {
      const grown = Buffer.allocUnsafe(
        Math.min(this.#capacity, Math.max(4096, 2 * (this.#length + data.length))),
      );
      this.copyTo(grown, this.#length);
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

  /** The last `count` bytes (all when larger), in order, copied into `target` from its start. */
  copyTo(target: Buffer, count: number): number {
    const n = Math.min(count, this.#length);
    const size = this.#ring.length;
    const from = (this.#start + this.#length - n) % (size || 1);
    const first = Math.min(n, size - from);
    this.#ring.copy(target, 0, from, from + first);
    this.#ring.copy(target, first, 0, n - first);
    return n;
  }

  /** The last `count` bytes (all by default), as one new buffer. */
  tail(count: number = this.#length): Buffer {
    const out = Buffer.allocUnsafe(Math.min(count, this.#length));
    this.copyTo(out, out.length);
    return out;
  }
}
