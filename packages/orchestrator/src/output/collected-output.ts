import { Buffer } from "node:buffer";
import { type TruncationResult, truncateBytes, truncateMiddle } from "../format/truncate.js";

const NEWLINE = 0x0a;

/**
 * A command's output as the model formatting needs it: the whole of it when small, else its head and
 * tail plus exact byte and line counts, so truncating it gives the same text as truncating the whole.
 */
export class CollectedOutput {
  /** The first bytes (all of them when `complete`). */
  readonly head: Buffer;
  /** The last bytes; empty when `complete`. */
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

  static of(text: string): CollectedOutput {
    const bytes = Buffer.from(text, "utf8");
    return new CollectedOutput(
      bytes,
      Buffer.alloc(0),
      bytes.length,
      countNewlines(bytes),
      text.endsWith("\n"),
    );
  }

  get complete(): boolean {
    return this.head.length === this.totalBytes;
  }

  /** The same output with `prefix` before it. */
  withPrefix(prefix: string): CollectedOutput {
    if (prefix === "") return this;
    const bytes = Buffer.from(prefix, "utf8");
    const endsWithNewline = this.totalBytes === 0 ? prefix.endsWith("\n") : this.endsWithNewline;
    return new CollectedOutput(
      Buffer.concat([bytes, this.head]),
      this.tail,
      this.totalBytes + bytes.length,
      this.newlines + countNewlines(bytes),
      endsWithNewline,
    );
  }

  /** Rust's `str::lines().count()` of the whole output. */
  lineCount(): number {
    if (this.totalBytes === 0) return 0;
    return this.endsWithNewline ? this.newlines : this.newlines + 1;
  }

  /** `truncateMiddle` of the whole output, computed from its head and tail. */
  truncate(maxTokens: number): TruncationResult {
    if (this.complete) return truncateMiddle(this.head.toString("utf8"), maxTokens);
    return truncateBytes(this.head, this.tail, this.totalBytes, maxTokens);
  }

  /** The whole output as text, or null when only its head and tail were kept. */
  text(): string | null {
    return this.complete ? this.head.toString("utf8") : null;
  }
}

function countNewlines(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  return n;
}
