import { Buffer } from "node:buffer";
import { approxBytesForTokens, countNewlines, cutLines, type LineCut } from "./truncate.js";

/**
 * An output as the model formatting needs it: the whole of it when small, else its head and tail plus
 * exact byte and line counts, so cutting it gives the same text as cutting the whole.
 */
export class CollectedOutput {
  /** The first bytes: all of them when `complete` (then the same buffer as `tail`). */
  readonly head: Buffer;
  /** The last bytes. */
  readonly tail: Buffer;
  readonly totalBytes: number;
  /** `\n` bytes in the whole output. */
  readonly newlines: number;
  readonly endsWithNewline: boolean;

  constructor(head: Buffer, tail: Buffer, totalBytes: number, newlines: number, endsWithNewline: boolean) {
    this.head = head;
    this.tail = tail;
    this.totalBytes = totalBytes;
    this.newlines = newlines;
    this.endsWithNewline = endsWithNewline;
  }

  /** The whole of `bytes`. */
  static whole(bytes: Buffer): CollectedOutput {
    return new CollectedOutput(
      bytes,
      bytes,
      bytes.length,
      countNewlines(bytes, 0, bytes.length),
      bytes[bytes.length - 1] === 0x0a,
    );
  }

  static of(text: string): CollectedOutput {
    return CollectedOutput.whole(Buffer.from(text, "utf8"));
  }

  get complete(): boolean {
    return this.head === this.tail;
  }

  /** The same output with `prefix` before it. */
  withPrefix(prefix: string): CollectedOutput {
    if (prefix === "") return this;
    const bytes = Buffer.from(prefix, "utf8");
    if (this.complete) return CollectedOutput.whole(Buffer.concat([bytes, this.head]));
    return new CollectedOutput(
      Buffer.concat([bytes, this.head]),
      this.tail,
      this.totalBytes + bytes.length,
      this.newlines + countNewlines(bytes, 0, bytes.length),
      this.endsWithNewline,
    );
  }

  /** Rust's `str::lines().count()` of the whole output. */
  lineCount(): number {
    if (this.totalBytes === 0) return 0;
    return this.endsWithNewline ? this.newlines : this.newlines + 1;
  }

  /** Whether `cut` leaves anything out. */
  needsCut(maxTokens: number): boolean {
    return !this.complete || this.totalBytes > approxBytesForTokens(maxTokens);
  }

  /** `cutLines` of the whole output, computed from its head and tail; lines numbered from `lineOffset + 1`. */
  cut(maxTokens: number, lineOffset = 0): LineCut {
    return cutLines(this, maxTokens, lineOffset);
  }

  /** The whole output as text, or null when only its head and tail were kept. */
  text(): string | null {
    return this.complete ? this.head.toString("utf8") : null;
  }
}
