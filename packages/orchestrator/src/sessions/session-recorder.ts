// Every PTY session recorded as an asciicast v2 file (asciinema's format: a JSON header line, then one
// `[seconds, "o", text]` line per chunk of output and `[seconds, "r", "COLSxROWS"]` per resize), so a
// person can play back what a terminal showed. Files are 0600 in a 0700 directory of Conch's state dir,
// which sandboxed commands cannot see; each stops at its size limit, saying so in its last event.
import {
  chmodSync,
  closeSync,
  constants,
  createWriteStream,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  type WriteStream,
} from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { SessionEvent, SessionStore } from "@conch/unified-exec";
import { conchStateDir } from "../runtime/state-dir.js";

export interface RecorderOptions {
  /** The directory the recordings go to (made 0700). */
  readonly dir: string;
  /** A recording stops once it holds this many bytes. */
  readonly maxBytes: number;
}

/** One recording, as `conch record list` and the console list them. */
export interface RecordingInfo {
  /** The file's name, `<session id>-<start, UTC>.cast`. */
  readonly name: string;
  readonly path: string;
  readonly sessionId: number;
  readonly startedAt: number;
  readonly bytes: number;
  /** The recorded command, from the file's header (untrusted: the model's text). */
  readonly command: string;
}

interface Recording {
  readonly stream: WriteStream;
  readonly decoder: StringDecoder;
  readonly startedPerf: number;
  bytes: number;
  stopped: boolean;
}

const NAME = /^(\d+)-(\d{8}T\d{6}(?:\d{3})?Z)\.cast$/;
// The header is read for its command from the first bytes of a file: a command longer than this shows cut.
const HEADER_BYTES = 16 * 1024;

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, "").replace(".", "");
}

function parseStamp(text: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})?Z$/.exec(text);
  if (match === null) return 0;
  const [, y, mo, d, h, mi, s, ms] = match;
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms ?? 0));
}

/**
 * Records every PTY session of `store` from now on into `options.dir`. Returns the function that stops
 * recording (what was recorded stays).
 */
export function recordSessions(store: SessionStore, options: RecorderOptions): () => void {
  const recordings = new Map<number, Recording>();
  let dirReady = false;

  const write = (recording: Recording, line: string): void => {
    if (recording.stopped) return;
    const bytes = Buffer.byteLength(line);
    if (recording.bytes + bytes > options.maxBytes) {
      const limit =
        options.maxBytes >= 1024 * 1024
          ? `${Math.round(options.maxBytes / 1024 / 1024)} MiB`
          : `${Math.round(options.maxBytes / 1024)} KiB`;
      const notice = `${JSON.stringify([elapsed(recording), "o", `\r\n[conch: recording stopped at its limit of ${limit}]\r\n`])}\n`;
      recording.stream.write(notice);
      recording.stopped = true;
      recording.stream.end();
      return;
    }
    recording.bytes += bytes;
    recording.stream.write(line);
  };

  const start = (event: Extract<SessionEvent, { type: "started" }>): void => {
    if (!event.info.tty) return;
    if (!dirReady) {
      mkdirSync(options.dir, { recursive: true, mode: 0o700 });
      chmodSync(options.dir, 0o700);
      dirReady = true;
    }
    const path = join(options.dir, `${event.id}-${stamp(event.info.startedAt)}.cast`);
    let fd: number;
    try {
      fd = openSync(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
    } catch {
      // Another recording of the same id in the same millisecond, or the directory is gone: none here.
      return;
    }
    const stream = createWriteStream(path, { fd });
    stream.on("error", () => {
      const recording = recordings.get(event.id);
      if (recording !== undefined) recording.stopped = true;
    });
    const recording: Recording = {
      stream,
      decoder: new StringDecoder("utf8"),
      startedPerf: performance.now(),
      bytes: 0,
      stopped: false,
    };
    recordings.set(event.id, recording);
    write(
      recording,
      `${JSON.stringify({
        version: 2,
        width: event.info.cols,
        height: event.info.rows,
        timestamp: Math.floor(event.info.startedAt / 1000),
        command: event.info.command,
        title: `conch session ${event.id}`,
        env: { TERM: "xterm-256color" },
      })}\n`,
    );
  };

  const end = (id: number): void => {
    const recording = recordings.get(id);
    if (recording === undefined) return;
    recordings.delete(id);
    const rest = recording.decoder.end();
    if (rest !== "") write(recording, `${JSON.stringify([elapsed(recording), "o", rest])}\n`);
    if (!recording.stopped) recording.stream.end();
  };

  return store.observe((event) => {
    switch (event.type) {
      case "started":
        start(event);
        return;
      case "output": {
        const recording = recordings.get(event.id);
        if (recording === undefined || recording.stopped) return;
        const text = recording.decoder.write(event.data);
        if (text !== "") write(recording, `${JSON.stringify([elapsed(recording), "o", text])}\n`);
        return;
      }
      case "resized": {
        const recording = recordings.get(event.id);
        if (recording !== undefined) {
          write(recording, `${JSON.stringify([elapsed(recording), "r", `${event.cols}x${event.rows}`])}\n`);
        }
        return;
      }
      case "exited":
      case "removed":
        end(event.id);
        return;
    }
  });
}

function elapsed(recording: Recording): number {
  return Math.round((performance.now() - recording.startedPerf) * 1000) / 1_000_000;
}

/** Where a user's recordings go: `<state dir>/recordings` (see conchStateDir). */
export function recordingsDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return join(conchStateDir({ env }), "recordings");
}

/** The recordings in `dir`, newest first; none when it does not exist. */
export function listRecordings(dir: string): RecordingInfo[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: RecordingInfo[] = [];
  for (const name of names) {
    const match = NAME.exec(name);
    if (match === null) continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) continue;
    found.push({
      name,
      path,
      sessionId: Number(match[1]),
      startedAt: parseStamp(match[2] as string),
      bytes: stat.size,
      command: headerCommand(path),
    });
  }
  return found.sort((a, b) => b.startedAt - a.startedAt || b.sessionId - a.sessionId);
}

function headerCommand(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return "";
  }
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.toString("utf8", 0, read);
    const newline = text.indexOf("\n");
    if (newline === -1) return "";
    const header = JSON.parse(text.slice(0, newline)) as { command?: unknown };
    return typeof header.command === "string" ? header.command : "";
  } catch {
    return "";
  } finally {
    closeSync(fd);
  }
}
