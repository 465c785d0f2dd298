import { Buffer, isAscii } from "node:buffer";
import { StringDecoder } from "node:string_decoder";
import type { SpillFile, SpillResult, SpillStore } from "../spill/spill-store.js";
import type { CollectedOutput } from "../text/collected-output.js";
import { isPlainAscii } from "../text/plain-ascii.js";
import { TailBuffer } from "../text/tail-buffer.js";
import { TerminalTextFilter } from "../text/terminal-text.js";
import { TextWindow } from "../text/text-window.js";
import { approxBytesForTokens } from "../text/truncate.js";
import { shellCommandContent } from "./shell-content.js";

// Room past the budget: for a timeout notice in front of the output.
const HEAD_SLACK_BYTES = 64;
// NUL bytes here mean the output is binary (DESIGN.md §6).
const BINARY_SNIFF_BYTES = 4096;
// What a sample-only collector keeps of the end of the output.
const SAMPLE_TAIL_BYTES = 16 * 1024;
// Spill writes run beside the reading; the stream waits for them only once this much is unwritten.
const SPILL_HIGH_WATER_BYTES = 4 * 1024 * 1024;

export interface CollectorOptions {
  /** The budget the output will be cut to; head and tail are kept for it. */
  readonly maxTokens: number;
  /** Where output too long for the budget is saved in full; null to save nothing. */
  readonly spill: SpillStore | null;
  /** A word for the spill file's name (the tool). */
  readonly label: string;
  /**
   * Nobody reads a model text of this output (the CLI streams it to its own stdout): keep only the raw
   * first and last bytes, cleaned once at the end, for a denial check or an excerpt. Nothing is
   * decoded or cleaned as it streams, and `output` is that sample, not the whole text.
   */
  readonly sampleOnly?: boolean;
  /**
   * Each pushed chunk's memory is reused once `push` returns (or its promise settles): the collector
   * keeps copies only (exec-core's `transientChunks`).
   */
  readonly transientChunks?: boolean;
}

export interface CollectorResult {
  /** The text the model reads: cleaned of terminal control codes (see TerminalTextFilter). */
  readonly output: CollectedOutput;
  /** NUL bytes in the first 4 KiB. */
  readonly binary: boolean;
  /** Bytes the command wrote. */
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
 * Once the text outgrows the budget, all of it is streamed to a spill file too, so memory stays bounded
 * whatever its size. The file holds the text the model reads a cut of, so the line numbers the cut
 * names are the file's; binary output, summarised rather than shown, is saved as the bytes written.
 */
export class OutputCollector {
  readonly #headCapacity: number;
  readonly #spillStore: SpillStore | null;
  readonly #label: string;
  // Node's decoder: four times as fast as TextDecoder on plain text. Invalid UTF-8 becomes U+FFFD; a
  // character split between chunks waits for its end.
  readonly #decoder = new StringDecoder("utf8");
  readonly #filter = new TerminalTextFilter();
  readonly #text: TextWindow;
  #ended = false;
  #removed = 0;
  // The first raw bytes: enough to tell binary output, and to save it if it is.
  readonly #rawHead: Buffer;
  #rawHeadBytes = 0;
  #rawTotal = 0;
  #binary = false;
  #spill: Promise<SpillFile> | null = null;
  // The spill file once open: appended to directly, its promise awaited only past the high-water mark.
  #spillFile: SpillFile | null = null;
  // No character is left unfinished in the decoder: the previous chunk was ASCII.
  #decoderEmpty = true;
  #spillError: string | null = null;
  // Sample-only: the raw bytes past the head, the last of them.
  readonly #rawTail: TailBuffer | null;

  /** The budget the collector keeps head and tail for. */
  readonly maxTokens: number;

  constructor(options: CollectorOptions) {
    this.maxTokens = options.maxTokens;
    const budget = approxBytesForTokens(options.maxTokens);
    this.#headCapacity = budget + HEAD_SLACK_BYTES;
    const copy = options.transientChunks === true;
    this.#text = new TextWindow(this.#headCapacity, budget, { copy });
    this.#rawHead = Buffer.alloc(Math.max(this.#headCapacity, BINARY_SNIFF_BYTES));
    this.#spillStore = options.sampleOnly === true ? null : options.spill;
    this.#label = options.label;
    this.#rawTail = options.sampleOnly === true ? new TailBuffer(SAMPLE_TAIL_BYTES, { copy }) : null;
  }

  /** Takes one chunk; the promise (when there is one) settles once the chunk is in the spill file. */
  push(chunk: Uint8Array): Promise<void> | undefined {
    if (chunk.length === 0) return undefined;
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const wasBinary = this.#binary;
    if (!this.#binary && this.#rawTotal < BINARY_SNIFF_BYTES) {
      this.#binary = data.subarray(0, BINARY_SNIFF_BYTES - this.#rawTotal).includes(0);
    }
    this.#rawTotal += data.length;
    const room = this.#rawHead.length - this.#rawHeadBytes;
    if (room > 0) {
      this.#rawHeadBytes += data.copy(this.#rawHead, this.#rawHeadBytes, 0, Math.min(room, data.length));
    }
    if (this.#rawTail !== null) {
      if (data.length > room) this.#rawTail.push(room > 0 ? data.subarray(room) : data);
      return undefined;
    }
    if (this.#binary) {
      // A text spill started before the first NUL showed is not the file binary output needs.
      if (!wasBinary) void this.#dropSpill();
      return this.#spillRaw(data, room);
    }
    // Binary output is summarised, not shown: there is no text to clean. An ASCII chunk decodes to
    // ASCII, but for a U+FFFD in place of a character the chunk before left unfinished.
    if (this.#decoderEmpty && isPlainAscii(data)) {
      const plain = this.#filter.writePlainAscii(data);
      if (plain !== null) {
        let pending: Promise<void> | undefined;
        for (const bytes of plain) pending = this.#takeBytes(bytes) ?? pending;
        return pending;
      }
    }
    const ascii = isAscii(data);
    this.#decoderEmpty = ascii;
    return this.#take(this.#filter.write(this.#decoder.write(data), ascii));
  }

  /** Binary output: once past what the raw head holds, streamed to the spill file as written. */
  #spillRaw(data: Buffer, room: number): Promise<void> | undefined {
    if (this.#rawTotal <= this.#rawHead.length) return undefined;
    if (this.#spill === null) {
      const head = this.#rawHead.subarray(0, this.#rawHeadBytes);
      const rest = data.subarray(Math.max(room, 0));
      return this.#startSpill([head, rest]);
    }
    return this.#append(data);
  }

  /** Cleaned text: counted, kept in the head and the tail, and once past the head, spilled. */
  #take(text: string): Promise<void> | undefined {
    return text === "" ? undefined : this.#takeBytes(Buffer.from(text, "utf8"));
  }

  #takeBytes(bytes: Buffer): Promise<void> | undefined {
    // Until the spill starts, the head holds all the text there is.
    const before = this.#spill === null ? this.#text.whole() : null;
    this.#text.push(bytes);
    if (this.#spill !== null) return this.#append(bytes);
    if (this.#text.totalBytes <= this.#headCapacity || before === null) return undefined;
    return this.#startSpill([before, bytes]);
  }

  #startSpill(parts: readonly Buffer[]): Promise<void> | undefined {
    const store = this.#spillStore;
    if (store === null || this.#spillError !== null) return undefined;
    const copies = parts.map((part) => Buffer.from(part));
    this.#spill = store.open({ label: this.#label }).then((file) => {
      for (const part of copies) file.append(part);
      this.#spillFile = file;
      return file;
    });
    return this.#settle(this.#spill.then(() => undefined));
  }

  #append(bytes: Buffer): Promise<void> | undefined {
    if (this.#spill === null || this.#spillError !== null) return undefined;
    const file = this.#spillFile;
    if (file === null) return this.#settle(this.#spill.then((opened) => opened.append(bytes)));
    file.append(bytes);
    return file.queuedBytes > SPILL_HIGH_WATER_BYTES ? file.written() : undefined;
  }

  // A failing spill must not fail the command: the model text says the full output was not saved.
  #settle(pending: Promise<void>): Promise<void> {
    return pending.catch((error: unknown) => {
      this.#spillError ??= error instanceof Error ? error.message : String(error);
    });
  }

  async #dropSpill(): Promise<void> {
    const pending = this.#spill;
    this.#spill = null;
    this.#spillFile = null;
    if (pending !== null) await pending.then((file) => file.abort()).catch(() => undefined);
  }

  /**
   * The collected output of a one-shot, its spill file kept when the model's text will be cut (the
   * timeout notice in front counted, as shell_command's text has it) or the output is binary.
   */
  finishForModel(timedOut: boolean, durationMs: number): Promise<CollectorResult> {
    return this.finish(
      (collected, binary) =>
        binary || shellCommandContent(collected, timedOut, durationMs).needsCut(this.maxTokens),
    );
  }

  /** The collected output, its spill file finished when `keepSpill` says the text will point to it. */
  async finish(keepSpill: (output: CollectedOutput, binary: boolean) => boolean): Promise<CollectorResult> {
    const output = this.#collected();
    let spill: SpillResult | null = null;
    if (this.#spillStore !== null && this.#spillError === null && keepSpill(output, this.#binary)) {
      try {
        if (this.#spill !== null) spill = await (await this.#spill).finish();
        else {
          const whole = this.#binary ? this.#rawHead.subarray(0, this.#rawHeadBytes) : output.head;
          spill = await this.#spillStore.write(whole, { label: this.#label });
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
  discard(): Promise<void> {
    return this.#dropSpill();
  }

  #collected(): CollectedOutput {
    if (!this.#ended && this.#rawTail !== null && !this.#binary) {
      // The sample: the head, and after a line break the last bytes when there were more, cleaned now.
      const head = this.#decoder.write(this.#rawHead.subarray(0, this.#rawHeadBytes)) + this.#decoder.end();
      void this.#take(this.#filter.write(head, false) + this.#filter.end());
      if (this.#rawTail.length > 0) {
        const tail = new StringDecoder("utf8");
        const text = tail.write(this.#rawTail.tail()) + tail.end();
        const filter = new TerminalTextFilter();
        void this.#take(`\n${filter.write(text, false)}${filter.end()}`);
      }
      this.#ended = true;
      this.#removed = this.#filter.takeRemoved();
    }
    if (!this.#ended) {
      // The last line, held in case a `\r` replaced it, and a character cut short at the very end.
      this.#ended = true;
      // The rest reaches the spill file before `finish` completes it: appends land in order.
      if (!this.#binary) void this.#take(this.#filter.write(this.#decoder.end()) + this.#filter.end());
      this.#removed = this.#filter.takeRemoved();
    }
    return this.#text.collected();
  }
}
