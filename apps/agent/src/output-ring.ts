// A process's output as numbered chunks, kept until the reader acknowledges them. Past the ring's size,
// the oldest chunks already read go first (the reader has them); output not yet read is kept, and its
// owner stops taking more (`backlogged`) until a read drains it, so nothing is lost while a reader
// reads. Only past twice the size (output that came while the source was being stopped, or a reader that
// never reads) is unread output dropped, oldest first, and a reader that had not read it is told how many
// bytes it missed.

export interface RingChunk {
  readonly seq: number;
  readonly data: Buffer;
}

export interface RingRead {
  readonly chunks: readonly RingChunk[];
  readonly nextSeq: number;
  readonly droppedBytes: number;
}

export class OutputRing {
  readonly #maxBytes: number;
  readonly #chunks: RingChunk[] = [];
  // Chunks dropped unread for lack of room, by sequence number (sizes only), until acknowledged.
  readonly #dropped: { seq: number; bytes: number }[] = [];
  #bytes = 0;
  #nextSeq = 1;
  /** The last sequence number a read returned. */
  #readSeq = 0;

  constructor(maxBytes: number) {
    if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
      throw new RangeError(`maxBytes: expected a positive integer, received ${maxBytes}`);
    }
    this.#maxBytes = maxBytes;
  }

  get nextSeq(): number {
    return this.#nextSeq;
  }

  /** Chunks kept, not yet acknowledged. */
  get held(): number {
    return this.#chunks.length;
  }

  /** Appends `data` as the next chunk; returns its sequence number. */
  push(data: Buffer): number {
    const seq = this.#nextSeq++;
    this.#chunks.push({ seq, data });
    this.#bytes += data.length;
    while (this.#bytes > this.#maxBytes && this.#chunks.length > 0) {
      const oldest = this.#chunks[0] as RingChunk;
      const read = oldest.seq <= this.#readSeq;
      if (!read && this.#bytes <= 2 * this.#maxBytes) break;
      this.#chunks.shift();
      this.#bytes -= oldest.data.length;
      if (!read) this.#dropped.push({ seq: oldest.seq, bytes: oldest.data.length });
    }
    return seq;
  }

  /** Whether output not yet read fills the ring: its source should stop until a read drains it. */
  get backlogged(): boolean {
    return this.#unreadBytes() >= this.#maxBytes;
  }

  #unreadBytes(): number {
    let bytes = 0;
    for (let index = this.#chunks.length - 1; index >= 0; index--) {
      const chunk = this.#chunks[index] as RingChunk;
      if (chunk.seq <= this.#readSeq) break;
      bytes += chunk.data.length;
    }
    return bytes;
  }

  /** The chunks after `afterSeq`, at most `maxBytes` of them (always at least one when there is one). */
  read(afterSeq: number, maxBytes: number = Number.POSITIVE_INFINITY): RingRead {
    const chunks: RingChunk[] = [];
    let bytes = 0;
    for (const chunk of this.#chunks) {
      if (chunk.seq <= afterSeq) continue;
      if (chunks.length > 0 && bytes + chunk.data.length > maxBytes) break;
      chunks.push(chunk);
      bytes += chunk.data.length;
    }
    const droppedBytes = this.#dropped.reduce((sum, d) => (d.seq > afterSeq ? sum + d.bytes : sum), 0);
    const last = chunks.at(-1);
    if (last !== undefined && last.seq > this.#readSeq) this.#readSeq = last.seq;
    return {
      chunks,
      nextSeq: last === undefined ? Math.max(afterSeq + 1, this.#firstHeld()) : last.seq + 1,
      droppedBytes,
    };
  }

  /** The reader has everything up to `seq`: the agent need not keep it. */
  ack(seq: number): void {
    while (this.#chunks.length > 0 && (this.#chunks[0] as RingChunk).seq <= seq) {
      this.#bytes -= (this.#chunks.shift() as RingChunk).data.length;
    }
    while (this.#dropped.length > 0 && (this.#dropped[0] as { seq: number }).seq <= seq)
      this.#dropped.shift();
  }

  #firstHeld(): number {
    return this.#chunks[0]?.seq ?? this.#nextSeq;
  }
}
