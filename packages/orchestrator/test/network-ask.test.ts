// A host the configuration does not list is asked about, like a command, while the connection waits:
// "for this command", "for this session", "always" (a network_rule stored in the rules file) and "no",
// each with real bwrap and curl through Conch's proxy, names resolved by the policy. The audit log says
// each decision and each connection (host, port, decision, who, bytes). Under `never`, nothing is asked.
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type ApprovalRequest, type Approver, ScriptedApprover } from "@conch/approval";
import { NetProxy, NetworkPolicy } from "@conch/net-proxy";
import type { ApprovalPolicy, ReviewDecision } from "@conch/protocol";
import type { SandboxPolicy } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { createAuditLog } from "../src/audit/audit-log.js";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let origin: Server;
let port: number;
let orchestrators: ToolOrchestrator[] = [];

beforeAll(async () => {
  origin = createHttpServer((request, response) => response.end(`origin ${request.url}\n`));
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  port = (origin.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => origin.close(resolve)));
beforeEach(async () => {
  work = await realpath(await mkdtemp(join("/var/tmp", "conch-net-ask-")));
});
afterEach(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.terminateSessions()));
  orchestrators = [];
  await rm(work, { recursive: true, force: true });
  await rm(`${work}-state`, { recursive: true, force: true });
});

const WORKSPACE: SandboxPolicy = { mode: "workspace-write" };

function setup(
  approver: Approver | null,
  approvalPolicy: ApprovalPolicy = "on-request",
): { set: Promise<ToolSet>; rules: string; audit: string; proxy: NetProxy } {
  const rules = join(`${work}-state`, "rules", "default.rules");
  const audit = join(`${work}-state`, "audit.jsonl");
  const proxy = new NetProxy({
    policy: NetworkPolicy.from({
      allowAddresses: ["127.0.0.1"],
      resolve: { "asked.test": "127.0.0.1", "other.test": "127.0.0.1" },
    }),
    askTimeoutMs: 20_000,
  });
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy,
    sandbox: WORKSPACE,
    sessionSandbox: bwrapSandbox(WORKSPACE, work),
    approver,
    rulesStorePath: rules,
    audit: createAuditLog({ path: audit, env: {} }),
    networkProxy: proxy,
  });
  orchestrators.push(orchestrator);
  const set = checkedToolSet({ profile: "codex", orchestrator, shell: { type: "bash", path: "/bin/bash" } });
  return { set, rules, audit, proxy };
}

const fetchTwice = (host: string): string =>
  `curl -sS --max-time 30 http://${host}:${port}/a; curl -sS --max-time 30 http://${host}:${port}/b`;

async function auditLines(path: string): Promise<Record<string, unknown>[]> {
  // The audit log is written in the background: read once it holds what the calls did.
  for (let tries = 0; tries < 50; tries++) {
    const text = await readFile(path, "utf8").catch(() => "");
    const lines = text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    if (lines.some((line) => line.type === "network" && line.decision === "allowed")) return lines;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no allowed network line in ${path}`);
}

describeWith("bwrap", "a host not listed is asked about, like a command", () => {
  it("for this command: asked once per command, with the connection's host, port and protocol", async () => {
    const approver = new ScriptedApprover(["approved", "denied"] satisfies ReviewDecision[]);
    const { set, audit } = setup(approver);
    const tools = await set;
    const first = await tools.call("shell_command", { command: fetchTwice("asked.test"), login: false });
    expect(first.text).toMatch(/origin \/a\norigin \/b\n$/);
    expect(approver.requests).toHaveLength(1);
    const request = approver.requests[0] as ApprovalRequest;
    expect(request.network).toEqual({
      host: "asked.test",
      port,
      protocol: "http",
      why: "not in network_allow",
    });
    expect(request.proposedRule).toEqual([
      'network_rule(host="asked.test", protocol="http", decision="allow")',
    ]);
    // The next command is asked again; a no is one line the model reads, and is not asked twice.
    const second = await tools.call("shell_command", { command: fetchTwice("asked.test"), login: false });
    expect(second.text).toContain(
      `[network: blocked asked.test:${port} (not in network_allow; the user said no; do not retry it unless the user asks you to)`,
    );
    expect(approver.requests).toHaveLength(2);
    const lines = await auditLines(audit);
    const network = lines.filter((line) => line.type === "network");
    expect(network.find((line) => line.decision === "allowed")).toMatchObject({
      tool: "shell_command",
      host: "asked.test",
      port,
      protocol: "http",
      decidedBy: "user",
    });
    expect((network.find((line) => line.decision === "allowed")?.bytesIn as number) > 0).toBe(true);
    expect(network.filter((line) => line.decision === "blocked")).toHaveLength(2);
    expect(
      lines
        .filter((line) => line.type === "decision" && line.network !== undefined)
        .map((line) => [line.network, line.decision, line.decidedBy]),
    ).toEqual([
      [`asked.test:${port}`, "approved", "user"],
      [`asked.test:${port}`, "denied", "user"],
    ]);
  });

  it("for this session: later commands and sessions are not asked; another host is", async () => {
    const approver = new ScriptedApprover(["approved_for_session", "denied"] satisfies ReviewDecision[]);
    const tools = await setup(approver).set;
    await tools.call("shell_command", { command: fetchTwice("asked.test"), login: false });
    const again = await tools.call("exec_command", {
      cmd: `curl -sS --max-time 30 http://asked.test:${port}/s`,
      yield_time_ms: 10_000,
    });
    expect(again.text).toContain("origin /s");
    expect(approver.requests).toHaveLength(1);
    const other = await tools.call("shell_command", {
      command: `curl -sS --max-time 30 http://other.test:${port}/`,
      login: false,
    });
    expect(other.text).toContain(
      `network: blocked other.test:${port} (not in network_allow; the user said no`,
    );
    expect(approver.requests.map((request) => request.network?.host)).toEqual(["asked.test", "other.test"]);
  });

  it("always: the network_rule is stored in the rules file and nothing is asked again", async () => {
    const approver = new ScriptedApprover(["approved_always"] satisfies ReviewDecision[]);
    const { set, rules } = setup(approver);
    const tools = await set;
    await tools.call("shell_command", { command: fetchTwice("asked.test"), login: false });
    expect(await readFile(rules, "utf8")).toBe(
      'network_rule(host="asked.test", protocol="http", decision="allow")\n',
    );
    const later = await tools.call("shell_command", {
      command: `curl -sS --max-time 30 http://asked.test:${port}/later`,
      login: false,
    });
    expect(later.text).toContain("origin /later");
    expect(approver.requests).toHaveLength(1);
  });

  it("under `never`, and with nobody to ask, nothing is asked: the refusal says the host is not listed", async () => {
    const approver = new ScriptedApprover([]);
    for (const [who, policy] of [
      [approver, "never"],
      [null, "on-request"],
    ] as const) {
      const tools = await setup(who, policy).set;
      const result = await tools.call("shell_command", {
        command: `curl -sS --max-time 30 http://asked.test:${port}/`,
        login: false,
      });
      expect(result.text, policy).toContain(
        `[network: blocked asked.test:${port} (not in network_allow; ask the user to add it to network_allow, or retry with sandbox_permissions "require_escalated")`,
      );
    }
    expect(approver.requests).toHaveLength(0);
  });
});
