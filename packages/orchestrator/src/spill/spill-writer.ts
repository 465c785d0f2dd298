import { Buffer } from "node:buffer";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";

// The longest omission marker any output can need: room for it is set aside before the size is known.
const MAX_MARKER_BYTES = Buffer.byteLength(omissionMarker(Number.MAX_SAFE_INTEGER));
// Copying the tail ring into the file goes through a buffer of this size, whatever the ring's size.
const COPY_CHUNK_BYTES = 1024 * 1024;

export interface SpillWriteResult {
  /** Bytes appended. */
  readonly bytes: number;
  /** Size of the finished file: at most the writer's `maxFileBytes`. */
  readonly fileBytes: number;
  /** Bytes of the middle left out of the file; 0 when the file holds all of it. */
  readonly omittedBytes: number;
}

function omissionMarker(omitted: number): string {
  return `\n... ${omitted} bytes omitted ...\n`;
}

/**
 * Streams output into `temp` and renames it to `path` when finished, never holding more than one chunk
 * in memory. The first half of the budget goes straight to the file; the rest of the output passes
 * through a ring file of the other half, so a file that outgrows `maxFileBytes` keeps its head and its
 * latest tail with `... N bytes omitted ...` between, cut on UTF-8 character boundaries.
 */
export class SpillWriter {
  readonly #temp: string;
  readonly #ringPath: string;
  readonly #path: string;
  readonly #headLimit: number;
  readonly #ringSize: number;
  #file: FileHandle | null = null;
  #ring: FileHandle | null = null;
  #headBytes = 0;
  // Bytes written into the ring in all; the next write goes at `#ringWritten % #ringSize`.
  #ringWritten = 0;
  #chain: Promise<void> = Promise.resolve();
  #failure: unknown = null;
  #closed = false;

  constructor(path: string, temp: string, maxFileBytes: number) {
    this.#path = path;
    this.#temp = temp;
    this.#ringPath = `${temp}.tail`;
    const budget = maxFileBytes - MAX_MARKER_BYTES;
    this.#headLimit = Math.floor(budget / 2);
    this.#ringSize = budget - this.#headLimit;
  }

  /** Opens the temp file (created 0600, failing if it exists). */
  async open(): Promise<void> {
    this.#file = await open(this.#temp, "wx+", 0o600);
  }

  get bytes(): number {
    return this.#headBytes + this.#ringWritten;
  }

  /** Queues `chunk`; the promise settles when it is on disk. Chunks land in call order. */
  append(chunk: Uint8Array): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("spill writer already finished"));
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#chain = this.#chain
      .then(() => this.#write(data))
      .catch((error: unknown) => {
        this.#failure ??= error;
      });
    return this.#chain;
  }

  async #write(data: Buffer): Promise<void> {
    if (this.#failure !== null) return;
    const file = this.#file as FileHandle;
    let rest = data;
    const room = this.#headLimit - this.#headBytes;
    if (room > 0) {
      const head = rest.subarray(0, room);
      await writeAll(file, head, this.#headBytes);
      this.#headBytes += head.length;
      rest = rest.subarray(head.length);
    }
    if (rest.length === 0) return;
    this.#ring ??= await open(this.#ringPath, "wx+", 0o600);
    // Only the last ring-size bytes of a huge chunk can survive; skip the rest without writing it.
    if (rest.length > this.#ringSize) {
      this.#ringWritten += rest.length - this.#ringSize;
      rest = rest.subarray(rest.length - this.#ringSize);
    }
    while (rest.length > 0) {
      const at = this.#ringWritten % this.#ringSize;
      const part = rest.subarray(0, this.#ringSize - at);
      await writeAll(this.#ring, part, at);
      this.#ringWritten += part.length;
      rest = rest.subarray(part.length);
    }
  }

  /** Waits for every append, completes the file and moves it into place. */
  async finish(): Promise<SpillWriteResult> {
    this.#closed = true;
    await this.#chain;
    try {
      if (this.#failure !== null) throw this.#failure;
      const result = await this.#complete();
      await this.#closeHandles();
      await rename(this.#temp, this.#path);
      await unlink(this.#ringPath).catch(() => undefined);
      return result;
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** Drops what was written; never throws. */
  async abort(): Promise<void> {
    this.#closed = true;
    await this.#chain;
    await this.#closeHandles().catch(() => undefined);
    await unlink(this.#temp).catch(() => undefined);
    await unlink(this.#ringPath).catch(() => undefined);
  }

  async #closeHandles(): Promise<void> {
    const handles = [this.#file, this.#ring];
    this.#file = null;
    this.#ring = null;
    for (const handle of handles) await handle?.close();
  }

  async #complete(): Promise<SpillWriteResult> {
    const total = this.bytes;
    const ring = this.#ring;
    const file = this.#file as FileHandle;
    if (ring === null || this.#ringWritten <= this.#ringSize) {
      // Nothing was overwritten, so the file holds all of it: move the ring after the head.
      if (ring !== null) await copyRange(ring, 0, this.#ringWritten, file, this.#headBytes);
      return { bytes: total, fileBytes: total, omittedBytes: 0 };
    }
    const kept = Math.min(this.#ringWritten, this.#ringSize);
    const ringStart = this.#ringWritten > this.#ringSize ? this.#ringWritten % this.#ringSize : 0;
    // A cut in the middle of a UTF-8 character moves to the character's edge on each side.
    const headTail = Buffer.alloc(Math.min(3, this.#headBytes));
    await file.read(headTail, 0, headTail.length, this.#headBytes - headTail.length);
    const headEnd = this.#headBytes - continuationRun(headTail);
    const tailHead = Buffer.alloc(Math.min(3, kept));
    await readRing(ring, this.#ringSize, ringStart, tailHead);
    const skip = leadingContinuations(tailHead);
    const tailBytes = kept - skip;
    const omittedBytes = total - headEnd - tailBytes;
    const marker = Buffer.from(omissionMarker(omittedBytes), "utf8");
    await writeAll(file, marker, headEnd);
    let at = headEnd + marker.length;
    let from = (ringStart + skip) % this.#ringSize;
    let left = tailBytes;
    while (left > 0) {
      const n = Math.min(left, this.#ringSize - from);
      await copyRange(ring, from, n, file, at);
      at += n;
      left -= n;
      from = (from + n) % this.#ringSize;
    }
    await file.truncate(at);
    return { bytes: total, fileBytes: at, omittedBytes };
  }
}

async function writeAll(handle: FileHandle, data: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position + done);
    done += bytesWritten;
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
    if (bytesRead === 0) throw new Error("spill ring file ended early");
    await writeAll(to, buffer.subarray(0, bytesRead), at + done);
    done += bytesRead;
  }
}

async function readRing(ring: FileHandle, size: number, start: number, into: Buffer): Promise<void> {
  const first = Math.min(into.length, size - start);
  await ring.read(into, 0, first, start);
  if (first < into.length) await ring.read(into, first, into.length - first, 0);
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

function leadingContinuations(first: Buffer): number {
  let n = 0;
  while (n < first.length && isContinuation(first[n])) n++;
  return n === first.length && n === 3 ? 0 : n;
}
