// A conchd that restarts (killed, crashed, upgraded) finds the remote sessions of the one before it: each
// session the ledger lists is attached again on the agent and listed with the id the model knows, its
// output read from what the agent still holds (everything the model had not read); the agent's other
// processes (a one-shot command whose conchd died) are ended.
import type { PreparedSandbox } from "@conch/sandbox-core";
import type { SessionStore } from "@conch/unified-exec";
import type { RemoteLedger } from "../sessions/remote-ledger.js";
import type { SessionMonitor } from "../sessions/session-monitor.js";
import { type AttemptOptions, remoteRun } from "./attempts.js";
import { remoteProcess } from "./remote-process.js";

export interface ResumeOptions {
  readonly ledger: RemoteLedger;
  readonly prepared: PreparedSandbox;
  readonly store: SessionStore;
  readonly monitor: SessionMonitor;
  readonly attempts: AttemptOptions;
}

/** Resumes what `options.ledger` lists; a line for each session found, forgotten or ended. */
export async function resumeRemoteSessions(options: ResumeOptions): Promise<string[]> {
  const { ledger, prepared, store, monitor, attempts } = options;
  const host = prepared.host;
  if (host === null) return [];
  const lines: string[] = [];
  const claimed = new Set<string>();
  for (const entry of ledger.entries()) {
    const found = await host.attach(entry.processId).catch(() => null);
    if (found === null) {
      ledger.remove(entry.sessionId);
      lines.push(
        `session ${entry.sessionId} (${entry.command}): the ${host.where} no longer has it; forgotten`,
      );
      continue;
    }
    claimed.add(entry.processId);
    const remote = remoteRun(attempts, prepared, entry.tool, { id: entry.sessionId });
    if (remote === null) continue;
    const process = remoteProcess(found, remote, 1);
    await store.start(
      {
        argv: entry.argv,
        command: entry.command,
        cwd: entry.cwd,
        tty: entry.tty,
        cols: entry.cols,
        rows: entry.rows,
        remote: async () => process,
      },
      0,
      {
        id: entry.sessionId,
        keepAfterExit: entry.keepAfterExit,
        readNothing: true,
        onStored: (id) =>
          monitor.describe(id, {
            tool: entry.tool,
            cwd: entry.cwd,
            sandbox: prepared.name,
            client: entry.client,
          }),
      },
    );
    lines.push(`session ${entry.sessionId} (${entry.command}): found again on the ${host.where}`);
  }
  // Only this workspace's: another workspace's conchd, sharing the agent, keeps its own.
  const orphans = (await host.list().catch(() => [])).filter(
    (entry) => !claimed.has(entry.id) && entry.workspace === prepared.workspace.cwd,
  );
  for (const orphan of orphans) {
    await (await host.attach(orphan.id).catch(() => null))?.terminate().catch(() => {});
    lines.push(`the ${host.where}'s process ${orphan.id} belongs to no session: ended`);
  }
  return lines;
}
