// Commands of a remote backend (a conch-agent): started on its host under the sandbox intent of the
// rules, their output read by sequence number, each range logged in the audit log as it comes, and
// acknowledged only once the model has read it, so that a conchd that restarts finds on the host all the
// model had not seen. A session drives such a process as its own (unified-exec's `remote`); a one-shot
// command is the same process, read to its exit.

import { randomUUID } from "node:crypto";
import { EXIT_CODE_CANCELED, EXIT_CODE_TIMEOUT, type RunOptions } from "@conch/exec-core";
import type { ExecRequest, ExecResult } from "@conch/protocol";
import type { HostProcess, ProcessHost, SandboxRules } from "@conch/sandbox-core";
import type { RemoteProcess, RemoteStart } from "@conch/unified-exec";

/** How long one read waits for output on the agent (a long poll). */
const READ_WAIT_MS = 25_000;
/** Exit code of a process whose agent was lost (its fate is unknown). */
const EXIT_CODE_AGENT_LOST = 255;

/** A range of a remote process's output, for the audit log: what conchd received, by sequence number. */
interface RemoteOutputRange {
  readonly processId: string;
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly bytes: number;
}

export interface RemoteRunOptions {
  /** Each live remote process is listed here while it runs, to be let go (not ended) at shutdown. */
  readonly live?: Set<{ detach(): void }>;
  readonly host: ProcessHost;
  readonly rules: SandboxRules;
  /** The session's workspace (canonical), which `rules` were resolved for. */
  readonly workspace: string;
  /** Logs a range as it is received (the audit log's `output` line), before it may be acknowledged. */
  readonly record: (range: RemoteOutputRange) => void;
  /** Resolves once what `record` logged is on disk (the audit log's flush): only then is it acknowledged. */
  readonly flushed: () => Promise<void>;
}

/** The line a session's output ends with when its agent is gone. */
function lostText(where: string, error: unknown): string {
  return `\r\n[conch: lost the ${where} (${(error as Error).message}); this command's fate there is unknown, and its session has ended]\r\n`;
}

/**
 * Drives `process` (started, or found again after a restart) as a session's RemoteProcess: reads it from
 * `fromSeq` to its exit (a long poll), logs each batch's range as it comes, and acknowledges output to
 * the host once the session's reader has taken it (`consumed`) and its range is logged, so that what the
 * model had not read when conchd died is still on the host. `ackOnReceipt`: acknowledge as it comes (a
 * one-shot command, which nothing finds again).
 */
export function remoteProcess(
  process: HostProcess,
  options: RemoteRunOptions,
  fromSeq = 1,
  ackOnReceipt = false,
): RemoteProcess {
  let stopped = false;
  // Let go at conchd's shutdown: the process runs on, for the next conchd to find.
  let detached = false;
  const self = {
    detach: () => {
      detached = true;
      stopped = true;
    },
  };
  options.live?.add(self);
  const writer = randomUUID();
  let writes = 0;
  let queue: Promise<unknown> = Promise.resolve();
  // In order, each with an id of its own: one sent again after a lost connection is typed once.
  const then = (step: () => Promise<unknown>): void => {
    queue = queue.then(step).catch(() => {});
  };
  // Chunks delivered to the session, by count, with the sequence number each completes.
  let delivered = 0;
  const marks: { count: number; seq: number }[] = [];
  let acked = fromSeq - 1;
  const ack = (seq: number): void => {
    if (seq <= acked) return;
    acked = seq;
    void options
      .flushed()
      .then(() => process.ack(seq))
      .catch(() => {});
  };
  return {
    start: (events) => {
      const deliver = (data: Buffer, seq: number): void => {
        delivered++;
        marks.push({ count: delivered, seq });
        events.onData(data);
      };
      let nextSeq = fromSeq;
      let droppedSaid = 0;
      void (async () => {
        for (;;) {
          if (stopped) return;
          let read: Awaited<ReturnType<HostProcess["read"]>>;
          try {
            read = await process.read(nextSeq, { waitMs: READ_WAIT_MS });
          } catch (error) {
            if (stopped) return;
            deliver(Buffer.from(lostText(options.host.where, error)), nextSeq - 1);
            events.onExit(EXIT_CODE_AGENT_LOST);
            return;
          }
          if (read.droppedBytes > droppedSaid) {
            deliver(
              Buffer.from(
                `\r\n[conch: the agent dropped ${read.droppedBytes - droppedSaid} bytes of output before they were read]\r\n`,
              ),
              nextSeq - 1,
            );
            droppedSaid = read.droppedBytes;
          }
          const first = read.chunks[0];
          const last = read.chunks.at(-1);
          if (first !== undefined && last !== undefined) {
            const bytes = read.chunks.reduce((sum, chunk) => sum + chunk.data.length, 0);
            options.record({ processId: process.id, fromSeq: first.seq, toSeq: last.seq, bytes });
            for (const chunk of read.chunks) deliver(Buffer.from(chunk.data), chunk.seq);
            if (ackOnReceipt) ack(last.seq);
          }
          nextSeq = read.nextSeq;
          if (read.exit !== null) {
            events.onExit(read.exit.exitCode ?? EXIT_CODE_AGENT_LOST);
            return;
          }
        }
      })();
    },
    consumed: (count) => {
      let seq = -1;
      while (marks.length > 0 && (marks[0] as { count: number }).count <= count) {
        seq = (marks.shift() as { seq: number }).seq;
      }
      if (seq > 0) ack(seq);
    },
    write: (data) => {
      // This conchd's own prefix: a conchd that restarts counts from 1 again, and must not be taken for
      // a retry of what the one before it wrote.
      const writeId = `${writer}:${++writes}`;
      then(() => process.write(Buffer.from(data), writeId));
    },
    resize: (cols, rows) => then(() => process.resize(cols, rows)),
    signal: (signal) => then(() => process.signal(signal)),
    terminate: async () => {
      options.live?.delete(self);
      if (detached) return;
      await queue;
      await process.terminate().catch(() => {});
    },
    close: () => {
      stopped = true;
      options.live?.delete(self);
    },
  };
}

/** unified-exec's `remote` for a session on `options.host`. */
export function remoteSessionStart(
  options: RemoteRunOptions,
  onStarted?: (processId: string) => void,
  ackOnReceipt = false,
): (start: RemoteStart) => Promise<RemoteProcess> {
  return async (start) => {
    const id = randomUUID();
    const process = await options.host.start({
      id,
      spec: { argv: [...start.argv], cwd: start.cwd, env: { ...start.env }, extraFds: [] },
      rules: options.rules,
      workspace: options.workspace,
      tty: start.tty,
      size: { cols: start.cols, rows: start.rows },
    });
    onStarted?.(id);
    return remoteProcess(process, options, 1, ackOnReceipt);
  };
}

/** exec-core's `run`, for a one-shot command on `options.host`: its output streamed, read to its exit. */
export async function runRemote(
  options: RemoteRunOptions,
  request: ExecRequest,
  run: Pick<RunOptions, "signal" | "onOutput" | "buffer">,
): Promise<ExecResult> {
  const started = performance.now();
  const start = remoteSessionStart(options, undefined, true);
  const remote = await start({
    argv: request.argv,
    cwd: request.cwd,
    // As a session's: what the policy sets; the agent adds its own core variables.
    env: { ...(request.env?.set ?? {}) },
    tty: false,
    cols: 80,
    rows: 24,
  });
  let stdoutBytes = 0;
  const kept: Buffer[] = [];
  let output = Promise.resolve();
  let timedOut = false;
  let canceled = false;
  const exitCode = await new Promise<number>((resolve) => {
    const end = (kind: "timeout" | "cancel"): void => {
      if (kind === "timeout") timedOut = true;
      else canceled = true;
      void remote.terminate(0);
    };
    const timer =
      request.timeoutMs === undefined ? null : setTimeout(() => end("timeout"), request.timeoutMs);
    const abort = (): void => end("cancel");
    run.signal?.addEventListener("abort", abort, { once: true });
    if (run.signal?.aborted === true) abort();
    remote.start({
      onData: (chunk) => {
        stdoutBytes += chunk.length;
        if (run.buffer !== false) kept.push(chunk);
        const forwarded = run.onOutput?.({ stream: "stdout", data: chunk });
        if (forwarded instanceof Promise) output = output.then(() => forwarded).then(() => undefined);
      },
      onExit: (code) => {
        if (timer !== null) clearTimeout(timer);
        run.signal?.removeEventListener("abort", abort);
        resolve(code);
      },
    });
  });
  // Released on the agent, which forgets a process once it is released and its output acknowledged.
  await remote.terminate(0);
  remote.close();
  await output;
  const text = Buffer.concat(kept).toString("utf8");
  return {
    command: [...request.argv],
    cwd: request.cwd,
    exitCode: timedOut ? EXIT_CODE_TIMEOUT : canceled ? EXIT_CODE_CANCELED : exitCode,
    signal: null,
    durationMs: performance.now() - started,
    timedOut,
    canceled,
    truncated: false,
    binary: false,
    stdout: text,
    stderr: "",
    output: text,
    stdoutBytes,
    stderrBytes: 0,
    leftProcesses: [],
    limitsReached: [],
  };
}
