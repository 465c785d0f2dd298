import { Buffer } from "node:buffer";
import { mkdir, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { expectedReceived } from "@conch/protocol";
import { randomHex } from "../runtime/random-hex.js";
import { conchStateDir, type StateDirOptions } from "../runtime/state-dir.js";
import { type SpillGap, SpillWriter } from "./spill-writer.js";

const DEFAULT_SPILL_MAX_FILE_BYTES: number = 16 * 1024 * 1024;
export const DEFAULT_SPILL_RETENTION_MS: number = 7 * 24 * 60 * 60 * 1000;
const DEFAULT_SPILL_SWEEP_INTERVAL_MS: number = 10 * 60 * 1000;

// Room for the omission marker plus a useful head and tail.
const MIN_MAX_FILE_BYTES = 1024;
const MAX_LABEL_LENGTH = 40;
// `20250102T030405678Z-1a2b3c4d-shell_command.txt`, or the `.tail` ring or the
// `.<that>.tmp` an earlier version wrote beside it.
const SPILL_NAME =
  /^\.?(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-[0-9a-f]{8}-[a-z0-9_-]+\.txt(?:\.tmp|\.tail)?$/;

export interface SpillStoreOptions extends StateDirOptions {
  /** Defaults to `<state dir>/spill` (see `conchStateDir`). */
  readonly dir?: string;
  /** A larger output keeps its head and tail, cut on line boundaries, with a marker line between. */
  readonly maxFileBytes?: number;
  /** Spill files older than this are deleted, lazily, by a later write. */
  readonly retentionMs?: number;
  /** The lazy sweep runs on a write at most this often. */
  readonly sweepIntervalMs?: number;
  /** Milliseconds since the epoch; names and retention both use it. */
  readonly now?: () => number;
}

interface SpillWriteOptions {
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
  /** Which lines the file lacks, and how its later lines are numbered; null when it holds all. */
  readonly gap: SpillGap | null;
}

/** A spill file being written, chunk by chunk, as output arrives; readable at its path all along. */
export interface SpillFile {
  readonly path: string;
  /** Bytes appended so far. */
  readonly bytes: number;
  /** Bytes appended that are not on disk yet: a fast producer waits on `written` once this grows. */
  readonly queuedBytes: number;
  /** Queues a copy of the chunk (its memory may be reused after); chunks land in call order. */
  append(chunk: Uint8Array): void;
  /** Settles once everything appended so far is on disk; a failed write says so at `sync`/`finish`. */
  written(): Promise<void>;
  /**
   * Brings the file up to date with everything appended (head, marker line, latest tail once over
   * `maxFileBytes`), for a reader told about it while output still comes.
   */
  sync(): Promise<SpillResult>;
  /** Completes the file and closes it. */
  finish(): Promise<SpillResult>;
  /** Deletes what was written; never throws. */
  abort(): Promise<void>;
}

export interface SpillStore {
  readonly dir: string;
  /** Starts a spill file that output is streamed into; memory stays bounded whatever its size. */
  open(options?: SpillWriteOptions): Promise<SpillFile>;
  /** Writes a whole output, mode 0600, in a directory created with mode 0700. */
  write(data: Uint8Array | string, options?: SpillWriteOptions): Promise<SpillResult>;
  /**
   * Deletes expired spill files now, except those still being written (a long session's); resolves to
   * how many were deleted. Other files are never touched.
   */
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
  // Files being written, by name: a session can outlive the retention, and its file with it.
  const writing = new Set<string>();

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
      if (time === null || time >= cutoff || writing.has(name.replace(/\.tail$/, ""))) continue;
      try {
        await unlink(join(dir, name));
        removed++;
      } catch {
        // Gone already, or not ours to delete: either way nothing to do.
      }
    }
    return removed;
  }

  async function open(writeOptions: SpillWriteOptions = {}): Promise<SpillFile> {
    const name = `${timestamp(now())}-${randomHex(4)}-${sanitizeLabel(writeOptions.label)}.txt`;
    const path = join(dir, name);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const writer = new SpillWriter(path, maxFileBytes);
    await writer.open();
    writing.add(name);
    const done = async <T>(result: Promise<T>): Promise<T> => {
      try {
        return await result;
      } finally {
        writing.delete(name);
      }
    };
    return {
      path,
      get bytes() {
        return writer.bytes;
      },
      get queuedBytes() {
        return writer.queuedBytes;
      },
      append: (chunk) => writer.append(chunk),
      written: () => writer.written(),
      sync: async () => ({ path, ...(await writer.sync()) }),
      abort: () => done(writer.abort()),
      async finish() {
        const result = await done(writer.finish());
        if (now() - lastSweep >= sweepIntervalMs) {
          // Retention is housekeeping: a failed sweep must never fail the write it rides on.
          await sweep().catch(() => 0);
        }
        return { path, ...result };
      },
    };
  }

  async function write(
    data: Uint8Array | string,
    writeOptions: SpillWriteOptions = {},
  ): Promise<SpillResult> {
    const file = await open(writeOptions);
    file.append(typeof data === "string" ? Buffer.from(data, "utf8") : data);
    return file.finish();
  }

  return { dir, open, write, sweep };
}

function checkInteger(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(expectedReceived(name, `an integer >= ${min}`, value));
  }
  return value;
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
