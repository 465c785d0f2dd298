import { createHash } from "node:crypto";
import { closeSync, constants, mkdirSync, openSync, writeFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ApprovalPolicy } from "@conch/protocol";
import { visibleText } from "@conch/protocol";
import { conchStateDir, type StateDirOptions } from "../runtime/state-dir.js";

/**
 * Who settled a decision: the policy alone, the session cache, the person asked (at a prompt, through
 * an MCP client's form, or out of band with `conch approve`), or a stored rule.
 */
const AUDIT_DECIDERS: readonly ["policy", "cache", "user", "elicitation", "out-of-band", "rule"] = [
  "policy",
  "cache",
  "user",
  "elicitation",
  "out-of-band",
  "rule",
] as const;

const APPEND_NO_FOLLOW = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW;

export type AuditDecider = (typeof AUDIT_DECIDERS)[number];

/** The command as given: a plain argv, or a shell script. */
export type AuditCommand =
  | { readonly argv: readonly string[]; readonly script?: undefined }
  | { readonly script: string; readonly argv?: undefined };

/** Who sent input to a session or closed it: the model (through a tool), or a person (the console). */
export type AuditActor = "model" | "person";

/** Fields any event may carry: the client whose call it was (an MCP client's name, untrusted). */
interface AuditCommon {
  readonly client?: string | null;
}

type AuditDecisionEvent = AuditCommand &
  AuditCommon & {
    readonly type: "decision";
    readonly tool: string;
    readonly cwd: string;
    readonly approvalPolicy: ApprovalPolicy;
    /** `skip`, `needs-approval` or `forbidden`. */
    readonly requirement: string;
    /** A `ReviewDecision`, or what the policy or a rule settled on. */
    readonly decision: string;
    readonly decidedBy: AuditDecider;
    readonly sandbox: string;
    /** For a connection the command asked for rather than the command: `host:port`. */
    readonly network?: string;
  };

type AuditExecutionEvent = AuditCommand &
  AuditCommon & {
    readonly type: "execution";
    readonly tool: string;
    readonly cwd: string;
    readonly sandbox: string;
    /** The session it started, for a command that runs as a live session. */
    readonly sessionId?: number;
    /** Where its whole output was saved because the model's text was cut. */
    readonly spill?: string | null;
    /** Where it ran when not on this machine (a remote backend's host), and its id there. */
    readonly remote?: { readonly where: string; readonly processId: string };
    readonly exitCode: number | null;
    readonly durationMs: number;
    readonly timedOut: boolean;
    readonly canceled: boolean;
    readonly denied: boolean;
  };

/**
 * Input sent to a live session (write_stdin, terminal_write, terminal_signal): text written to it, or a
 * signal sent to its process group. The log keeps the text whole, escaped, as a command's script is kept:
 * a payload padded past any excerpt would otherwise run unrecorded. Only a write larger than
 * AUDIT_INPUT_MAX_CHARS keeps its head and tail; its sha256 is there either way.
 */
type AuditInputEvent = AuditCommon & {
  readonly type: "input";
  readonly tool: string;
  readonly sessionId: number;
  /** Whether its process was still running when the input was sent (to an exited one, nothing is). */
  readonly running: boolean;
  /** Who typed it: the model, or a person who took the session over (default: the model). */
  readonly by?: AuditActor;
} & (
    | { readonly text: string; readonly signal?: undefined }
    | { readonly signal: string; readonly text?: undefined }
  );

/**
 * A live session ended on purpose: by Conch because nobody had polled or written to it for `idleS`
 * (session_idle_ttl_s), or closed by the model (terminal_close) or a person (the console's Kill).
 */
type AuditSessionClosedEvent = AuditCommon & {
  readonly type: "session-closed";
  readonly tool: string;
  readonly sessionId: number;
  readonly command: string;
} & (
    | { readonly reason: "idle"; readonly idleS: number; readonly by?: undefined }
    | { readonly reason: "closed"; readonly by: AuditActor; readonly idleS?: undefined }
  );

/**
 * One connection a sandboxed command asked Conch's network proxy for: where to, what was decided, by
 * whom (`policy`: the configuration; `user`, `elicitation`, `out-of-band`: a person; `timeout`: nobody
 * answered in time), and for an allowed one the bytes each way once it closed.
 */
type AuditNetworkEvent = AuditCommon & {
  readonly type: "network";
  readonly tool: string;
  readonly cwd: string;
  /** The session whose command it was, for a command that runs as a live session. */
  readonly sessionId?: number;
  readonly host: string;
  readonly port: number;
  readonly protocol: string;
  readonly decision: "allowed" | "blocked";
  readonly decidedBy: string;
  readonly reason: string;
  readonly bytesOut: number;
  readonly bytesIn: number;
};

/**
 * Output of a command that runs on a remote backend's host, as conchd received it: the range of the
 * process's output sequence numbers and its size. Logged before the range is acknowledged to the host,
 * so that a conchd that restarts reads on from the last range here: no output is lost and none is
 * counted twice.
 */
type AuditOutputEvent = AuditCommon & {
  readonly type: "output";
  readonly tool: string;
  readonly sessionId?: number;
  readonly where: string;
  readonly processId: string;
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly bytes: number;
};

export type AuditEvent =
  | AuditOutputEvent
  | AuditDecisionEvent
  | AuditExecutionEvent
  | AuditInputEvent
  | AuditSessionClosedEvent
  | AuditNetworkEvent;

/**
 * Characters of one input an audit line keeps whole, before escaping (far beyond anything typed); a
 * larger write keeps its first and last half of this, with the count of what is between.
 */
const AUDIT_INPUT_MAX_CHARS = 64 * 1024;

export interface AuditLogOptions extends StateDirOptions {
  /** Defaults to `<state dir>/audit.jsonl` (see `conchStateDir`). */
  readonly path?: string;
  /** Milliseconds since the epoch, for each line's `time`. */
  readonly now?: () => number;
  /** Told about the first failed append of an outage; never called again until an append succeeds. */
  readonly onError?: (error: Error) => void;
}

/** One line of the log as written: the event's whitelisted fields and its `time`. */
export type AuditEntry = Readonly<Record<string, unknown>>;

export interface AuditLog {
  readonly path: string;
  /** Queues one line; never throws. Lines reach the file in call order. */
  record(event: AuditEvent): void;
  /** Resolves once every line queued so far has been written (or has failed). Never rejects. */
  flush(): Promise<void>;
  /**
   * Calls `listener` with every entry recorded from now on, as it is written to the file (a console
   * following the log); returns the function that stops it. What the listener throws is ignored.
   */
  subscribe(listener: (entry: AuditEntry) => void): () => void;
}

export function createAuditLog(options: AuditLogOptions = {}): AuditLog {
  const path = options.path ?? join(conchStateDir(options), "audit.jsonl");
  const now = options.now ?? Date.now;
  const onError = options.onError;
  let pending: string[] = [];
  let draining: Promise<void> | null = null;
  let dirReady = false;
  let reported = false;

  // Written with the synchronous calls (a few lines at a time): a trip through the thread pool for each
  // of open, write and close cost a one-shot `conch run` more than the write, on its way to exiting.
  async function writeBatch(lines: string): Promise<void> {
    if (!dirReady) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      dirReady = true;
    }
    // O_APPEND, so lines from other processes never overwrite ours; O_NOFOLLOW, so a symlink planted at
    // the log's path cannot turn an append into a write to another file (a shell's rc file, say).
    const fd = openSync(path, APPEND_NO_FOLLOW, 0o600);
    try {
      writeFileSync(fd, lines);
    } finally {
      closeSync(fd);
    }
  }

  async function drain(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.join("");
      pending = [];
      try {
        await writeBatch(batch);
        reported = false;
      } catch (error) {
        if (!reported) {
          reported = true;
          try {
            onError?.(error instanceof Error ? error : new Error(String(error)));
          } catch {
            // A throwing error handler must not break the queue.
          }
        }
      }
    }
    draining = null;
  }

  const listeners = new Set<(entry: AuditEntry) => void>();

  function record(event: AuditEvent): void {
    let entry: AuditEntry;
    let line: string;
    try {
      entry = auditRecord(event, now());
      line = `${JSON.stringify(entry)}\n`;
    } catch {
      return;
    }
    pending.push(line);
    draining ??= drain();
    for (const listener of listeners) {
      try {
        listener(entry);
      } catch {
        // A listener's failure is its own: the log goes on.
      }
    }
  }

  async function flush(): Promise<void> {
    while (draining !== null) await draining;
  }

  function subscribe(listener: (entry: AuditEntry) => void): () => void {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  return { path, record, flush, subscribe };
}

// How much of the log's end is read for its recent entries: far more than a page of them.
const RECENT_TAIL_BYTES = 1024 * 1024;

/**
 * The last `limit` entries of the log at `path`, oldest first: read from its last MiB, O_NOFOLLOW, each
 * line parsed (a line that is not a JSON object, or was cut at the start, is skipped). None when the log
 * does not exist yet.
 */
export async function recentAuditEntries(path: string, limit: number): Promise<AuditEntry[]> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - RECENT_TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString("utf8").split("\n");
    // The first line read may be the end of a line cut by the window.
    if (start > 0) lines.shift();
    const entries: AuditEntry[] = [];
    for (const line of lines) {
      if (line.trim() === "") continue;
      try {
        const value = JSON.parse(line) as unknown;
        if (typeof value === "object" && value !== null && !Array.isArray(value))
          entries.push(value as AuditEntry);
      } catch {
        // Not one of ours.
      }
    }
    return entries.slice(-limit);
  } finally {
    await handle.close();
  }
}

/**
 * The whitelist: a line holds these fields and nothing else, each coerced to its type, so output, env
 * values or any other property a caller attaches can never reach the file.
 */
function auditRecord(event: AuditEvent, timeMs: number): Record<string, unknown> {
  const head = {
    time: new Date(timeMs).toISOString(),
    type: event.type,
    tool: text(event.tool),
    ...(typeof event.client === "string" ? { client: event.client } : {}),
  };
  if (event.type === "session-closed") {
    return {
      ...head,
      sessionId: Number.isSafeInteger(event.sessionId) ? event.sessionId : null,
      command: text(event.command),
      reason: text(event.reason),
      ...(event.reason === "idle"
        ? { idleS: Number.isFinite(event.idleS) ? Math.round(event.idleS) : null }
        : { by: actor(event.by) }),
    };
  }
  if (event.type === "input") {
    const input =
      typeof event.text === "string"
        ? {
            bytes: Buffer.byteLength(event.text),
            sha256: createHash("sha256").update(event.text).digest("hex"),
            text: inputText(event.text),
          }
        : { signal: text(event.signal) };
    return {
      ...head,
      sessionId: Number.isSafeInteger(event.sessionId) ? event.sessionId : null,
      running: event.running === true,
      by: actor(event.by),
      ...input,
    };
  }
  if (event.type === "output") {
    const count = (value: unknown): number | null => (Number.isSafeInteger(value) ? (value as number) : null);
    return {
      ...head,
      ...(Number.isSafeInteger(event.sessionId) ? { sessionId: event.sessionId } : {}),
      where: text(event.where),
      processId: text(event.processId),
      fromSeq: count(event.fromSeq),
      toSeq: count(event.toSeq),
      bytes: count(event.bytes),
    };
  }
  if (event.type === "network") {
    const count = (value: unknown): number | null => (Number.isSafeInteger(value) ? (value as number) : null);
    return {
      ...head,
      cwd: text(event.cwd),
      ...(Number.isSafeInteger(event.sessionId) ? { sessionId: event.sessionId } : {}),
      host: text(event.host),
      port: count(event.port),
      protocol: text(event.protocol),
      decision: event.decision === "allowed" ? "allowed" : "blocked",
      decidedBy: text(event.decidedBy),
      reason: text(event.reason),
      bytesOut: count(event.bytesOut),
      bytesIn: count(event.bytesIn),
    };
  }
  const command = Array.isArray(event.argv) ? { argv: event.argv.map(text) } : { script: text(event.script) };
  if (event.type === "decision") {
    return {
      ...head,
      ...command,
      cwd: text(event.cwd),
      approvalPolicy: text(event.approvalPolicy),
      requirement: text(event.requirement),
      decision: text(event.decision),
      decidedBy: (AUDIT_DECIDERS as readonly unknown[]).includes(event.decidedBy) ? event.decidedBy : null,
      sandbox: text(event.sandbox),
      ...(typeof event.network === "string" ? { network: event.network } : {}),
    };
  }
  return {
    ...head,
    ...command,
    cwd: text(event.cwd),
    sandbox: text(event.sandbox),
    exitCode: Number.isSafeInteger(event.exitCode) ? event.exitCode : null,
    durationMs: Number.isFinite(event.durationMs) ? Math.round(event.durationMs) : null,
    timedOut: event.timedOut === true,
    canceled: event.canceled === true,
    denied: event.denied === true,
    ...(Number.isSafeInteger(event.sessionId) ? { sessionId: event.sessionId } : {}),
    ...(typeof event.spill === "string" ? { spill: event.spill } : {}),
    ...(typeof event.remote === "object" && event.remote !== null
      ? { remote: { where: text(event.remote.where), processId: text(event.remote.processId) } }
      : {}),
  };
}

function actor(value: unknown): AuditActor {
  return value === "person" ? "person" : "model";
}

/**
 * The text written, with controls and invisible characters shown as `\u{HEX}` (a terminal showing the
 * log must not act on them); past AUDIT_INPUT_MAX_CHARS, its head and tail and how much is between.
 */
function inputText(written: string): string {
  const chars = Array.from(written);
  if (chars.length <= AUDIT_INPUT_MAX_CHARS) return visibleText(written);
  const half = AUDIT_INPUT_MAX_CHARS / 2;
  const head = visibleText(chars.slice(0, half).join(""));
  const tail = visibleText(chars.slice(chars.length - half).join(""));
  return `${head}… (${chars.length - 2 * half} characters not kept) …${tail}`;
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
