import { Buffer } from "node:buffer";
import { approxBytesForTokens } from "../format/truncate.js";
import type { SpillFile, SpillResult, SpillStore } from "../spill/spill-store.js";
import { CollectedOutput, countNewlines } from "./collected-output.js";

// Room past the budget: enough to see whether the byte at the cut starts a character, and for a
// timeout notice in front of the output.
const HEAD_SLACK_BYTES = 64;
// NUL bytes here mean the output is binary (DESIGN.md §6).
const BINARY_SNIFF_BYTES = 4096;

export interface CollectorOptions {
  /** The budget the output will be truncated to; head and tail are kept for it. */
  readonly maxTokens: number;
  /** Where output too long for the budget is saved in full; null to save nothing. */
  readonly spill: SpillStore | null;
  /** A word for the spill file's name (the tool). */
  readonly label: string;
}

export interface CollectorResult {
  readonly output: CollectedOutput;
  /** NUL bytes in the first 4 KiB. */
  readonly binary: boolean;
  /** The spill file, when the output outgrew `maxTokens` (or was binary) and a store was given. */
  readonly spill: SpillResult | null;
  /** Why the spill file could not be written, when it could not. */
  readonly spillError: string | null;
}

/**
 * Takes a command's output as it arrives (stdout and stderr in arrival order) and keeps what the model
 * text needs: the head and tail for the token budget, byte and line counts. Once the output outgrows
 * the budget, all of it is streamed to a spill file too, so memory stays bounded whatever its size.
 */
export class OutputCollector {
  readonly #headCapacity: number;
  readonly #tailCapacity: number;
  readonly #spillStore: SpillStore | null;
  readonly #label: string;
  readonly #head: Buffer;
  #headBytes = 0;
  // The tail ring: the last `#tailCapacity` bytes of all output, the oldest at `#tailBytes % #tailCapacity`
  // once full. Written in full; only read when the output outgrew the head.
  readonly #tail: Buffer;
  #tailBytes = 0;
  #total = 0;
  #newlines = 0;
  #lastByte = -1;
  #binary = false;
  #spill: Promise<SpillFile> | null = null;
  #spillError: string | null = null;

  /** The budget the collector keeps head and tail for. */
  readonly maxTokens: number;

  constructor(options: CollectorOptions) {
    this.maxTokens = options.maxTokens;
    const budget = approxBytesForTokens(options.maxTokens);
    this.#headCapacity = budget + HEAD_SLACK_BYTES;
    this.#tailCapacity = Math.max(budget, 1);
    this.#head = Buffer.alloc(this.#headCapacity);
    this.#tail = Buffer.alloc(this.#tailCapacity);
    this.#spillStore = options.spill;
    this.#label = options.label;
  }

  /** Takes one chunk; the promise (when there is one) settles once the chunk is in the spill file. */
  push(chunk: Uint8Array): Promise<void> | undefined {
    if (chunk.length === 0) return undefined;
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!this.#binary && this.#total < BINARY_SNIFF_BYTES) {
      this.#binary = data.subarray(0, BINARY_SNIFF_BYTES - this.#total).includes(0);
    }
    this.#total += data.length;
    this.#newlines += countNewlines(data);
    this.#lastByte = data[data.length - 1] as number;
    const room = this.#headCapacity - this.#headBytes;
    if (room > 0) this.#headBytes += data.copy(this.#head, this.#headBytes, 0, Math.min(room, data.length));
    const rest = room >= data.length ? null : data.subarray(Math.max(room, 0));
    this.#pushTail(data);
    if (this.#total <= this.#headCapacity || this.#spillStore === null || this.#spillError !== null)
      return undefined;
    if (this.#spill === null) {
      // The first time the output outgrows the head: everything so far is the head plus this chunk's rest.
      const store = this.#spillStore;
      const head = Buffer.from(this.#head.subarray(0, this.#headBytes));
      this.#spill = store.open({ label: this.#label }).then(async (file) => {
        await file.append(head);
        if (rest !== null) await file.append(rest);
        return file;
      });
      return this.#settle(this.#spill.then(() => undefined));
    }
    return this.#settle(this.#spill.then((file) => file.append(data)));
  }

  #pushTail(data: Buffer): void {
    const size = this.#tailCapacity;
    const bytes = data.length > size ? data.subarray(data.length - size) : data;
    let at = (this.#tailBytes + (data.length - bytes.length)) % size;
    this.#tailBytes += data.length - bytes.length;
    let rest = bytes;
    while (rest.length > 0) {
      const n = rest.copy(this.#tail, at, 0, Math.min(rest.length, size - at));
      rest = rest.subarray(n);
      this.#tailBytes += n;
      at = (at + n) % size;
    }
  }

  // A failing spill must not fail the command: the model text says the full output was not saved.
  #settle(pending: Promise<void>): Promise<void> {
    return pending.catch((error: unknown) => {
      this.#spillError ??= error instanceof Error ? error.message : String(error);
    });
  }

  /** The collected output, its spill file finished when `keepSpill` says the text will point to it. */
  async finish(keepSpill: (output: CollectedOutput, binary: boolean) => boolean): Promise<CollectorResult> {
    const output = this.#collected();
    let spill: SpillResult | null = null;
    if (this.#spillStore !== null && this.#spillError === null && keepSpill(output, this.#binary)) {
      try {
        if (this.#spill === null) {
          spill = await this.#spillStore.write(this.#head.subarray(0, this.#headBytes), {
            label: this.#label,
          });
        } else {
          spill = await (await this.#spill).finish();
        }
      } catch (error) {
        this.#spillError = error instanceof Error ? error.message : String(error);
      }
    } else {
      await this.discard();
    }
    return { output, binary: this.#binary, spill, spillError: this.#spillError };
  }

  /** The head and tail as text (all of it when short): what a denial check or an excerpt reads. */
  sampleText(): string {
    const output = this.#collected();
    return output.complete
      ? output.head.toString("utf8")
      : `${output.head.toString("utf8")}\n${output.tail.toString("utf8")}`;
  }

  /** Drops the spill file, if one was started. */
  async discard(): Promise<void> {
    const pending = this.#spill;
    this.#spill = null;
    if (pending !== null) await pending.then((file) => file.abort()).catch(() => undefined);
  }

  #collected(): CollectedOutput {
    const head = Buffer.from(this.#head.subarray(0, this.#headBytes));
    const endsWithNewline = this.#lastByte === 0x0a;
    if (this.#total === this.#headBytes) {
      return new CollectedOutput(head, Buffer.alloc(0), this.#total, this.#newlines, endsWithNewline);
    }
    const size = this.#tailCapacity;
    const kept = Math.min(this.#tailBytes, size);
    const start = this.#tailBytes > size ? this.#tailBytes % size : 0;
    const tail = Buffer.concat([
      this.#tail.subarray(start, start + kept),
      this.#tail.subarray(0, Math.max(0, start + kept - size)),
    ]);
    return new CollectedOutput(head, tail.subarray(0, kept), this.#total, this.#newlines, endsWithNewline);
  }
}
