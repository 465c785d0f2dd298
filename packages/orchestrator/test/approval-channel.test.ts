// The out-of-band approval channel over a real unix socket: what `conch pending/approve/deny` talk to.
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApprovalRequest, PendingApprovals } from "@conch/approval";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  answerPendingApproval,
  consoleLinks,
  listPendingApprovals,
  serveApprovalChannel,
} from "../src/approval-channel/approval-channel.js";

const request: ApprovalRequest = {
  argv: ["/bin/bash", "-lc", "touch x"],
  cwd: "/work",
  reason: "writes",
  proposedRule: null,
  sandboxMode: "workspace-write",
  sandboxPermissions: "use_default",
  tty: false,
};

let base: string;
let dir: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "conch-channel-"));
  dir = join(base, "conchd");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function raw(path: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
    socket.end(text);
  });
}

describe("approval channel", () => {
  it("lists, approves and denies through the socket; dir 0700, socket 0600, gone on close", async () => {
    const pending = new PendingApprovals();
    const channel = await serveApprovalChannel(pending, { dir });
    try {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(channel.path).mode & 0o777).toBe(0o600);
      const id = (pending.ask(request, "client-a", (found) => found).reason as string).trim();
      const other = pending.ask({ ...request, argv: ["rm", "x"] }, "client-b", (found) => found)
        .reason as string;
      const listed = await listPendingApprovals({ dir });
      expect(listed.daemons).toBe(1);
      expect(listed.pending.map((entry) => [entry.id, entry.client, entry.daemon])).toEqual([
        [id, "client-a", process.pid],
        [other, "client-b", process.pid],
      ]);
      expect(await answerPendingApproval({ op: "approve", id, scope: "once" }, { dir })).toEqual({
        daemons: 1,
        found: true,
        refused: null,
      });
      expect(pending.ask(request, "client-a", (found) => found).decision).toBe("approved");
      expect(await answerPendingApproval({ op: "deny", id: other, note: "no" }, { dir })).toEqual({
        daemons: 1,
        found: true,
        refused: null,
      });
      expect(await answerPendingApproval({ op: "approve", id: "nosuchid", scope: "once" }, { dir })).toEqual({
        daemons: 1,
        found: false,
        refused: null,
      });
    } finally {
      await channel.close();
    }
    expect(() => statSync(channel.path)).toThrow();
    expect(await listPendingApprovals({ dir })).toEqual({ daemons: 0, pending: [] });
  });

  it("allows always only a question with a rule to store, and hands out console links", async () => {
    const pending = new PendingApprovals();
    let links = 0;
    const channel = await serveApprovalChannel(pending, {
      dir,
      services: { consoleLink: () => `http://127.0.0.1:1/#login=${++links}` },
    });
    try {
      const bare = pending.ask(request, "c", (found) => found).reason as string;
      const ruled = { ...request, argv: ["touch", "y"], proposedRule: ["touch"] };
      const withRule = pending.ask(ruled, "c", (found) => found).reason as string;
      expect(await answerPendingApproval({ op: "approve", id: bare, scope: "always" }, { dir })).toEqual({
        daemons: 1,
        found: false,
        refused: `approval ${bare} cannot be allowed always: no rule may be stored for it`,
      });
      expect(
        await answerPendingApproval({ op: "approve", id: withRule, scope: "always" }, { dir }),
      ).toMatchObject({ found: true });
      expect(pending.ask(ruled, "c", (found) => found).decision).toBe("approved_always");
      expect(await consoleLinks({ dir })).toEqual({
        daemons: 1,
        links: [{ daemon: process.pid, url: "http://127.0.0.1:1/#login=1" }],
      });
      expect((await consoleLinks({ dir })).links[0]?.url).toBe("http://127.0.0.1:1/#login=2");
    } finally {
      await channel.close();
    }
    const none = await serveApprovalChannel(pending, { dir });
    try {
      expect(await consoleLinks({ dir })).toEqual({ daemons: 1, links: [] });
    } finally {
      await none.close();
    }
  });

  it("answers malformed and oversized requests with an error naming the field, and keeps serving", async () => {
    const pending = new PendingApprovals();
    const channel = await serveApprovalChannel(pending, { dir });
    try {
      expect(JSON.parse(await raw(channel.path, "not json\n"))).toEqual({
        ok: false,
        error: "expected one JSON object",
      });
      expect(
        JSON.parse(await raw(channel.path, '{"op":"approve","id":"../x","scope":"once"}\n')),
      ).toMatchObject({
        ok: false,
        error: expect.stringContaining("id:"),
      });
      expect(
        JSON.parse(await raw(channel.path, '{"op":"approve","id":"abc","scope":"forever"}\n')),
      ).toMatchObject({
        ok: false,
        error: expect.stringContaining("scope:"),
      });
      expect(JSON.parse(await raw(channel.path, `${"x".repeat(70_000)}`))).toEqual({
        ok: false,
        error: "request too large",
      });
      expect((await listPendingApprovals({ dir })).daemons).toBe(1);
    } finally {
      await channel.close();
    }
  });

  it("a flood of questions, or one huge command, cannot hide the list: 256 entries, commands cut and marked", async () => {
    const pending = new PendingApprovals();
    const channel = await serveApprovalChannel(pending, { dir });
    try {
      pending.ask(
        { ...request, argv: ["/bin/bash", "-lc", `echo ${"x".repeat(4_000_000)}`] },
        "c",
        (id) => id,
      );
      for (let i = 0; i < 300; i++) pending.ask({ ...request, argv: ["touch", `f${i}`] }, "c", (id) => id);
      const listed = await listPendingApprovals({ dir });
      expect(listed.daemons).toBe(1);
      expect(listed.pending).toHaveLength(256);
      const cut = await (async () => {
        const only = new PendingApprovals();
        const other = await serveApprovalChannel(only, { dir: join(base, "other") });
        try {
          only.ask(
            { ...request, argv: ["/bin/bash", "-lc", `echo ${"y".repeat(4_000_000)}`] },
            "c",
            (id) => id,
          );
          return (await listPendingApprovals({ dir: join(base, "other") })).pending[0];
        } finally {
          await other.close();
        }
      })();
      expect(cut).toMatchObject({ commandCut: true, commandChars: 4_000_000 + 5 + 12 });
      expect((cut?.argv.join(" ") ?? "").length).toBeLessThan(10_000);
      expect(cut?.argv[2]).toContain("characters cut");
      // The rows shown are cut as well.
      expect(JSON.stringify(cut?.fields).length).toBeLessThan(20_000);
      // Its head, a row of Conch's own saying how much is cut and where all of it is, and its end.
      const id = cut?.id as string;
      const command = `echo ${"y".repeat(4_000_000)}`;
      expect(cut?.fields.slice(1, 4)).toEqual([
        { label: "command", value: command.slice(0, 2048) },
        {
          label: "cut",
          value: `${command.length - 4096} of the ${command.length} characters of command are not shown here; \`conch pending --full ${id}\` shows all of it`,
        },
        { label: "command (end)", value: command.slice(-2048) },
      ]);
    } finally {
      await channel.close();
    }
  });

  it("a 9.6 KB command is cut saying so, and `full` gives it whole, the `touch` in its middle included (issue 20)", async () => {
    const pending = new PendingApprovals();
    const channel = await serveApprovalChannel(pending, { dir });
    try {
      const script = `echo ${"a".repeat(4800)}; touch /var/tmp/pwned; echo ${"b".repeat(4800)}`;
      const id = pending.ask({ ...request, argv: ["/bin/bash", "-lc", script] }, "c", (found) => found)
        .reason as string;
      const listed = (await listPendingApprovals({ dir })).pending[0];
      expect(listed?.fields.map((field) => field.label)).toEqual([
        "shell",
        "command",
        "cut",
        "command (end)",
        "cwd",
        "sandbox",
        "why",
      ]);
      expect(listed?.fields[2]?.value).toBe(
        `${script.length - 4096} of the ${script.length} characters of command are not shown here; \`conch pending --full ${id}\` shows all of it`,
      );
      expect(JSON.stringify(listed?.fields)).not.toContain("touch");
      const whole = await listPendingApprovals({ dir, full: id });
      expect(whole.pending).toHaveLength(1);
      expect(whole.pending[0]?.fields[1]).toEqual({ label: "command", value: script });
      expect(whole.pending[0]?.commandCut).toBe(false);
      expect((await listPendingApprovals({ dir, full: "nosuchid" })).pending).toEqual([]);
      expect(await raw(channel.path, `${JSON.stringify({ op: "pending", full: "../x" })}\n`)).toBe(
        `${JSON.stringify({ ok: false, error: "full: expected an approval id (letters and digits)" })}\n`,
      );
    } finally {
      await channel.close();
    }
  });

  it("skips a socket nobody listens on, and files that are not sockets", async () => {
    const pending = new PendingApprovals();
    const channel = await serveApprovalChannel(pending, { dir });
    // A daemon that died: its socket file is there, nobody accepts.
    const dead = createServer();
    const deadPath = join(dir, "999999.sock");
    await new Promise<void>((resolve) => dead.listen(deadPath, resolve));
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    writeFileSync(join(dir, "12345.sock"), "not a socket");
    try {
      pending.ask(request, "c", (id) => id);
      const listed = await listPendingApprovals({ dir });
      expect(listed.daemons).toBe(1);
      expect(listed.pending).toHaveLength(1);
    } finally {
      await channel.close();
    }
  });
});
