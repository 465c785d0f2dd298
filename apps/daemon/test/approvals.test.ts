// Approvals through conchd, with the real SDK clients over real stdio and real bwrap: a client that can
// show a form is asked through it (accept, decline, cancel, a bad answer, no answer in time), in both
// protocol eras; a client that cannot gets a pending approval that `conch approve` grants out of band.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { answerPendingApproval, listPendingApprovals } from "@conch/orchestrator";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  CLIENTS,
  type ClientKind,
  type Connection,
  connect,
  type ElicitAnswer,
  type ElicitParams,
  makeWorkspace,
  textOf,
  type Workspace,
} from "./harness.js";

// Why a person was asked about `touch made`, said after their no.
const ASKED_WHY =
  "\nIt was asked because `touch made` is not known to be read-only, and under the approval policy untrusted only commands known to be read-only run unasked.";

let ws: Workspace;
let open: Connection[];
beforeEach(() => {
  ws = makeWorkspace();
  open = [];
});
afterEach(async () => {
  for (const connection of open) await connection.close();
  ws.remove();
});

async function start(
  kind: ClientKind,
  args: readonly string[],
  elicit?: (p: ElicitParams, signal: AbortSignal) => Promise<ElicitAnswer>,
) {
  // Untrusted unless the test names its own policy: every command that is not known safe asks.
  const approval = args.includes("--approval") ? [] : ["--approval", "untrusted"];
  const connection = await connect(kind, ws, [...approval, ...args], elicit === undefined ? {} : { elicit });
  open.push(connection);
  return connection;
}

/**
 * What `conch pending --json`, `conch approve ID [--session]` and `conch deny ID [--note]` do, through the
 * same functions (apps do not depend on each other; apps/cli's approvals.test.ts runs the real binary).
 */
async function conch(...args: string[]): Promise<{ code: number; stdout: string }> {
  const options = { env: ws.env };
  const [command, id, flag, note] = args;
  if (command === "pending") {
    const listed = await listPendingApprovals(options);
    return { code: 0, stdout: JSON.stringify(listed) };
  }
  const scope = flag === "--session" ? "session" : flag === "--always" ? "always" : "once";
  const request =
    command === "approve"
      ? ({ op: "approve", id: id as string, scope } as const)
      : ({ op: "deny", id: id as string, ...(note === undefined ? {} : { note }) } as const);
  const answered = await answerPendingApproval(request, options);
  return { code: answered.found ? 0 : 5, stdout: "" };
}

function auditDecisions(): [unknown, unknown][] {
  const path = join(ws.env.XDG_STATE_HOME as string, "conch", "audit.jsonl");
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.type === "decision" && line.requirement === "needs-approval")
    .map((line) => [line.decision, line.decidedBy]);
}

const made = () => existsSync(join(ws.cwd, "made"));
const TOUCH = { command: "touch made" };

describeWith("bwrap", "in-protocol approvals (elicitation)", () => {
  it.each(CLIENTS)("%s: the form shows the command, cwd, sandbox and why; run once runs it", async (kind) => {
    const forms: ElicitParams[] = [];
    const client = await start(kind, [], async (params) => {
      forms.push(params);
      return { action: "accept", content: { decision: "approve" } };
    });
    const result = await client.callTool("shell_command", TOUCH);
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toContain("Exit code: 0");
    expect(made()).toBe(true);
    expect(forms).toHaveLength(1);
    const form = forms[0] as ElicitParams;
    expect(form.message).toContain("command: touch made");
    expect(form.message).toContain(`cwd: ${ws.cwd}`);
    expect(form.message).toContain("sandbox: workspace-write");
    expect(form.message).toContain("why:");
    const decision = (form.requestedSchema.properties as Record<string, { oneOf?: { const: string }[] }>)
      .decision;
    expect(decision?.oneOf?.map((choice) => choice.const)).toEqual([
      "approve",
      "approve_session",
      "approve_always",
      "deny",
    ]);
    expect(form.requestedSchema.required).toEqual(["decision"]);
    await client.close();
    open = [];
    // A 2026-07-28 client is asked by the first round's input_required: that round is logged as pending.
    expect(auditDecisions()).toEqual([
      ...(kind === "v2 (2026-07-28)" ? [["pending", "elicitation"]] : []),
      ["approved", "elicitation"],
    ]);
  });

  it.each(CLIENTS)(
    "%s: deny with a note, decline, cancel and a bad answer run nothing, each said plainly",
    async (kind) => {
      const answers: ElicitAnswer[] = [
        { action: "accept", content: { decision: "deny", note: "use make instead" } },
        { action: "decline" },
        { action: "cancel" },
        { action: "accept", content: { decision: "yes please" } },
      ];
      const client = await start(kind, [], async () => answers.shift() as ElicitAnswer);
      const denied = await client.callTool("shell_command", TOUCH);
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toBe(`rejected by user: use make instead${ASKED_WHY}`);
      expect(denied.structuredContent).toMatchObject({ status: "rejected", rejection: "denied-by-user" });
      const declined = await client.callTool("shell_command", TOUCH);
      expect(textOf(declined)).toBe(`rejected by user${ASKED_WHY}`);
      const cancelled = await client.callTool("shell_command", TOUCH);
      expect(textOf(cancelled)).toMatch(/^not approved: the person dismissed the question/);
      expect(cancelled.structuredContent).toMatchObject({ rejection: "not-approved" });
      const bad = await client.callTool("shell_command", TOUCH);
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/^not approved:/);
      expect(made()).toBe(false);
    },
  );

  it.each(CLIENTS)(
    "%s: allow for this session asks once; later identical calls run unasked",
    async (kind) => {
      let asked = 0;
      const client = await start(kind, [], async () => {
        asked++;
        return { action: "accept", content: { decision: "approve_session" } };
      });
      for (let i = 0; i < 3; i++)
        expect(textOf(await client.callTool("shell_command", TOUCH))).toContain("Exit code: 0");
      expect(asked).toBe(1);
    },
  );

  it.each(["v2 (2025-11-25)", "sdk 1.32 (2025-11-25)"] as const)(
    "%s: no answer within approval_timeout_s is not approved, and the command never runs",
    async (kind) => {
      mkdirSync(join(ws.env.XDG_CONFIG_HOME as string, "conch"), { recursive: true });
      writeFileSync(
        join(ws.env.XDG_CONFIG_HOME as string, "conch", "config.toml"),
        "approval_timeout_s = 1\n",
      );
      const client = await start(kind, [], () => new Promise(() => {}));
      const result = await client.callTool("shell_command", TOUCH);
      expect(textOf(result)).toBe("not approved: no answer within 1 s; the command did not run");
      expect(result.structuredContent).toMatchObject({ rejection: "not-approved" });
      expect(made()).toBe(false);
    },
  );

  it.each(["v2 (2025-11-25)", "sdk 1.32 (2025-11-25)"] as const)(
    "%s: a person who answers out of band first wins, and the client's form is withdrawn",
    async (kind) => {
      let withdrawn: (() => void) | null = null;
      const formGone = new Promise<void>((resolve) => {
        withdrawn = resolve;
      });
      let forms = 0;
      const client = await start(kind, [], (_params, signal) => {
        // The first form is answered at the client. (sdk 1.32 ignores a cancellation of request id 0,
        // the first request conchd sends it: `if (!requestId) return`; the second form has id 1.)
        if (++forms === 1) return Promise.resolve({ action: "accept", content: { decision: "approve" } });
        // The person at the client never answers the second; it goes away when conchd cancels it.
        signal.addEventListener("abort", () => withdrawn?.(), { once: true });
        return new Promise(() => {});
      });
      expect(textOf(await client.callTool("shell_command", { command: "touch first" }))).toContain(
        "Exit code: 0",
      );
      const call = client.callTool("shell_command", TOUCH);
      let listed: { id: string; route: string }[] = [];
      while (listed.length === 0) {
        listed = (JSON.parse((await conch("pending")).stdout) as { pending: typeof listed }).pending;
        if (listed.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(listed).toMatchObject([{ route: "elicitation" }]);
      expect(await conch("approve", listed[0]?.id as string)).toMatchObject({ code: 0 });
      expect(textOf(await call)).toContain("Exit code: 0");
      expect(made()).toBe(true);
      await formGone;
      expect(JSON.parse((await conch("pending")).stdout)).toMatchObject({ pending: [] });
      await client.close();
      open = [];
      expect(auditDecisions()).toEqual([
        ["approved", "elicitation"],
        ["approved", "out-of-band"],
      ]);
    },
  );

  it.each(CLIENTS)("%s: a form answered first takes the question off the out-of-band list", async (kind) => {
    const client = await start(kind, [], async () => {
      // While the form is open the question is listed; answering it takes it off.
      const listed = JSON.parse((await conch("pending")).stdout) as { pending: { route: string }[] };
      expect(listed.pending).toMatchObject([{ route: "elicitation" }]);
      return { action: "accept", content: { decision: "approve" } };
    });
    expect(textOf(await client.callTool("shell_command", TOUCH))).toContain("Exit code: 0");
    expect(JSON.parse((await conch("pending")).stdout)).toMatchObject({ pending: [] });
  });

  it("v2 (2026-07-28): an answer given out of band between the rounds wins over the client's", async () => {
    let asked = 0;
    const client = await start("v2 (2026-07-28)", [], async () => {
      asked++;
      // The person elsewhere approves while this client's person is still looking; this one says no.
      const listed = JSON.parse((await conch("pending")).stdout) as { pending: { id: string }[] };
      expect((await conch("approve", listed.pending[0]?.id as string)).code).toBe(0);
      return { action: "accept", content: { decision: "deny" } };
    });
    expect(textOf(await client.callTool("shell_command", TOUCH))).toContain("Exit code: 0");
    expect(asked).toBe(1);
    expect(made()).toBe(true);
    expect(JSON.parse((await conch("pending")).stdout)).toMatchObject({ pending: [] });
  });

  it("v2 (2026-07-28): an answer that comes back after approval_timeout_s is not approved", async () => {
    mkdirSync(join(ws.env.XDG_CONFIG_HOME as string, "conch"), { recursive: true });
    writeFileSync(join(ws.env.XDG_CONFIG_HOME as string, "conch", "config.toml"), "approval_timeout_s = 1\n");
    const client = await start("v2 (2026-07-28)", [], async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return { action: "accept", content: { decision: "approve" } };
    });
    const result = await client.callTool("shell_command", TOUCH);
    expect(textOf(result)).toBe("not approved: no answer within 1 s; the command did not run");
    expect(made()).toBe(false);
  });
});

describeWith("bwrap", "out-of-band approvals (conch pending / approve / deny)", () => {
  it.each(CLIENTS)(
    "%s: a client that cannot ask gets the pending id; an answer out of band grants it; the retry runs once",
    async (kind) => {
      const client = await start(kind, []);
      const first = await client.callTool("shell_command", TOUCH);
      expect(first.isError).toBe(true);
      expect(first.structuredContent).toMatchObject({ status: "rejected", rejection: "approval-pending" });
      const id = /approval ([0-9a-z]{8}) is pending/.exec(textOf(first))?.[1] as string;
      expect(id).toBeDefined();
      // One sentence the model can relay to the user as it is.
      expect(textOf(first)).toContain(
        `Tell the user, in these words: "Please run \`conch approve ${id}\` on this machine, or approve it in conchd's web console (\`conch console\` opens it)."`,
      );
      // The same call again before anyone answered: still pending, the same id, nothing ran.
      expect(textOf(await client.callTool("shell_command", TOUCH))).toMatch(
        new RegExp(`approval ${id} is still pending \\(asked \\d+ s ago, lapses in 10 min\\)`),
      );
      expect(made()).toBe(false);

      const listed = await conch("pending", "--json");
      expect(listed.code).toBe(0);
      const pending = JSON.parse(listed.stdout) as {
        daemons: number;
        pending: { id: string; argv: string[]; client: string }[];
      };
      expect(pending.daemons).toBe(1);
      expect(pending.pending).toMatchObject([{ id, client: "conchd-test" }]);
      expect(pending.pending[0]?.argv.at(-1)).toBe("touch made");

      expect(await conch("approve", id)).toMatchObject({ code: 0 });
      expect((await conch("approve", id)).code).toBe(5);
      const retry = await client.callTool("shell_command", TOUCH);
      expect(textOf(retry)).toContain("Exit code: 0");
      expect(made()).toBe(true);
      // Single use: the next identical call asks again.
      const again = await client.callTool("shell_command", TOUCH);
      expect(again.structuredContent).toMatchObject({ rejection: "approval-pending" });
      await client.close();
      open = [];
      expect(auditDecisions()).toEqual([
        ["pending", "out-of-band"],
        ["pending", "out-of-band"],
        ["approved", "out-of-band"],
        ["pending", "out-of-band"],
      ]);
    },
  );

  it("wait_for_approval_ms: a person's answer out of band within the wait runs the command in the same call", async () => {
    const client = await start("v2 (2025-11-25)", []);
    const call = client.callTool("shell_command", { ...TOUCH, wait_for_approval_ms: 20_000 });
    let id: string | undefined;
    for (let tries = 0; tries < 200 && id === undefined; tries++) {
      id = JSON.parse((await conch("pending", "--json")).stdout).pending[0]?.id as string | undefined;
      if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await conch("approve", id as string)).toMatchObject({ code: 0 });
    expect(textOf(await call)).toContain("Exit code: 0");
    expect(made()).toBe(true);
    // Nobody answers: the call returns after its wait, still pending, saying it waited.
    const waited = await client.callTool("shell_command", {
      command: "touch other",
      wait_for_approval_ms: 500,
    });
    expect(textOf(waited)).toMatch(
      /is still pending \(asked \d+ s ago, lapses in 10 min\), and the command did not run\. Nobody answered in the \d+ s this call waited\./,
    );
  });

  it("conch deny with a note: the retry reads it, and nothing runs", async () => {
    const client = await start("v2 (2025-11-25)", []);
    const id = /approval ([0-9a-z]{8})/.exec(
      textOf(await client.callTool("shell_command", TOUCH)),
    )?.[1] as string;
    expect(await conch("deny", id, "--note", "not in this repo")).toMatchObject({ code: 0 });
    // The person's decision is in the audit log when it is made, before (and whether or not) a retry.
    const answered = () =>
      readFileSync(join(ws.env.XDG_STATE_HOME as string, "conch", "audit.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.type === "decision" && line.requirement === "answered");
    for (let tries = 0; tries < 100 && answered().length === 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(answered()).toMatchObject([
      { tool: "approval", client: "conchd-test", decision: "denied", decidedBy: "out-of-band", cwd: ws.cwd },
    ]);
    expect((answered()[0]?.argv as string[] | undefined)?.at(-1)).toBe("touch made");
    const retry = await client.callTool("shell_command", TOUCH);
    expect(textOf(retry)).toBe(`rejected by user: not in this repo${ASKED_WHY}`);
    expect(made()).toBe(false);
  });

  it.each([false, true])(
    "a sandboxed command cannot reach the approval socket to approve itself (network_access %s)",
    async (network) => {
      mkdirSync(join(ws.env.XDG_CONFIG_HOME as string, "conch"), { recursive: true });
      writeFileSync(
        join(ws.env.XDG_CONFIG_HOME as string, "conch", "config.toml"),
        `network_access = ${network}\n`,
      );
      const asker = await start("v2 (2025-11-25)", []);
      const id = /approval ([0-9a-z]{8})/.exec(
        textOf(await asker.callTool("shell_command", TOUCH)),
      )?.[1] as string;
      // Known safe under on-request: python3 runs unasked, in the sandbox, and tries every daemon socket,
      // by listing the directory and by the exact paths.
      const client = await start("v2 (2025-11-25)", ["--approval", "on-request"]);
      const dir = join(ws.env.XDG_STATE_HOME as string, "conch", "conchd");
      const paths = [asker.pid, client.pid].map((pid) => join(dir, `${pid}.sock`));
      const script = [
        "import glob, json, socket",
        `paths = sorted(set(glob.glob(${JSON.stringify(`${dir}/*.sock`)}) + ${JSON.stringify(paths)}))`,
        "for path in paths:",
        "    try:",
        "        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
        "        s.connect(path)",
        `        s.sendall(json.dumps({"op": "approve", "id": ${JSON.stringify(id)}, "scope": "session"}).encode() + b"\\n")`,
        "        print('reply:', s.recv(1000))",
        "    except Exception as error:",
        "        print('refused:', type(error).__name__)",
      ].join("\n");
      writeFileSync(join(ws.cwd, "try.py"), script);
      const attempt = await client.callTool("shell_command", { command: "python3 try.py" });
      expect(textOf(attempt)).toContain("Exit code: 0");
      expect(textOf(attempt).match(/refused:/g)).toHaveLength(2);
      expect(textOf(attempt)).not.toContain("reply:");
      const listed = JSON.parse((await conch("pending", "--json")).stdout) as { pending: { id: string }[] };
      expect(listed.pending.map((entry) => entry.id)).toContain(id);
      expect(textOf(await asker.callTool("shell_command", TOUCH))).toMatch(
        new RegExp(`approval ${id} is (still )?pending`),
      );
    },
  );
});
