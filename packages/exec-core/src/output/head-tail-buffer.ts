import { expectedReceived } from "@conch/protocol";
/**
 * Keeps the first and last bytes of a stream of any length in fixed memory: `capacity` bytes at most, half
 * for the head and half for the tail, and counts what fell out of the middle.
 */
export class HeadTailBuffer {
  readonly capacity: number;
  readonly #headCapacity: number;
  readonly #tailCapacity: number;
  // Both grow on demand, so a short output costs little whatever the capacity.
  #head: Buffer = Buffer.alloc(0);
  #headLength = 0;
  #tail: Buffer = Buffer.alloc(0);
  #tailStart = 0;
  #tailLength = 0;
  #total = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) {
      throw new RangeError(expectedReceived("capacity", "an integer >= 2", capacity));
    }
    this.capacity = capacity;
    this.#headCapacity = Math.floor(capacity / 2);
    this.#tailCapacity = capacity - this.#headCapacity;
  }

  /** An independent copy holding the same bytes and counts. */
  clone(): HeadTailBuffer {
    const copy = new HeadTailBuffer(this.capacity);
    copy.#head = Buffer.from(this.#head);
    copy.#headLength = this.#headLength;
    copy.#tail = Buffer.from(this.#tail);
    copy.#tailStart = this.#tailStart;
    copy.#tailLength = this.#tailLength;
    copy.#total = this.#total;
    return copy;
  }

  /** Bytes pushed in all. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Bytes pushed but no longer held. */
  get omittedBytes(): number {
    return this.#total - this.#headLength - this.#tailLength;
  }

  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    let data = chunk;
    if (this.#headLength < this.#headCapacity) {
      const n = Math.min(data.length, this.#headCapacity - this.#headLength);
      this.#reserveHead(this.#headLength + n);
      this.#head.set(data.subarray(0, n), this.#headLength);
      this.#headLength += n;
      data = data.subarray(n);
    }
    if (data.length === 0) return;
    if (this.#tail.length === 0) this.#tail = Buffer.allocUnsafe(this.#tailCapacity);
    const cap = this.#tail.length;
    if (data.length >= cap) {
      this.#tail.set(data.subarray(data.length - cap));
      this.#tailStart = 0;
      this.#tailLength = cap;
      return;
    }
    let end = (this.#tailStart + this.#tailLength) % cap;
    const first = Math.min(data.length, cap - end);
    this.#tail.set(data.subarray(0, first), end);
    this.#tail.set(data.subarray(first), 0);
    end = (end + data.length) % cap;
    const length = Math.min(cap, this.#tailLength + data.length);
    this.#tailStart = (end - length + cap) % cap;
    this.#tailLength = length;
  }

  #reserveHead(size: number): void {
    if (size <= this.#head.length) return;
    const grown = Buffer.allocUnsafe(
      Math.min(this.#headCapacity, Math.max(size, 2 * this.#head.length, 4096)),
    );
    this.#head.copy(grown, 0, 0, this.#headLength);
    this.#head = grown;
  }

  /** The first retained bytes (the head), a view valid until the next push. */
  head(): Buffer {
    return this.#head.subarray(0, this.#headLength);
  }

  /** The last retained bytes (the tail), copied into one buffer. */
  tail(): Buffer {
    const cap = this.#tail.length;
    if (cap === 0) return Buffer.alloc(0);
    const firstPart = Math.min(this.#tailLength, cap - this.#tailStart);
    return Buffer.concat([
      this.#tail.subarray(this.#tailStart, this.#tailStart + firstPart),
      this.#tail.subarray(0, this.#tailLength - firstPart),
    ]);
  }

  /**
   * The retained text, decoded as UTF-8. When the middle was dropped, the cut is moved off any split
   * character (those bytes count as omitted) and `... N bytes omitted ...` stands in its place.
   */
  text(): string {
    return this.#decode(false).text;
  }

  /**
   * `text()` for a stream that goes on: a character whose last bytes have not arrived yet is left out
   * and returned as `rest`, to be put in front of what comes next.
   */
  textSoFar(): { text: string; rest: Buffer } {
    return this.#decode(true);
  }

  #decode(keepRest: boolean): { text: string; rest: Buffer } {
    const head = this.head();
    const tail = this.tail();
    if (this.omittedBytes === 0) {
      const all = Buffer.concat([head, tail]);
      const end = keepRest ? completeUtf8Prefix(all) : all.length;
      return { text: all.toString("utf8", 0, end), rest: Buffer.from(all.subarray(end)) };
    }
    const headEnd = completeUtf8Prefix(head);
    const tailStart = firstUtf8Boundary(tail);
    const tailEnd = keepRest ? completeUtf8Prefix(tail) : tail.length;
    const omitted = this.omittedBytes + (head.length - headEnd) + tailStart;
    return {
      text: `${head.toString("utf8", 0, headEnd)}\n... ${omitted} bytes omitted ...\n${tail.toString("utf8", tailStart, tailEnd)}`,
      rest: Buffer.from(tail.subarray(tailEnd)),
    };
  }
}

/** Length of the longest prefix of `bytes` that does not end inside a multi-byte UTF-8 sequence. */
function completeUtf8Prefix(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** Index of the first byte in `bytes` that is not a UTF-8 continuation byte (at most 3 skipped). */
function firstUtf8Boundary(bytes: Buffer): number {
  let i = 0;
  while (i < 3 && i < bytes.length && ((bytes[i] as number) & 0xc0) === 0x80) i++;
  return i;
}
