import { Buffer } from "node:buffer";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { countNewlines } from "../format/truncate.js";
import { formatCount, lineRange } from "./spill-notice.js";

// Room set aside for the marker line that stands for a middle left out of the file (and the line break
// that ends a head cut inside a line).
const MAX_MARKER_BYTES =
  1 +
  Buffer.byteLength(
    fileMarker(Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  );
// Copying the tail ring goes through a buffer of this size, whatever the ring's size.
const COPY_CHUNK_BYTES = 1024 * 1024;
// Queued chunks that follow each other go to disk in one write of up to this many bytes.
const WRITE_BATCH_BYTES = 1024 * 1024;
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
  at: number;
  data: Buffer;
}

/** Queued chunks that follow each other, written together (one `writev`, no copy). */
interface Batch {
  readonly at: number;
  readonly parts: readonly Buffer[];
  readonly length: number;
}

// At most this many chunks go into one `writev` (the system's limit is 1024 or more).
const WRITE_BATCH_PARTS = 256;

/**
 * Streams output into the file at `path`, which is the output itself, readable at any time, until the
 * output outgrows `maxFileBytes`. From then on the file keeps the head (the first half of the budget)
 * and a ring file keeps the latest tail (the other half); `sync` and `finish` write head, one marker
 * line saying which lines are left out, and tail, cut on line boundaries. A session's file is read
 * while its output still comes, so the file is never replaced, only completed. Chunks wait in a queue
 * while a write is in flight, those the ring would overwrite dropped unwritten, so memory stays within
 * the file's budget however fast the output comes.
 */
export class SpillWriter {
  readonly #path: string;
  readonly #ringPath: string;
  readonly #headLimit: number;
  readonly #ringSize: number;
  // Up to here the file takes the output as it is; past it, the output overflows into the ring.
  readonly #fileLimit: number;
  #file: FileHandle | null = null;
  #ring: FileHandle | null = null;
  #total = 0;
  #newlines = 0;
  // The end of the last line that ends within the head, and the newlines up to it.
  #headLineEnd = 0;
  #headNewlines = 0;
  // The first newline at or after the head limit: where the line crossing it ends.
  #pastHeadNewline = -1;
  #queue: Pending[] = [];
  // Bytes in the queue and in the write in flight.
  #queued = 0;
  #inFlight = 0;
  #draining: Promise<void> | null = null;
  #failure: unknown = null;
  #closed = false;
  // The file's state as of `#total` bytes, once completed: nothing new to write until more comes.
  #synced: SpillWriteResult | null = null;

  constructor(path: string, maxFileBytes: number) {
    this.#path = path;
    this.#ringPath = `${path}.tail`;
    const budget = maxFileBytes - MAX_MARKER_BYTES;
    this.#headLimit = Math.floor(budget / 2);
    this.#ringSize = budget - this.#headLimit;
    this.#fileLimit = this.#headLimit + this.#ringSize;
  }

  /** Creates the file (0600, failing if it exists). */
  async open(): Promise<void> {
    this.#file = await open(this.#path, "wx+", 0o600);
  }

  get bytes(): number {
    return this.#total;
  }

  /** Bytes appended and not on disk yet (or dropped unwritten, once the ring overwrites them). */
  get queuedBytes(): number {
    return this.#queued;
  }

  /** Counts `chunk` now and queues it; the promise settles once it is on disk. */
  append(chunk: Uint8Array): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("spill writer already finished"));
    if (chunk.length === 0) return this.#drain();
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const at = this.#total;
    if (at < this.#headLimit) {
      const head = data.subarray(0, this.#headLimit - at);
      const last = head.lastIndexOf(NEWLINE);
      if (last !== -1) {
        this.#headLineEnd = at + last + 1;
        this.#headNewlines += countNewlines(head, 0, head.length);
      }
    }
    if (this.#pastHeadNewline === -1 && at + data.length > this.#headLimit) {
      const found = data.indexOf(NEWLINE, Math.max(0, this.#headLimit - at));
      if (found !== -1) this.#pastHeadNewline = at + found;
    }
    this.#newlines += countNewlines(data, 0, data.length);
    this.#total += data.length;
    this.#synced = null;
    this.#queue.push({ at, data });
    this.#queued += data.length;
    this.#dropOverwritten();
    return this.#drain();
  }

  /** Chunks past the file whose bytes the ring will overwrite anyway are never written. */
  #dropOverwritten(): void {
    const keepFrom = this.#total - this.#ringSize;
    if (keepFrom <= this.#fileLimit) return;
    const limit = this.#fileLimit;
    this.#queue = this.#queue.filter((item) => item.at < limit || item.at + item.data.length > keepFrom);
    for (const item of this.#queue) {
      if (item.at >= limit && item.at < keepFrom) {
        item.data = item.data.subarray(keepFrom - item.at);
        item.at = keepFrom;
      }
    }
    this.#queued = this.#queue.reduce((sum, item) => sum + item.data.length, this.#inFlight);
  }

  #drain(): Promise<void> {
    if (this.#draining !== null) return this.#draining;
    if (this.#queue.length === 0) return Promise.resolve();
    // Cleared only once settled (a later tick than the loop's end): a chunk queued in between starts
    // the next drain.
    const draining = this.#writeQueued().finally(() => {
      this.#draining = null;
      if (this.#queue.length > 0) void this.#drain();
    });
    this.#draining = draining;
    return draining;
  }

  async #writeQueued(): Promise<void> {
    try {
      for (let next = this.#nextBatch(); next !== undefined; next = this.#nextBatch()) {
        try {
          if (this.#failure === null) await this.#write(next);
        } finally {
          this.#queued -= this.#inFlight;
          this.#inFlight = 0;
        }
      }
    } catch (error) {
      this.#failure ??= error;
      this.#queue = [];
      this.#queued = 0;
    }
  }

  /** The next queued chunk, with those right after it up to a batch's size. */
  #nextBatch(): Batch | undefined {
    const first = this.#queue.shift();
    if (first === undefined) return undefined;
    const parts = [first.data];
    let length = first.data.length;
    for (let next = this.#queue[0]; next !== undefined; next = this.#queue[0]) {
      if (
        next.at !== first.at + length ||
        length + next.data.length > WRITE_BATCH_BYTES ||
        parts.length === WRITE_BATCH_PARTS
      ) {
        break;
      }
      this.#queue.shift();
      parts.push(next.data);
      length += next.data.length;
    }
    this.#inFlight = length;
    return { at: first.at, parts, length };
  }

  async #write({ at, parts, length }: Batch): Promise<void> {
    const file = this.#file as FileHandle;
    let offset = at;
    let done = 0;
    if (offset < this.#fileLimit) {
      const n = Math.min(length, this.#fileLimit - offset);
      await writeAll(file, sliceParts(parts, 0, n), offset);
      offset += n;
      done = n;
    }
    if (done === length) return;
    if (this.#ring === null) {
      // The first overflow: the ring starts as what the file holds past the head, in ring order already.
      this.#ring = await open(this.#ringPath, "wx+", 0o600);
      await copyRange(file, this.#headLimit, this.#ringSize, this.#ring, 0);
    }
    if (length - done > this.#ringSize) {
      const skip = length - done - this.#ringSize;
      offset += skip;
      done += skip;
    }
    while (done < length) {
      const position = (offset - this.#headLimit) % this.#ringSize;
      const n = Math.min(length - done, this.#ringSize - position);
      await writeAll(this.#ring, sliceParts(parts, done, done + n), position);
      offset += n;
      done += n;
    }
  }

  async #settled(): Promise<void> {
    while (this.#draining !== null) await this.#draining;
    if (this.#failure !== null) throw this.#failure;
  }

  /**
   * Brings the file up to date with every chunk appended so far: when the output outgrew it, head,
   * marker and the latest tail. Says what the file holds.
   */
  async sync(): Promise<SpillWriteResult> {
    await this.#settled();
    if (this.#synced !== null) return this.#synced;
    const total = this.#total;
    this.#synced =
      total <= this.#fileLimit
        ? { bytes: total, fileBytes: total, omittedBytes: 0, gap: null }
        : await this.#complete();
    return this.#synced;
  }

  /** Completes the file and closes it. */
  async finish(): Promise<SpillWriteResult> {
    try {
      const result = await this.sync();
      this.#closed = true;
      await this.#closeHandles();
      await unlink(this.#ringPath).catch(() => undefined);
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
    this.#queued = this.#inFlight;
    await this.#settled().catch(() => undefined);
    await this.#closeHandles().catch(() => undefined);
    await unlink(this.#path).catch(() => undefined);
    await unlink(this.#ringPath).catch(() => undefined);
  }

  async #closeHandles(): Promise<void> {
    const handles = [this.#file, this.#ring];
    this.#file = null;
    this.#ring = null;
    for (const handle of handles) await handle?.close();
  }

  async #complete(): Promise<SpillWriteResult> {
    const file = this.#file as FileHandle;
    const ring = this.#ring as FileHandle;
    const total = this.#total;
    const size = this.#ringSize;
    // The ring's oldest byte, in the output and in the ring.
    const ringBase = total - size;
    const ringStart = (ringBase - this.#headLimit) % size;

    // The head ends after its last line, unless the line crossing the limit is longer than the head.
    const crossing = this.#pastHeadNewline === -1 ? Number.POSITIVE_INFINITY : this.#pastHeadNewline;
    const headEnd =
      this.#headLineEnd > 0 && crossing - this.#headLineEnd <= this.#headLimit
        ? this.#headLineEnd
        : await characterStart(file, this.#headLimit);

    // The tail starts after the ring's first newline when that lies in its first half (the ring cannot
    // tell how long the line crossing its start is); else at the first character.
    const scan = await scanRing(ring, size, ringStart);
    const skip =
      scan.firstNewline !== -1 && scan.firstNewline < size / 2
        ? scan.firstNewline + 1
        : scan.leadingContinuations;
    const tailNewlines = scan.newlines - (skip > scan.firstNewline && scan.firstNewline !== -1 ? 1 : 0);
    const tailStart = ringBase + skip;

    const endsLine = headEnd === 0 || (await byteAt(file, headEnd - 1)) === NEWLINE;
    const firstLine = this.#headNewlines + 1;
    const resumeLine = this.#newlines - tailNewlines + 1;
    const lastOmittedByte = await ringByte(ring, size, ringStart, skip - 1);
    const lastLine = resumeLine - (lastOmittedByte === NEWLINE ? 1 : 0);
    const keptLines = this.#headNewlines + (endsLine ? 0 : 1);
    const omittedBytes = tailStart - headEnd;
    const marker = Buffer.from(
      `${endsLine ? "" : "\n"}${fileMarker(firstLine, Math.max(firstLine, lastLine), omittedBytes)}`,
    );
    await writeAll(file, marker, headEnd);
    let at = headEnd + marker.length;
    let from = (ringStart + skip) % size;
    let left = size - skip;
    while (left > 0) {
      const n = Math.min(left, size - from);
      await copyRange(ring, from, n, file, at);
      at += n;
      left -= n;
      from = (from + n) % size;
    }
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

interface RingScan {
  /** Offset of the first newline from the ring's oldest byte, or -1. */
  readonly firstNewline: number;
  /** Newlines in the whole ring. */
  readonly newlines: number;
  /** UTF-8 continuation bytes the ring starts with (at most three): half a character cut off. */
  readonly leadingContinuations: number;
}

async function scanRing(ring: FileHandle, size: number, start: number): Promise<RingScan> {
  const buffer = Buffer.alloc(Math.min(size, COPY_CHUNK_BYTES));
  let firstNewline = -1;
  let newlines = 0;
  let leadingContinuations = -1;
  for (let done = 0; done < size; ) {
    const from = (start + done) % size;
    const want = Math.min(buffer.length, size - done, size - from);
    const { bytesRead } = await ring.read(buffer, 0, want, from);
    if (bytesRead === 0) throw new Error("spill ring file ended early");
    const part = buffer.subarray(0, bytesRead);
    if (leadingContinuations === -1) {
      let n = 0;
      while (n < Math.min(3, part.length) && isContinuation(part[n])) n++;
      leadingContinuations = n;
    }
    if (firstNewline === -1) {
      const found = part.indexOf(NEWLINE);
      if (found !== -1) firstNewline = done + found;
    }
    newlines += countNewlines(part, 0, part.length);
    done += bytesRead;
  }
  return { firstNewline, newlines, leadingContinuations: Math.max(0, leadingContinuations) };
}

async function ringByte(ring: FileHandle, size: number, start: number, index: number): Promise<number> {
  if (index < 0) return -1;
  return byteAt(ring, (start + index) % size);
}

async function byteAt(handle: FileHandle, position: number): Promise<number> {
  const one = Buffer.alloc(1);
  await handle.read(one, 0, 1, position);
  return one[0] as number;
}

/** `limit`, moved back to the start of the character it falls in. */
async function characterStart(file: FileHandle, limit: number): Promise<number> {
  const last = Buffer.alloc(Math.min(3, limit));
  await file.read(last, 0, last.length, limit - last.length);
  return limit - continuationRun(last);
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

async function copyRange(
  from: FileHandle,
  start: number,
  length: number,
  to: FileHandle,
  at: number,
): Promise<void> {
  const buffer = Buffer.alloc(Math.min(length, COPY_CHUNK_BYTES));
  let done = 0;
  while (done < length) {
    const want = Math.min(buffer.length, length - done);
    const { bytesRead } = await from.read(buffer, 0, want, start + done);
    if (bytesRead === 0) throw new Error("spill file ended early");
    await writeAll(to, buffer.subarray(0, bytesRead), at + done);
    done += bytesRead;
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
