import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { conchStateDir, type StateDirOptions } from "./state-dir.js";

export const DEFAULT_SPILL_MAX_FILE_BYTES: number = 64 * 1024 * 1024;
export const DEFAULT_SPILL_RETENTION_MS: number = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_SPILL_SWEEP_INTERVAL_MS: number = 10 * 60 * 1000;

// Room for the omission marker plus a useful head and tail.
const MIN_MAX_FILE_BYTES = 1024;
const MAX_LABEL_LENGTH = 40;
// `20250102T030405678Z-1a2b3c4d-shell_command.txt`, or `.<that>.tmp` while being written.
const SPILL_NAME =
  /^\.?(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-[0-9a-f]{8}-[a-z0-9_-]+\.txt(?:\.tmp)?$/;

export interface SpillStoreOptions extends StateDirOptions {
  /** Defaults to `<state dir>/spill` (see `conchStateDir`). */
  readonly dir?: string;
  /** A larger output keeps its head and tail with `... N bytes omitted ...` between. */
  readonly maxFileBytes?: number;
  /** Spill files older than this are deleted, lazily, by a later write. */
  readonly retentionMs?: number;
  /** The lazy sweep runs on a write at most this often. */
  readonly sweepIntervalMs?: number;
  /** Milliseconds since the epoch; names and retention both use it. */
  readonly now?: () => number;
}

export interface SpillWriteOptions {
  /** A word for the file name (e.g. the tool name); sanitized to `[a-z0-9_-]`. */
  readonly label?: string;
}

export interface SpillResult {
  readonly path: string;
  /** Size of the output given to `write`. */
  readonly bytes: number;
  /** Size of the file on disk; at most `maxFileBytes`. */
  readonly fileBytes: number;
  /** Bytes of the output's middle left out of the file; 0 when the file holds all of it. */
  readonly omittedBytes: number;
}

export interface SpillStore {
  readonly dir: string;
  /** Writes atomically (temp file + rename), mode 0600, in a directory created with mode 0700. */
  write(data: Uint8Array | string, options?: SpillWriteOptions): Promise<SpillResult>;
  /** Deletes expired spill files now; resolves to how many were deleted. Other files are never touched. */
  sweep(): Promise<number>;
}

export function createSpillStore(options: SpillStoreOptions = {}): SpillStore {
  const dir = options.dir ?? join(conchStateDir(options), "spill");
  const maxFileBytes = checkInteger(
    "maxFileBytes",
    options.maxFileBytes,
    DEFAULT_SPILL_MAX_FILE_BYTES,
    MIN_MAX_FILE_BYTES,
  );
  const retentionMs = checkInteger("retentionMs", options.retentionMs, DEFAULT_SPILL_RETENTION_MS, 0);
  const sweepIntervalMs = checkInteger(
    "sweepIntervalMs",
    options.sweepIntervalMs,
    DEFAULT_SPILL_SWEEP_INTERVAL_MS,
    0,
  );
  const now = options.now ?? Date.now;
  let lastSweep = Number.NEGATIVE_INFINITY;

  async function sweep(): Promise<number> {
    lastSweep = now();
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
      throw error;
    }
    const cutoff = now() - retentionMs;
    let removed = 0;
    for (const name of names) {
      const time = spillNameTime(name);
      if (time === null || time >= cutoff) continue;
      try {
        await unlink(join(dir, name));
        removed++;
      } catch {
        // Gone already, or not ours to delete: either way nothing to do.
      }
    }
    return removed;
  }

  async function write(
    data: Uint8Array | string,
    writeOptions: SpillWriteOptions = {},
  ): Promise<SpillResult> {
    const input =
      typeof data === "string"
        ? Buffer.from(data, "utf8")
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const { content, omittedBytes } = capHeadTail(input, maxFileBytes);
    const name = `${timestamp(now())}-${randomBytes(4).toString("hex")}-${sanitizeLabel(writeOptions.label)}.txt`;
    const path = join(dir, name);
    const temp = join(dir, `.${name}.tmp`);

    await mkdir(dir, { recursive: true, mode: 0o700 });
    const handle = await open(temp, "wx", 0o600);
    try {
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
      await rename(temp, path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }

    if (now() - lastSweep >= sweepIntervalMs) {
      // Retention is housekeeping: a failed sweep must never fail the write it rides on.
      await sweep().catch(() => 0);
    }
    return { path, bytes: input.length, fileBytes: content.length, omittedBytes };
  }

  return { dir, write, sweep };
}

function checkInteger(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, received ${String(value)}`);
  }
  return value;
}

/** Head and tail within `max` bytes (marker included), cut on UTF-8 character boundaries. */
function capHeadTail(input: Buffer, max: number): { content: Buffer; omittedBytes: number } {
  if (input.length <= max) return { content: input, omittedBytes: 0 };
  // The marker for the whole input is at least as long as the final one, so the budget holds.
  const budget = max - Buffer.byteLength(omissionMarker(input.length));
  const headEnd = boundaryAtOrBefore(input, Math.floor(budget / 2));
  const tailStart = boundaryAtOrAfter(input, input.length - Math.ceil(budget / 2));
  const omittedBytes = tailStart - headEnd;
  const content = Buffer.concat([
    input.subarray(0, headEnd),
    Buffer.from(omissionMarker(omittedBytes), "utf8"),
    input.subarray(tailStart),
  ]);
  return { content, omittedBytes };
}

function omissionMarker(omitted: number): string {
  return `\n... ${omitted} bytes omitted ...\n`;
}

// At most three steps: a UTF-8 character has at most three continuation bytes, and binary data may
// have long runs of bytes that only look like continuations.
function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

function boundaryAtOrBefore(bytes: Buffer, index: number): number {
  let i = index;
  while (i > 0 && index - i < 3 && isContinuation(bytes[i])) i--;
  return isContinuation(bytes[i]) ? index : i;
}

function boundaryAtOrAfter(bytes: Buffer, index: number): number {
  let i = index;
  while (i < bytes.length && i - index < 3 && isContinuation(bytes[i])) i++;
  return isContinuation(bytes[i]) ? index : i;
}

function sanitizeLabel(label: string | undefined): string {
  const clean = (label ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_LABEL_LENGTH);
  return clean === "" ? "output" : clean;
}

// Fixed-width UTC, so names sort by time.
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, "");
}

function spillNameTime(name: string): number | null {
  const m = SPILL_NAME.exec(name);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}
