// A command that fails for want of network in a sandbox without one is explained in one line, as a
// sandbox denial is: there is no network, the workspace's commands share one network namespace, and how to
// get network. Real bwrap, real connections to closed loopback ports and real name lookups; never
// explained where the command had the network (danger-full-access, network_access = true).
import { mkdtemp, realpath, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalPolicy, ToolProfileName } from "@conch/protocol";
import type { SandboxPolicy } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let orchestrators: ToolOrchestrator[];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-no-network-")));
  orchestrators = [];
});
afterEach(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.terminateSessions()));
  await rm(work, { recursive: true, force: true });
});

async function tools(
  policy: SandboxPolicy,
  approvalPolicy: ApprovalPolicy = "on-request",
  profile: ToolProfileName = "codex",
): Promise<ToolSet> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy,
    sandbox: policy,
    sessionSandbox: bwrapSandbox(policy, work),
    approver: null,
  });
  orchestrators.push(orchestrator);
  return checkedToolSet({ profile, orchestrator, shell: { type: "bash", path: "/bin/bash" } });
}

const NODE = JSON.stringify(process.execPath);
/** Connects to 127.0.0.1:`port` and prints what it reads, or the error (exit 1). */
const connect = (port: number): string =>
  `${NODE} -e 'require("net").connect(${port}, "127.0.0.1").on("data", (d) => process.stdout.write(d))` +
  `.on("error", (e) => { console.error(e.message); process.exit(1); })'`;
/** Looks up a name that never resolves; prints the error (exit 1). */
const LOOKUP =
  `${NODE} -e 'require("dns").lookup("conch-test.invalid", (e) => ` +
  `{ console.error(e ? e.message : "resolved"); process.exit(e ? 1 : 0); })'`;

const WORKSPACE: SandboxPolicy = { mode: "workspace-write" };
const FACTS =
  "has no network, so connections and name lookups fail. This workspace's commands share one network " +
  "namespace: a server one command or session starts is reachable from the others at 127.0.0.1; the host's " +
  "own servers are not.";
const ESCALATE =
  '[The sandbox (workspace-write) FACTS To use the network, run the command again with sandbox_permissions "require_escalated" and a justification, and the user will be asked; or the user can allow it for every command with network_access = true in ~/.config/conch/config.toml.]'.replace(
    "FACTS",
    FACTS,
  );

/** The text's last line, and the rest. */
function split(text: string): [string, string] {
  const at = text.lastIndexOf("\n");
  return [text.slice(0, at), text.slice(at + 1)];
}

describeWith("bwrap", "a failure for want of network", () => {
  it("a refused connection: one line saying why, and how to ask for network under on-request", async () => {
    const set = await tools(WORKSPACE);
    const result = await set.call("shell_command", { command: connect(1), login: false });
    const [output, hint] = split(result.text);
    expect(output).toMatch(
      /^Exit code: 1\nWall time: [\d.]+ seconds\nOutput:\nconnect ECONNREFUSED 127\.0\.0\.1:1$/,
    );
    expect(hint).toBe(ESCALATE);
    expect(result.result).toMatchObject({ status: "ok", exit_code: 1, sandbox: "bwrap", denied: false });
  });

  it("a name that cannot be looked up", async () => {
    const set = await tools(WORKSPACE);
    const result = await set.call("shell_command", { command: LOOKUP, login: false });
    const [output, hint] = split(result.text);
    expect(output).toMatch(/\ngetaddrinfo (EAI_AGAIN|ENOTFOUND) conch-test\.invalid$/);
    expect(hint).toBe(ESCALATE);
  });

  it("a server started in one session answers a command started later; the host's do not", async () => {
    const set = await tools(WORKSPACE);
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const serve = `${NODE} -e 'require("net").createServer((s) => s.end("hello\\n")).listen(${port}, "127.0.0.1", () => console.log("listening"))'`;
    const server = await set.call("exec_command", { cmd: serve, login: false, yield_time_ms: 5000 });
    expect(server.text).toContain("listening");
    expect(server.result.running).toBe(true);

    const elsewhere = await set.call("shell_command", { command: connect(port), login: false });
    expect(elsewhere.text).toMatch(/^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nhello\n$/);

    const host = createServer((socket) => socket.end("the host's\n"));
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    try {
      const hostPort = (host.address() as AddressInfo).port;
      const refused = await set.call("shell_command", { command: connect(hostPort), login: false });
      expect(refused.text).toContain(`connect ECONNREFUSED 127.0.0.1:${hostPort}`);
      expect(split(refused.text)[1]).toBe(ESCALATE);
    } finally {
      host.close();
    }
  });

  it("a tool that cannot escalate, or a policy that never asks: only the user can allow network", async () => {
    const only =
      "Only the user can allow network, for every command, with network_access = true in ~/.config/conch/config.toml.]";
    for (const [policy, profile, tool, args] of [
      ["on-request", "bash", "bash", { command: connect(1), description: "Connect to a closed port" }],
      ["never", "codex", "shell_command", { command: connect(1), login: false }],
      [
        "on-failure",
        "argv",
        "shell",
        {
          argv: [
            process.execPath,
            "-e",
            'require("dns").lookup("conch-test.invalid", (e) => { console.error(e.message); process.exit(1); })',
          ],
        },
      ],
    ] as const) {
      const set = await tools(WORKSPACE, policy, profile);
      const result = await set.call(tool, args);
      expect(split(result.text)[1], `${policy} ${tool}`).toBe(
        `[The sandbox (workspace-write) ${FACTS} ${only}`,
      );
    }
  });

  it("read-only: network takes workspace-write as well", async () => {
    // Under read-only the sandbox's /tmp is its own: the session's directory must be elsewhere.
    const home = await realpath(await mkdtemp("/var/tmp/conch-no-network-"));
    const orchestrator = new ToolOrchestrator({
      cwd: home,
      approvalPolicy: "never",
      sandbox: { mode: "read-only" },
      sessionSandbox: bwrapSandbox({ mode: "read-only" }, home),
    });
    const set = await checkedToolSet({ profile: "codex", orchestrator });
    const result = await set
      .call("shell_command", { command: connect(1), login: false })
      .finally(() => rm(home, { recursive: true, force: true }));
    expect(split(result.text)[1]).toBe(
      `[The sandbox (read-only) ${FACTS} Only the user can allow network, for every command, with ` +
        'sandbox = "workspace-write" and network_access = true in ~/.config/conch/config.toml.]',
    );
  });

  it("is not explained where the command had the network, nor for other failures or successes", async () => {
    const cases: [SandboxPolicy, string][] = [
      [{ mode: "danger-full-access" }, connect(1)],
      [{ mode: "workspace-write", networkAccess: true }, connect(1)],
      [WORKSPACE, "echo 'curl: (7) Failed to connect to 127.0.0.1 port 1: Connection refused'"],
      [WORKSPACE, "echo 'no such file' >&2; exit 2"],
    ];
    for (const [policy, command] of cases) {
      const set = await tools(policy);
      const result = await set.call("shell_command", { command, login: false });
      expect(result.text, `${policy.mode} ${command}`).not.toContain("[The sandbox");
      expect(result.text.endsWith("\n")).toBe(true);
    }
  });

  it("the tools that start commands say it once in their description, where there is no network", async () => {
    const described = async (
      policy: SandboxPolicy,
      approvalPolicy: ApprovalPolicy,
      profile: ToolProfileName,
    ) =>
      Object.fromEntries(
        (await tools(policy, approvalPolicy, profile)).tools.map((t) => [t.name, t.description]),
      );
    const facts =
      "The sandbox (workspace-write) has no network. This workspace's commands share one network namespace: a " +
      "server one command starts is reachable from the others at 127.0.0.1; the host's own servers are not.";
    const ask =
      'A command that needs the network can ask for it with sandbox_permissions "require_escalated".';
    const codex = await described(WORKSPACE, "on-request", "codex");
    for (const name of ["shell_command", "exec_command", "shell"]) {
      expect(codex[name]?.endsWith(` ${facts} ${ask}`), name).toBe(true);
      expect(codex[name]?.split("network namespace")).toHaveLength(2);
    }
    expect(codex.write_stdin).not.toContain("network");
    expect((await described(WORKSPACE, "never", "codex")).shell_command?.endsWith(` ${facts}`)).toBe(true);
    expect((await described(WORKSPACE, "on-request", "bash")).bash?.endsWith(` ${facts}`)).toBe(true);
    expect((await described(WORKSPACE, "on-request", "terminal")).terminal_open?.endsWith(` ${facts}`)).toBe(
      true,
    );
    for (const policy of [
      { mode: "danger-full-access" },
      { mode: "workspace-write", networkAccess: true },
    ] as const) {
      const open = await described(policy, "on-request", "codex");
      expect(Object.values(open).some((description) => description.includes("network namespace"))).toBe(
        false,
      );
    }
  });
});
