import { Buffer } from "node:buffer";
import { CollectedOutput } from "./collected-output.js";
import { TailBuffer } from "./tail-buffer.js";
import { countNewlines } from "./truncate.js";

/**
 * A stream of model text (already cleaned, as UTF-8) kept for a cut: its first `headCapacity` bytes,
 * its last `tailCapacity` bytes past those, and exact byte and line counts, whatever its length. Both
 * parts grow as text comes, so a short stream costs little whatever the capacities.
 */
export class TextWindow {
  readonly #headCapacity: number;
  #head: Buffer = Buffer.alloc(0);
  #headBytes = 0;
  readonly #tail: TailBuffer;
  #total = 0;
  #newlines = 0;
  #endsWithNewline = false;

  /** `copy`: keep nothing of a pushed buffer but copies (its memory is reused after the push). */
  constructor(headCapacity: number, tailCapacity: number, options: { readonly copy?: boolean } = {}) {
    this.#headCapacity = headCapacity;
    this.#tail = new TailBuffer(Math.max(1, tailCapacity), options);
  }

  get totalBytes(): number {
    return this.#total;
  }

  /** `\n` bytes so far. */
  get newlines(): number {
    return this.#newlines;
  }

  /** The text so far, when the head holds all of it; else null. */
  whole(): Buffer | null {
    return this.#total === this.#headBytes ? this.#head.subarray(0, this.#headBytes) : null;
  }

  push(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.#total += bytes.length;
    this.#newlines += countNewlines(bytes, 0, bytes.length);
    this.#endsWithNewline = bytes[bytes.length - 1] === 0x0a;
    const room = this.#headCapacity - this.#headBytes;
    const taken = Math.min(room, bytes.length);
    if (taken > 0) {
      this.#reserveHead(this.#headBytes + taken);
      bytes.copy(this.#head, this.#headBytes, 0, taken);
      this.#headBytes += taken;
    }
    // The tail only needs what the head could not take: past head and tail capacity, the last bytes are
    // all past the head, and short of it, head and tail together are the whole.
    if (taken < bytes.length) this.#tail.push(bytes.subarray(taken));
  }

  #reserveHead(size: number): void {
    if (size <= this.#head.length) return;
    const grown = Buffer.allocUnsafe(
      Math.min(this.#headCapacity, Math.max(size, 2 * this.#head.length, 4096)),
    );
    this.#head.copy(grown, 0, 0, this.#headBytes);
    this.#head = grown;
  }

  /** What was pushed, as a cut needs it (copies: the window may go on). */
  collected(): CollectedOutput {
    const head = Buffer.from(this.#head.subarray(0, this.#headBytes));
    const past = this.#tail.tail();
    const counts = [this.#total, this.#newlines, this.#endsWithNewline] as const;
    if (this.#headBytes + past.length === this.#total) {
      const whole = past.length === 0 ? head : Buffer.concat([head, past]);
      return new CollectedOutput(whole, whole, ...counts);
    }
    return new CollectedOutput(head, past, ...counts);
  }
}
