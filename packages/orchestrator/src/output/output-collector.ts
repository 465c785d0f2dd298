import { Buffer, isAscii } from "node:buffer";
import { StringDecoder } from "node:string_decoder";
import { approxBytesForTokens } from "../format/truncate.js";
import type { SpillFile, SpillResult, SpillStore } from "../spill/spill-store.js";
import { CollectedOutput } from "./collected-output.js";
import { TerminalTextFilter } from "./terminal-text.js";

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
  /** The text the model reads: cleaned of terminal control codes (see TerminalTextFilter). */
  readonly output: CollectedOutput;
  /** NUL bytes in the first 4 KiB. */
  readonly binary: boolean;
  /** Bytes the command wrote, as the spill file holds them. */
  readonly rawBytes: number;
  /** Removals the cleaning made (sequences, `\r`s and backspaces applied, characters dropped). */
  readonly removedControls: number;
  /** The spill file, when the output outgrew `maxTokens` (or was binary) and a store was given. */
  readonly spill: SpillResult | null;
  /** Why the spill file could not be written, when it could not. */
  readonly spillError: string | null;
}

/**
 * Takes a command's output as it arrives (stdout and stderr in arrival order) and keeps what the model
 * text needs: the output cleaned of terminal control codes as it streams in, so the budget counts what
 * the model will read, and of that text the head and tail for the token budget, byte and line counts.
 * Once the raw output outgrows the budget, all of it is streamed, as written, to a spill file too, so
 * memory stays bounded whatever its size.
 */
export class OutputCollector {
  readonly #headCapacity: number;
  readonly #tailCapacity: number;
  readonly #spillStore: SpillStore | null;
  readonly #label: string;
  // Node's decoder: four times as fast as TextDecoder on plain text. Invalid UTF-8 becomes U+FFFD; a
  // character split between chunks waits for its end.
  readonly #decoder = new StringDecoder("utf8");
  readonly #filter = new TerminalTextFilter();
  #ended = false;
  #removed = 0;
  // The raw bytes, until a spill file takes them over.
  readonly #rawHead: Buffer;
  #rawHeadBytes = 0;
  #rawTotal = 0;
  // The rest is of the cleaned text.
  readonly #head: Buffer;
  #headBytes = 0;
  // The tail ring: the last `#tailCapacity` bytes of all output, the oldest at `#tailBytes % #tailCapacity`
  // once full. Written in full; only read when the output outgrew the head.
  readonly #tail: Buffer;
  #tailBytes = 0;
  #total = 0;
  #newlines = 0;
  #endsWithNewline = false;
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
    this.#rawHead = Buffer.alloc(this.#headCapacity);
    this.#head = Buffer.alloc(this.#headCapacity);
    this.#tail = Buffer.alloc(this.#tailCapacity);
    this.#spillStore = options.spill;
    this.#label = options.label;
  }

  /** Takes one chunk; the promise (when there is one) settles once the chunk is in the spill file. */
  push(chunk: Uint8Array): Promise<void> | undefined {
    if (chunk.length === 0) return undefined;
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!this.#binary && this.#rawTotal < BINARY_SNIFF_BYTES) {
      this.#binary = data.subarray(0, BINARY_SNIFF_BYTES - this.#rawTotal).includes(0);
    }
    // Binary output is summarised, not shown: there is no text to clean. An ASCII chunk decodes to
    // ASCII, but for a U+FFFD in place of a character the chunk before left unfinished.
    if (!this.#binary) this.#take(this.#filter.write(this.#decoder.write(data), isAscii(data)));
    this.#rawTotal += data.length;
    const room = this.#headCapacity - this.#rawHeadBytes;
    if (room > 0) {
      this.#rawHeadBytes += data.copy(this.#rawHead, this.#rawHeadBytes, 0, Math.min(room, data.length));
    }
    const rest = room >= data.length ? null : data.subarray(Math.max(room, 0));
    if (this.#rawTotal <= this.#headCapacity || this.#spillStore === null || this.#spillError !== null)
      return undefined;
    if (this.#spill === null) {
      // The first time the output outgrows the head: everything so far is the head plus this chunk's rest.
      const store = this.#spillStore;
      const head = Buffer.from(this.#rawHead.subarray(0, this.#rawHeadBytes));
      this.#spill = store.open({ label: this.#label }).then(async (file) => {
        await file.append(head);
        if (rest !== null) await file.append(rest);
        return file;
      });
      return this.#settle(this.#spill.then(() => undefined));
    }
    return this.#settle(this.#spill.then((file) => file.append(data)));
  }

  /** Cleaned text: counted, and kept in the head and the tail. */
  #take(text: string): void {
    if (text === "") return;
    this.#total += Buffer.byteLength(text, "utf8");
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.#newlines++;
    this.#endsWithNewline = text.endsWith("\n");
    const room = this.#headCapacity - this.#headBytes;
    if (room > 0) {
      const bytes = Buffer.from(text, "utf8");
      this.#headBytes += bytes.copy(this.#head, this.#headBytes, 0, Math.min(room, bytes.length));
      this.#pushTail(bytes);
      return;
    }
    // Only the last bytes can reach the tail, and each character is at least one byte: encoding one
    // character more than the tail holds is enough, and the first is dropped when it is half a pair.
    const from = Math.max(0, text.length - this.#tailCapacity - 1);
    const first = text.charCodeAt(from);
    const last = text.slice(first >= 0xdc00 && first <= 0xdfff ? from + 1 : from);
    this.#pushTail(Buffer.from(last, "utf8"));
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
          spill = await this.#spillStore.write(this.#rawHead.subarray(0, this.#rawHeadBytes), {
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
    return {
      output,
      binary: this.#binary,
      rawBytes: this.#rawTotal,
      removedControls: this.#removed,
      spill,
      spillError: this.#spillError,
    };
  }

  /**
   * The head and tail of the cleaned text (all of it when short): what a denial check or an excerpt
   * reads. Like `finish`, it ends the text: call it after the last chunk.
   */
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
    if (!this.#ended) {
      // The last line, held in case a `\r` replaced it, and a character cut short at the very end.
      this.#ended = true;
      if (!this.#binary) this.#take(this.#filter.write(this.#decoder.end()) + this.#filter.end());
      this.#removed = this.#filter.takeRemoved();
    }
    const head = Buffer.from(this.#head.subarray(0, this.#headBytes));
    const endsWithNewline = this.#endsWithNewline;
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
