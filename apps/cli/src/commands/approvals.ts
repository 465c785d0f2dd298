// `conch pending`, `conch approve ID`, `conch deny ID`: a person's answers to the approvals a running
// conchd holds for clients that cannot ask one (out of band), over each daemon's unix socket in the
// state dir.

import { answerPendingApproval, type ListedApproval, listPendingApprovals } from "@conch/orchestrator";
import { expectedReceived, visibleText } from "@conch/protocol";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXIT_NONE_FOUND } from "../exit-codes.js";
import { APPROVE_HELP, DENY_HELP, PENDING_HELP } from "../help.js";
import { jsonLine, snakeKeys } from "../output/json-line.js";

const ID = /^[0-9a-z]{1,32}$/;

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

function describe(entry: ListedApproval, now: number): string {
  // The rows as the daemon's prompt shows them (escaped there), under the daemon's own policy.
  const rows = entry.fields.map(({ label, value }) =>
    value.includes("\n")
      ? `  ${label}:\n${value.replace(/^/gm, "    | ")}`
      : `  ${`${label}:`.padEnd(10)}${value}`,
  );
  if (entry.rule !== null)
    rows.push(`  ${"always:".padEnd(10)}--always stores the rule \`${entry.rule} ...\``);
  if (entry.route === "elicitation") {
    rows.push(`  ${"note:".padEnd(10)}the client's own form asks this too: the first answer counts`);
  }
  const head = `${entry.id}  from ${visibleText(entry.client)} (conchd pid ${entry.daemon}), asked ${age(now - entry.createdAt)} ago, lapses in ${age(entry.expiresAt - now)}`;
  return [head, ...rows].join("\n");
}

function idArgument(positionals: readonly string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError("expected one approval ID (see conch pending)", command);
  const id = positionals[0] as string;
  if (!ID.test(id)) {
    throw new UsageError(expectedReceived("ID", "an approval id of letters and digits", id), command);
  }
  return id;
}

const PENDING_SPECS = {
  json: { type: "boolean" },
  full: { type: "string" },
  help: { type: "boolean" },
} as const;

/**
 * `conch pending [--json] [--full ID]`: what waits for a person, in every running conchd of this user;
 * with --full, one approval with every row whole.
 */
export async function pendingCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, PENDING_SPECS, "pending", false);
  if (options.help) {
    process.stdout.write(PENDING_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError("takes no arguments", "pending");
  const full = options.full;
  if (full !== undefined && !ID.test(full)) {
    throw new UsageError(expectedReceived("--full", "an approval id of letters and digits", full), "pending");
  }
  const { daemons, pending } = await listPendingApprovals(full === undefined ? {} : { full });
  if (full !== undefined && pending.length === 0 && options.json !== true) {
    process.stderr.write(
      daemons === 0
        ? `conch pending: no conchd is running, so no approval ${full} waits\n`
        : `conch pending: no pending approval ${full} (it may have been answered, or lapsed; see conch pending)\n`,
    );
    return EXIT_NONE_FOUND;
  }
  if (options.json === true) {
    process.stdout.write(jsonLine(snakeKeys({ daemons, pending })));
    return 0;
  }
  if (pending.length === 0) {
    process.stdout.write(
      daemons === 0
        ? "conch pending: no conchd is running\n"
        : `conch pending: nothing waits (${daemons} conchd running)\n`,
    );
    return 0;
  }
  const now = Date.now();
  process.stdout.write(`${pending.map((entry) => describe(entry, now)).join("\n\n")}\n`);
  process.stdout.write(
    "\nconch approve ID [--session|--always] runs it; conch deny ID [--note TEXT] refuses it.\n",
  );
  return 0;
}

const APPROVE_SPECS = {
  session: { type: "boolean" },
  always: { type: "boolean" },
  help: { type: "boolean" },
} as const;

const APPROVED: Record<"once" | "session" | "always", (id: string) => string> = {
  once: (id) => `conch approve: ${id} approved once: the model's retry of that call runs\n`,
  session: (id) =>
    `conch approve: ${id} approved for the session: the model's retry runs, and the same command runs unasked from now on\n`,
  always: (id) =>
    `conch approve: ${id} allowed always: the model's retry runs, and its rule is stored (see conch pending for the rule)\n`,
};

/**
 * `conch approve ID [--session|--always]`: lets the model's retry of that call run (every retry, with
 * --session; and the question's rule stored, with --always).
 */
export async function approveCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, APPROVE_SPECS, "approve", false);
  if (options.help) {
    process.stdout.write(APPROVE_HELP);
    return 0;
  }
  const id = idArgument(positionals, "approve");
  if (options.session === true && options.always === true) {
    throw new UsageError("--session and --always: choose one", "approve");
  }
  const scope = options.always === true ? "always" : options.session === true ? "session" : "once";
  return answered(
    await answerPendingApproval({ op: "approve", id, scope }),
    id,
    "approve",
    APPROVED[scope](id),
  );
}

const DENY_SPECS = { note: { type: "string" }, help: { type: "boolean" } } as const;

/** `conch deny ID [--note TEXT]`: refuses it; the model's retry reads "rejected by user" and the note. */
export async function denyCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, DENY_SPECS, "deny", false);
  if (options.help) {
    process.stdout.write(DENY_HELP);
    return 0;
  }
  const id = idArgument(positionals, "deny");
  const note = options.note;
  if (note !== undefined && note.length > 2000) {
    throw new UsageError("--note: expected at most 2000 characters", "deny");
  }
  return answered(
    await answerPendingApproval({ op: "deny", id, ...(note === undefined ? {} : { note }) }),
    id,
    "deny",
    `conch deny: ${id} refused: the model's retry reads "rejected by user"${note === undefined ? "" : " and your note"}\n`,
  );
}

function answered(
  result: { daemons: number; found: boolean; refused: string | null },
  id: string,
  command: string,
  done: string,
): number {
  if (result.found) {
    process.stdout.write(done);
    return 0;
  }
  if (result.refused !== null) {
    process.stderr.write(
      `conch ${command}: ${visibleText(result.refused)}; approve it once or for the session\n`,
    );
    return EXIT_NONE_FOUND;
  }
  process.stderr.write(
    result.daemons === 0
      ? `conch ${command}: no conchd is running, so no approval ${id} waits\n`
      : `conch ${command}: no pending approval ${id} (it may have been answered, or lapsed after 10 minutes; see conch pending)\n`,
  );
  return EXIT_NONE_FOUND;
}
