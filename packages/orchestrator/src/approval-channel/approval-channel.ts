// The out-of-band approval channel: a running daemon listens on a unix socket in Conch's state dir
// (0700; the socket 0600), one per daemon process, so a stdio daemon can be answered too; `conch pending`,
// `conch approve ID` and `conch deny ID` talk to every daemon of the user. Sandboxed commands cannot
// reach it: the state dir is hidden from them. One JSON request per connection, one JSON answer.
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { ApprovalField, PendingApproval, PendingApprovals } from "@conch/approval";
import { conchStateDir } from "../runtime/state-dir.js";

/** What the channel is asked. */
export type ChannelRequest =
  | { readonly op: "pending"; readonly full?: string }
  | { readonly op: "approve"; readonly id: string; readonly scope: "once" | "session" | "always" }
  | { readonly op: "deny"; readonly id: string; readonly note?: string }
  | { readonly op: "console" };

/** A pending approval as `conch pending` lists it: with the daemon that holds it. */
export interface ListedApproval extends PendingApproval {
  /** The daemon's process id. */
  readonly daemon: number;
  /** The command's length, and whether `argv` was cut to be listed (its middle left out). */
  readonly commandChars: number;
  readonly commandCut: boolean;
}

// A request is a few hundred bytes; anything past this is not one of ours.
const MAX_REQUEST_BYTES = 64 * 1024;
// A reply lists at most 256 pending approvals, each command cut to SHOWN_COMMAND_CHARS: well under this.
const MAX_REPLY_BYTES = 16 * 1024 * 1024;
const SHOWN_COMMAND_CHARS = 8 * 1024;
// A row longer than twice this is shown as its head and end, with a row saying what is cut between.
const SHOWN_FIELD_CHARS = 2 * 1024;
const IO_TIMEOUT_MS = 5000;
const NOTE_MAX_CHARS = 2000;
const ID = /^[0-9a-z]{1,32}$/;

/** Where the daemons' sockets are: `$XDG_STATE_HOME/conch/conchd/`. */
function approvalChannelDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return join(conchStateDir({ env }), "conchd");
}

function parseRequest(text: string): ChannelRequest | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "expected one JSON object";
  }
  if (typeof value !== "object" || value === null) return "expected one JSON object";
  const { op, id, scope, note, full } = value as Record<string, unknown>;
  if (op === "pending" && full !== undefined) {
    if (typeof full !== "string" || !ID.test(full))
      return "full: expected an approval id (letters and digits)";
    return { op, full };
  }
  if (op === "pending" || op === "console") return { op };
  if (op !== "approve" && op !== "deny") return `op: expected "pending", "approve", "deny" or "console"`;
  if (typeof id !== "string" || !ID.test(id)) return "id: expected an approval id (letters and digits)";
  if (op === "approve") {
    if (scope !== "once" && scope !== "session" && scope !== "always") {
      return `scope: expected "once", "session" or "always"`;
    }
    return { op, id, scope };
  }
  if (note !== undefined && (typeof note !== "string" || note.length > NOTE_MAX_CHARS)) {
    return `note: expected a string of at most ${NOTE_MAX_CHARS} characters`;
  }
  return note === undefined ? { op, id } : { op, id, note };
}

/** Where `text` may be cut near `at` without splitting a surrogate pair or an escape (`\u{…}`). */
function cutPoint(text: string, at: number): number {
  let point = at;
  const code = text.charCodeAt(point);
  if (code >= 0xdc00 && code <= 0xdfff) point--;
  const escapeAt = text.lastIndexOf("\\u{", point);
  if (escapeAt !== -1 && escapeAt > point - 12) {
    const close = text.indexOf("}", escapeAt);
    if (close >= point) point = escapeAt;
  }
  return Math.max(0, point);
}

/** `text` with its middle cut to SHOWN_COMMAND_CHARS when longer, saying how much was cut. */
function cutMiddle(text: string, keep: number): string {
  if (text.length <= 2 * keep) return text;
  return `${text.slice(0, keep)} […${text.length - 2 * keep} characters cut…] ${text.slice(-keep)}`;
}

/**
 * The rows of an entry, a row longer than SHOWN_FIELD_CHARS cut in the middle: its head, then a row of
 * Conch's own (`cut`, a label the model cannot write: values are escaped, and a value's lines stay
 * behind its label) saying how much is not shown and how to see all of it, then its end.
 */
function cutFields(entry: PendingApproval): { fields: ApprovalField[]; cut: boolean } {
  const fields: ApprovalField[] = [];
  let cut = false;
  for (const field of entry.fields) {
    if (field.value.length <= 2 * SHOWN_FIELD_CHARS) {
      fields.push(field);
      continue;
    }
    cut = true;
    const head = cutPoint(field.value, SHOWN_FIELD_CHARS);
    const tail = cutPoint(field.value, field.value.length - SHOWN_FIELD_CHARS);
    fields.push(
      { label: field.label, value: field.value.slice(0, head) },
      {
        label: "cut",
        value: `${tail - head} of the ${field.value.length} characters of ${field.label} are not shown here; \`conch pending --full ${entry.id}\` shows all of it`,
      },
      { label: `${field.label} (end)`, value: field.value.slice(tail) },
    );
  }
  return { fields, cut };
}

/**
 * An entry as the channel sends it: a command longer than SHOWN_COMMAND_CHARS is cut (its head and
 * tail kept, in argv and in the rows shown) and says so in a row of its own, so that one huge command
 * cannot make the list too long to read; `whole` sends it uncut (`conch pending --full ID`).
 */
function shown(
  entry: PendingApproval,
  whole = false,
): PendingApproval & { commandChars: number; commandCut: boolean } {
  const chars = entry.argv.reduce((sum, word) => sum + word.length, 0);
  const { fields, cut } = whole ? { fields: entry.fields, cut: false } : cutFields(entry);
  if (whole || chars <= SHOWN_COMMAND_CHARS)
    return { ...entry, fields, commandChars: chars, commandCut: cut };
  const half = Math.floor(SHOWN_COMMAND_CHARS / 2 / Math.max(1, entry.argv.length));
  const argv = entry.argv.map((word) => cutMiddle(word, half));
  return { ...entry, argv, fields, commandChars: chars, commandCut: true };
}

/** What else the daemon serves on its channel besides the approvals. */
export interface ChannelServices {
  /** A fresh one-time login link to the daemon's web console, or null when it serves none. */
  readonly consoleLink?: () => string | null;
}

function answer(
  pending: PendingApprovals,
  services: ChannelServices,
  request: ChannelRequest,
): Record<string, unknown> {
  if (request.op === "pending") {
    const { full } = request;
    if (full === undefined) return { ok: true, pending: pending.list().map((entry) => shown(entry)) };
    return {
      ok: true,
      pending: pending.list().flatMap((entry) => (entry.id === full ? [shown(entry, true)] : [])),
    };
  }
  if (request.op === "console") return { ok: true, url: services.consoleLink?.() ?? null };
  if (request.op === "approve" && request.scope === "always") {
    const entry = pending.list().find((candidate) => candidate.id === request.id);
    if (entry !== undefined && entry.rule === null) {
      return {
        ok: false,
        error: `approval ${request.id} cannot be allowed always: no rule may be stored for it`,
      };
    }
  }
  const verdict =
    request.op === "approve"
      ? ({ decision: "approve", scope: request.scope } as const)
      : ({ decision: "deny", ...(request.note === undefined ? {} : { note: request.note }) } as const);
  return pending.answer(request.id, verdict)
    ? { ok: true }
    : { ok: false, error: `no pending approval ${request.id}` };
}

function serveConnection(socket: Socket, pending: PendingApprovals, services: ChannelServices): void {
  let received = "";
  socket.setEncoding("utf8");
  socket.setTimeout(IO_TIMEOUT_MS, () => socket.destroy());
  socket.on("error", () => socket.destroy());
  socket.on("data", (chunk: string) => {
    received += chunk;
    if (received.length > MAX_REQUEST_BYTES) {
      socket.end(`${JSON.stringify({ ok: false, error: "request too large" })}\n`);
      return;
    }
    const newline = received.indexOf("\n");
    if (newline === -1) return;
    const request = parseRequest(received.slice(0, newline));
    const reply =
      typeof request === "string" ? { ok: false, error: request } : answer(pending, services, request);
    socket.end(`${JSON.stringify(reply)}\n`);
  });
}

/** A listening channel: where it is, and how to stop it (the socket file goes too). */
export interface ApprovalChannel {
  readonly path: string;
  close(): Promise<void>;
}

/**
 * Serves `pending` on `<dir>/<pid>.sock` (dir 0700, socket 0600). A socket file left by a daemon that
 * died under the same pid is replaced.
 */
export async function serveApprovalChannel(
  pending: PendingApprovals,
  options: {
    readonly dir?: string;
    readonly env?: Readonly<Record<string, string | undefined>>;
    readonly services?: ChannelServices;
  } = {},
): Promise<ApprovalChannel> {
  const dir = options.dir ?? approvalChannelDir(options.env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = join(dir, `${process.pid}.sock`);
  if (lstatSync(path, { throwIfNoEntry: false })?.isSocket() === true) rmSync(path);
  const services = options.services ?? {};
  const server: Server = createServer((socket) => serveConnection(socket, pending, services));
  // The umask decides the socket's mode at bind; chmod right after closes the rest.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } finally {
    process.umask(umask);
  }
  chmodSync(path, 0o600);
  server.unref();
  return {
    path,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}

function ask(path: string, request: ChannelRequest): Promise<Record<string, unknown> | null> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let received = "";
    const done = (value: Record<string, unknown> | null) => {
      socket.destroy();
      resolve(value);
    };
    socket.setEncoding("utf8");
    socket.setTimeout(IO_TIMEOUT_MS, () => done(null));
    // A daemon that died left its socket: nobody answers there.
    socket.on("error", () => done(null));
    socket.on("data", (chunk: string) => {
      received += chunk;
      if (received.length > MAX_REPLY_BYTES) done(null);
    });
    socket.on("end", () => {
      try {
        const value = JSON.parse(received) as unknown;
        done(typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null);
      } catch {
        done(null);
      }
    });
    socket.write(`${JSON.stringify(request)}\n`);
  });
}

/** The sockets of the user's running daemons, by pid. */
function daemonSockets(dir: string): { pid: number; path: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => /^\d+\.sock$/.test(name))
    .map((name) => ({ pid: Number(name.slice(0, -5)), path: join(dir, name) }))
    .filter(({ path }) => lstatSync(path, { throwIfNoEntry: false })?.isSocket() === true);
}

/**
 * How many daemons answered, and what is pending in each; with `full`, only that approval, uncut
 * however long its command.
 */
export async function listPendingApprovals(
  options: {
    readonly dir?: string;
    readonly env?: Readonly<Record<string, string | undefined>>;
    readonly full?: string;
  } = {},
): Promise<{ daemons: number; pending: ListedApproval[] }> {
  const sockets = daemonSockets(options.dir ?? approvalChannelDir(options.env));
  const request: ChannelRequest =
    options.full === undefined ? { op: "pending" } : { op: "pending", full: options.full };
  const replies = await Promise.all(
    sockets.map(async (socket) => ({ socket, reply: await ask(socket.path, request) })),
  );
  const pending: ListedApproval[] = [];
  let daemons = 0;
  for (const { socket, reply } of replies) {
    if (reply?.ok !== true || !Array.isArray(reply.pending)) continue;
    daemons++;
    for (const entry of reply.pending as Omit<ListedApproval, "daemon">[])
      pending.push({ ...entry, daemon: socket.pid });
  }
  return { daemons, pending: pending.sort((a, b) => a.createdAt - b.createdAt) };
}

/**
 * A person's answer to approval `id`, given to whichever running daemon holds it. Resolves with how
 * many daemons answered and whether one held the id (`found`).
 */
export async function answerPendingApproval(
  request: Extract<ChannelRequest, { op: "approve" | "deny" }>,
  options: { readonly dir?: string; readonly env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<{ daemons: number; found: boolean; refused: string | null }> {
  const sockets = daemonSockets(options.dir ?? approvalChannelDir(options.env));
  let daemons = 0;
  let refused: string | null = null;
  for (const socket of sockets) {
    const reply = await ask(socket.path, request);
    if (reply === null) continue;
    daemons++;
    if (reply.ok === true) return { daemons, found: true, refused: null };
    // The daemon holds the id but will not take this answer (always, without a rule to store).
    if (typeof reply.error === "string" && !reply.error.startsWith("no pending approval"))
      refused = reply.error;
  }
  return { daemons, found: false, refused };
}

/** A fresh one-time login link to the web console of each running daemon that serves one. */
export async function consoleLinks(
  options: { readonly dir?: string; readonly env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<{ daemons: number; links: { daemon: number; url: string }[] }> {
  const sockets = daemonSockets(options.dir ?? approvalChannelDir(options.env));
  const replies = await Promise.all(
    sockets.map(async (socket) => ({ socket, reply: await ask(socket.path, { op: "console" }) })),
  );
  const links: { daemon: number; url: string }[] = [];
  let daemons = 0;
  for (const { socket, reply } of replies) {
    if (reply?.ok !== true) continue;
    daemons++;
    if (typeof reply.url === "string") links.push({ daemon: socket.pid, url: reply.url });
  }
  return { daemons, links };
}
