import { Buffer } from "node:buffer";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { formatCount, lineRange } from "../text/counts.js";
import { TailBuffer } from "../text/tail-buffer.js";
import { countNewlines } from "../text/truncate.js";

// Room set aside for the marker line that stands for a middle left out of the file (and the line break
// that ends a head cut inside a line).
const MAX_MARKER_BYTES =
  1 +
  Buffer.byteLength(
    fileMarker(Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  );
// The end an outgrown file keeps is held in memory, at most this much of it (half the file when that
// is less); the rest of the file is the head.
const MAX_TAIL_BYTES = 4 * 1024 * 1024;
// Appended bytes are copied into buffers of this size, each written once full (or once the wait for
// more runs out), then reused: the head of a long output costs two or three of them, not a copy a chunk.
const WRITE_BATCH_BYTES = 1024 * 1024;
// At most this many full buffers go into one `writev`; at most this many wait empty for reuse.
const WRITE_BATCH_PARTS = 4;
const SPARE_BUFFERS = 2;
// Less than a batch waits this long for more before it is written: output read a few KiB at a time
// then goes to disk a mebibyte a write, not one write (a thread-pool round trip) a piece.
const COALESCE_MS = 4;
const NEWLINE = 0x0a;

/** What a file too small for its output lacks, and how its lines map to the output's. */
export interface SpillGap {
  /** The first and last line of the output (1-based) the file lacks, at least in part. */
  readonly firstLine: number;
  readonly lastLine: number;
  /** Bytes of the output the file lacks. */
  readonly bytes: number;
  /** The file's lines up to this one are the output's lines with the same numbers. */
  readonly keptLines: number;
  /** The output's lines from this one on are in the file after the gap's marker line... */
  readonly resumeLine: number;
  /** ...each `shift` lines lower: the output's line N is the file's line N − shift. */
  readonly shift: number;
}

export interface SpillWriteResult {
  /** Bytes appended. */
  readonly bytes: number;
  /** Size of the file: at most the writer's `maxFileBytes`. */
  readonly fileBytes: number;
  /** Bytes of the output the file lacks; 0 when it holds all of it. */
  readonly omittedBytes: number;
  /** What the file lacks; null when it holds all of the output. */
  readonly gap: SpillGap | null;
}

function fileMarker(firstLine: number, lastLine: number, bytes: number): string {
  return `[… ${lineRange(firstLine, lastLine)} omitted here (${formatCount(bytes)} bytes): the file keeps the start and the end of an output this large …]\n`;
}

interface Pending {
  /** Where `data` starts in the output. */
  readonly at: number;
  /** The filled part of `buffer`. */
  readonly data: Buffer;
  readonly buffer: Buffer;
}

/** Queued buffers that follow each other, written together (one `writev`). */
interface Batch {
  readonly at: number;
  readonly parts: readonly Pending[];
  readonly length: number;
}

/**
 * Streams output into the file at `path`, which is the output itself, readable at any time, until the
 * output outgrows `maxFileBytes`. From then on the file keeps the head (all but the last few MiB of the
 * budget) and memory keeps the latest tail (the rest); `sync` and `finish` write, after the head, one
 * marker line saying which lines are left out and the tail, cut on line boundaries. A session's file
 * is read while its output still comes, so the file is never replaced, only completed. Nothing past
 * the file's budget is ever written but that tail, so an output of any size costs the disk the file's
 * size once.
 */
export class SpillWriter {
  readonly #path: string;
  readonly #headLimit: number;
  readonly #tailSize: number;
  // Up to here the file takes the output as it is; past it, only the tail in memory does.
  readonly #fileLimit: number;
  #file: FileHandle | null = null;
  // The output past the head, its latest `#tailSize` bytes.
  readonly #tail: TailBuffer;
  // The (up to four) bytes before the head limit: where a head cut inside a line falls.
  readonly #beforeHeadLimit: Buffer = Buffer.alloc(4);
  #total = 0;
  #newlines = 0;
  // The end of the last line that ends within the head, and the newlines up to it.
  #headLineEnd = 0;
  #headNewlines = 0;
  // The first newline at or after the head limit: where the line crossing it ends.
  #pastHeadNewline = -1;
  // Filled buffers waiting for a write, and the one being filled (from `#stagingAt` in the output).
  #queue: Pending[] = [];
  #staging: Buffer | null = null;
  #stagingUsed = 0;
  #stagingAt = 0;
  readonly #spares: Buffer[] = [];
  // Bytes appended for the file and not on disk: being filled, queued or in flight.
  #queued = 0;
  #inFlight = 0;
  #draining: Promise<void> | null = null;
  // The output up to here is written however little of it waits (the wait ran out, or a sync wants it).
  #forceThrough = 0;
  #timer: NodeJS.Timeout | null = null;
  #failure: unknown = null;
  #closed = false;
  // The file's state as of `#total` bytes, once completed: nothing new to write until more comes.
  #synced: SpillWriteResult | null = null;
  // The syncs asked for, one after another.
  #syncs: Promise<unknown> = Promise.resolve();

  constructor(path: string, maxFileBytes: number) {
    this.#path = path;
    const budget = maxFileBytes - MAX_MARKER_BYTES;
    this.#tailSize = Math.min(MAX_TAIL_BYTES, budget - Math.floor(budget / 2));
    this.#headLimit = budget - this.#tailSize;
    this.#fileLimit = this.#headLimit + this.#tailSize;
    this.#tail = new TailBuffer(this.#tailSize, { copy: true });
  }

  /** Creates the file (0600, failing if it exists). */
  async open(): Promise<void> {
    this.#file = await open(this.#path, "wx+", 0o600);
  }

  get bytes(): number {
    return this.#total;
  }

  /** Bytes appended for the file and not on disk yet. */
  get queuedBytes(): number {
    return this.#queued;
  }

  /**
   * Counts `chunk` now and queues a copy of it for the file (past the file's budget, copies it into the
   * tail): the caller may reuse the chunk's memory once this returns. `written` waits for it.
   */
  append(chunk: Uint8Array): void {
    if (this.#closed) throw new Error("spill writer already finished");
    if (chunk.length === 0) return;
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const at = this.#total;
    const end = at + data.length;
    if (at < this.#headLimit) {
      const head = data.subarray(0, this.#headLimit - at);
      const last = head.lastIndexOf(NEWLINE);
      if (last !== -1) {
        this.#headLineEnd = at + last + 1;
        this.#headNewlines += countNewlines(head, 0, head.length);
      }
      if (end >= this.#headLimit - this.#beforeHeadLimit.length) this.#keepBeforeHeadLimit(data, at);
    }
    if (end > this.#headLimit) {
      const past = data.subarray(Math.max(0, this.#headLimit - at));
      if (this.#pastHeadNewline === -1) {
        const found = past.indexOf(NEWLINE);
        if (found !== -1) this.#pastHeadNewline = end - past.length + found;
      }
      this.#tail.push(past);
    }
    this.#newlines += countNewlines(data, 0, data.length);
    this.#total = end;
    this.#synced = null;
    if (at >= this.#fileLimit) return;
    const forFile = end > this.#fileLimit ? data.subarray(0, this.#fileLimit - at) : data;
    for (let from = 0; from < forFile.length; ) {
      if (this.#staging === null) {
        this.#staging = this.#spares.pop() ?? Buffer.allocUnsafe(WRITE_BATCH_BYTES);
        this.#stagingUsed = 0;
        this.#stagingAt = at + from;
      }
      const n = forFile.copy(this.#staging, this.#stagingUsed, from);
      this.#stagingUsed += n;
      from += n;
      if (this.#stagingUsed === this.#staging.length) this.#seal();
    }
    this.#queued += forFile.length;
    this.#schedule();
  }

  /** The buffer being filled joins the queue as it is. */
  #seal(): void {
    const buffer = this.#staging;
    if (buffer === null || this.#stagingUsed === 0) return;
    this.#queue.push({ at: this.#stagingAt, data: buffer.subarray(0, this.#stagingUsed), buffer });
    this.#staging = null;
    this.#stagingUsed = 0;
  }

  /**
   * Settles once everything appended so far is on disk, written now however little waits. A failed
   * write rejects nothing: `sync` and `finish` say it.
   */
  written(): Promise<void> {
    return this.#settled().catch(() => undefined);
  }

  #keepBeforeHeadLimit(data: Buffer, at: number): void {
    const keep = this.#beforeHeadLimit;
    const from = this.#headLimit - keep.length;
    for (let i = Math.max(from, at); i < Math.min(this.#headLimit, at + data.length); i++) {
      keep[i - from] = data[i - at] as number;
    }
  }

  /** Writes now when a full buffer waits; else once the wait for more runs out. */
  #schedule(): void {
    if (this.#draining !== null || !this.#waiting()) return;
    if (this.#batchWaits()) {
      void this.#drain();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      this.#forceThrough = this.#total;
      void this.#drain();
    }, COALESCE_MS);
  }

  #waiting(): boolean {
    return this.#queue.length > 0 || this.#stagingUsed > 0;
  }

  /** A full buffer waits, or bytes a sync or the wait's end asked for (then the one being filled goes). */
  #batchWaits(): boolean {
    if (this.#queue.length > 0) return true;
    if (this.#stagingUsed === 0 || this.#stagingAt >= this.#forceThrough) return false;
    this.#seal();
    return true;
  }

  #drain(): Promise<void> {
    if (this.#draining !== null) return this.#draining;
    if (!this.#waiting()) return Promise.resolve();
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    // Cleared only once settled (a later tick than the loop's end): a chunk queued in between is
    // scheduled then.
    const draining = this.#writeQueued().finally(() => {
      this.#draining = null;
      this.#schedule();
    });
    this.#draining = draining;
    return draining;
  }

  async #writeQueued(): Promise<void> {
    try {
      for (let next = this.#nextBatch(); next !== undefined; next = this.#nextBatch()) {
        try {
          if (this.#failure === null) {
            const parts = next.parts.map((part) => part.data);
            await writeAll(this.#file as FileHandle, parts, next.at);
          }
        } finally {
          this.#queued -= this.#inFlight;
          this.#inFlight = 0;
          for (const part of next.parts) {
            if (this.#spares.length < SPARE_BUFFERS) this.#spares.push(part.buffer);
          }
        }
      }
    } catch (error) {
      this.#failure ??= error;
      this.#queue = [];
      this.#staging = null;
      this.#stagingUsed = 0;
      this.#queued = 0;
    }
  }

  /** The queued buffers that follow each other (a few); none while only a partly filled one waits. */
  #nextBatch(): Batch | undefined {
    if (!this.#batchWaits()) return undefined;
    const first = this.#queue.shift();
    if (first === undefined) return undefined;
    const parts = [first];
    let length = first.data.length;
    for (let next = this.#queue[0]; next !== undefined; next = this.#queue[0]) {
      if (next.at !== first.at + length || parts.length === WRITE_BATCH_PARTS) break;
      this.#queue.shift();
      parts.push(next);
      length += next.data.length;
    }
    this.#inFlight = length;
    return { at: first.at, parts, length };
  }

  /** Writes everything queued, however little, and waits for it. */
  async #settled(): Promise<void> {
    while (this.#draining !== null || this.#waiting()) {
      this.#forceThrough = this.#total;
      await this.#drain();
    }
    if (this.#failure !== null) throw this.#failure;
  }

  /**
   * Brings the file up to date with every chunk appended so far: when the output outgrew it, head,
   * marker and the latest tail. Says what the file holds.
   */
  sync(): Promise<SpillWriteResult> {
    // One at a time: two completions at once would write and truncate over each other.
    const next = this.#syncs.then(() => this.#syncOnce());
    this.#syncs = next.catch(() => undefined);
    return next;
  }

  async #syncOnce(): Promise<SpillWriteResult> {
    await this.#settled();
    if (this.#synced !== null) return this.#synced;
    const total = this.#total;
    const result =
      total <= this.#fileLimit
        ? { bytes: total, fileBytes: total, omittedBytes: 0, gap: null }
        : await this.#complete();
    // Output that came while the file was completed makes this state stale: the next sync completes it.
    if (this.#total === total) this.#synced = result;
    return result;
  }

  /** Completes the file and closes it. */
  async finish(): Promise<SpillWriteResult> {
    try {
      // Closed first: nothing appended from now on can be missing from what the result says.
      this.#closed = true;
      const result = await this.sync();
      this.#closed = true;
      await this.#closeFile();
      return result;
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** Deletes what was written; never throws. */
  async abort(): Promise<void> {
    this.#closed = true;
    this.#queue = [];
    this.#staging = null;
    this.#stagingUsed = 0;
    this.#queued = this.#inFlight;
    await this.#settled().catch(() => undefined);
    await this.#closeFile().catch(() => undefined);
    await unlink(this.#path).catch(() => undefined);
  }

  async #closeFile(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const file = this.#file;
    this.#file = null;
    await file?.close();
  }

  async #complete(): Promise<SpillWriteResult> {
    const file = this.#file as FileHandle;
    const total = this.#total;
    const tail = this.#tail.tail();
    // The tail's first byte, in the output.
    const tailBase = total - tail.length;

    // The head ends after its last line, unless the line crossing the limit is longer than the head.
    const crossing = this.#pastHeadNewline === -1 ? Number.POSITIVE_INFINITY : this.#pastHeadNewline;
    const keep = this.#beforeHeadLimit;
    const headEnd =
      this.#headLineEnd > 0 && crossing - this.#headLineEnd <= this.#headLimit
        ? this.#headLineEnd
        : this.#headLimit - continuationRun(keep.subarray(1));

    // The tail starts after its first newline when that lies in its first half (the line crossing its
    // start may be longer than it); else at the first character.
    const firstNewline = tail.indexOf(NEWLINE);
    let leading = 0;
    while (leading < Math.min(3, tail.length) && isContinuation(tail[leading])) leading++;
    const skip = firstNewline !== -1 && firstNewline < tail.length / 2 ? firstNewline + 1 : leading;
    const tailNewlines = countNewlines(tail, skip, tail.length);
    const tailStart = tailBase + skip;

    // The byte before the cut: a newline (a head cut on a line) or in the recorded bytes before the limit.
    const endsLine =
      headEnd === 0 ||
      headEnd === this.#headLineEnd ||
      keep[headEnd - this.#headLimit + keep.length - 1] === NEWLINE;
    const firstLine = this.#headNewlines + 1;
    const resumeLine = this.#newlines - tailNewlines + 1;
    const lastLine = resumeLine - (skip > 0 && tail[skip - 1] === NEWLINE ? 1 : 0);
    const keptLines = this.#headNewlines + (endsLine ? 0 : 1);
    const omittedBytes = tailStart - headEnd;
    const marker = Buffer.from(
      `${endsLine ? "" : "\n"}${fileMarker(firstLine, Math.max(firstLine, lastLine), omittedBytes)}`,
    );
    const body = tail.subarray(skip);
    await writeAll(file, [marker, body], headEnd);
    const at = headEnd + marker.length + body.length;
    await file.truncate(at);
    return {
      bytes: total,
      fileBytes: at,
      omittedBytes,
      gap: {
        firstLine,
        lastLine: Math.max(firstLine, lastLine),
        bytes: omittedBytes,
        keptLines,
        resumeLine,
        // The marker is the file's line keptLines + 1; resumeLine is the next.
        shift: resumeLine - (keptLines + 2),
      },
    };
  }
}

/** The bytes of `parts` (one run of bytes) from `start` to `end`, as views of them. */
function sliceParts(parts: readonly Buffer[], start: number, end: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const part of parts) {
    const from = Math.max(start - at, 0);
    const to = Math.min(end - at, part.length);
    if (to > from) out.push(from === 0 && to === part.length ? part : part.subarray(from, to));
    at += part.length;
    if (at >= end) break;
  }
  return out;
}

async function writeAll(
  handle: FileHandle,
  data: Buffer | readonly Buffer[],
  position: number,
): Promise<void> {
  let parts: readonly Buffer[] = Buffer.isBuffer(data) ? [data] : data;
  let left = parts.reduce((sum, part) => sum + part.length, 0);
  let at = position;
  while (left > 0) {
    const first = parts[0] as Buffer;
    const { bytesWritten } =
      parts.length === 1
        ? await handle.write(first, 0, first.length, at)
        : await handle.writev(parts as Buffer[], at);
    left -= bytesWritten;
    at += bytesWritten;
    if (left > 0) parts = sliceParts(parts, bytesWritten, bytesWritten + left);
  }
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * How many bytes at the end of the head belong to a character the cut splits: the lead byte and its
 * continuations, at most three back. Binary data (a run of would-be continuations) is cut where it is.
 */
function continuationRun(last: Buffer): number {
  let n = 0;
  for (let i = last.length - 1; i >= 0; i--) {
    const byte = last[i] as number;
    if (isContinuation(byte)) {
      n++;
      continue;
    }
    // A lead byte whose character needs more bytes than the head has left is cut with them.
    const needs = byte >= 0xf0 ? 3 : byte >= 0xe0 ? 2 : byte >= 0xc0 ? 1 : 0;
    return needs > n ? n + 1 : 0;
  }
  return 0;
}
