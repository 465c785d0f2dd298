// Sandboxed commands without the host's network reach Conch's proxy through an endpoint of their own in
// the workspace's shared namespace: allowed hosts answer (names resolved by the config, origins on
// 127.0.0.1 of the host), every refusal is a line in the call's result, and with the network off a
// proxy-aware client is refused at once instead of waiting on DNS. Real bwrap, curl, node and npm.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { NetProxy, NetworkPolicy, type ProxyOptions } from "@conch/net-proxy";
import type { SandboxPolicy } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { createRuntime } from "../src/create-runtime.js";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let origin: Server;
let originPort: number;
let orchestrators: ToolOrchestrator[] = [];

beforeAll(async () => {
  origin = createHttpServer((request, response) => response.end(`registry says hi ${request.url}\n`));
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originPort = (origin.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => origin.close(resolve)));
beforeEach(async () => {
  work = await realpath(await mkdtemp(join("/var/tmp", "conch-net-proxy-")));
});
afterEach(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.terminateSessions()));
  orchestrators = [];
  await rm(work, { recursive: true, force: true });
});

const WORKSPACE: SandboxPolicy = { mode: "workspace-write" };

async function tools(proxy: Omit<ProxyOptions, "policy"> & { policy?: NetworkPolicy }): Promise<ToolSet> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "on-request",
    sandbox: WORKSPACE,
    sessionSandbox: bwrapSandbox(WORKSPACE, work),
    approver: null,
    networkProxy: new NetProxy({ policy: proxy.policy ?? NetworkPolicy.from({}), ...proxy }),
  });
  orchestrators.push(orchestrator);
  return checkedToolSet({ profile: "codex", orchestrator, shell: { type: "bash", path: "/bin/bash" } });
}

const ALLOWLIST = (): NetworkPolicy =>
  NetworkPolicy.from({
    allow: ["registry.test"],
    allowAddresses: ["127.0.0.1"],
    resolve: { "registry.test": "127.0.0.1", "other.test": "127.0.0.1" },
  });

describeWith("bwrap", "the network through Conch's proxy", () => {
  it("an allowed host answers through the proxy variables; an unlisted one is one line in the result", async () => {
    const set = await tools({ policy: ALLOWLIST() });
    const allowed = await set.call("shell_command", {
      command: `curl -sS --max-time 10 http://registry.test:${originPort}/pkg`,
      login: false,
    });
    expect(allowed.text).toMatch(/^Exit code: 0\n[\s\S]*registry says hi \/pkg\n$/);
    const blocked = await set.call("shell_command", {
      command: `curl -sS --max-time 10 -o /dev/null -w '%{http_code}\\n' https://other.test:${originPort}/`,
      login: false,
    });
    expect(blocked.text).toContain(
      `[network: blocked other.test:${originPort} (not in network_allow; ask the user to add it to network_allow, or retry with sandbox_permissions "require_escalated")`,
    );
  });

  it("the same in a session: its call says the refusal its command met", async () => {
    const set = await tools({ policy: ALLOWLIST() });
    const started = await set.call("exec_command", { cmd: "bash -i", tty: true, yield_time_ms: 500 });
    const id = started.result.session_id as number;
    const answered = await set.call("write_stdin", {
      session_id: id,
      chars: `curl -sS --max-time 10 http://other.test:${originPort}/ >/dev/null; echo done\n`,
      yield_time_ms: 3000,
    });
    expect(answered.text).toContain(
      `network: blocked other.test:${originPort} (not in network_allow; ask the user`,
    );
  });

  it("network off: a proxy-aware client is refused at once, the host named, npm included", async () => {
    const set = await tools({ closed: 'the network is off (network = "off" in the config)' });
    const curl = await set.call("shell_command", {
      command: "curl -sS --max-time 20 https://registry.npmjs.org/left-pad",
      login: false,
    });
    expect(curl.text).toContain(
      '[network: blocked registry.npmjs.org:443 (the network is off (network = "off" in the config); retry with sandbox_permissions "require_escalated" to ask the user)',
    );
    const npm = execFileSync("bash", ["-c", "command -v npm || true"], { encoding: "utf8" }).trim();
    if (npm !== "") {
      const viewed = await set.call("shell_command", {
        command: "npm view left-pad version --fetch-retries=0 2>&1 | tail -3",
        login: false,
      });
      expect(viewed.text).toContain("network: blocked registry.npmjs.org:443");
      // npm retries; the refusal is said once.
      expect(viewed.text.split("network: blocked").length).toBe(2);
    }
  });

  it("the runtime: network = allowlist from the config, and a network_rule of a rules file adds a host", async () => {
    // Beside the workspace, not in it (a home inside a writable root is refused).
    const home = `${work}-home`;
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_STATE_HOME: join(home, ".state"),
    };
    await mkdir(join(home, ".config", "conch", "rules"), { recursive: true });
    await writeFile(
      join(home, ".config", "conch", "config.toml"),
      [
        'network = "allowlist"',
        'network_allow = ["registry.test"]',
        'network_allow_addresses = ["127.0.0.1"]',
        'network_resolve = { "registry.test" = "127.0.0.1", "ruled.test" = "127.0.0.1", "other.test" = "127.0.0.1" }',
      ].join("\n"),
    );
    await writeFile(
      join(home, ".config", "conch", "rules", "net.rules"),
      'network_rule(host="ruled.test", protocol="http", decision="allow")\n',
    );
    const runtime = await createRuntime({ cwd: work, env });
    try {
      const set = await runtime.toolSet();
      // The model reads where the network goes before anything fails.
      expect(set.tools.find((tool) => tool.name === "shell_command")?.description).toContain(
        " The sandbox (workspace-write) reaches the network only through Conch's proxy (its variables are set): the hosts the user's network_allow lists; any other host is asked about or refused, with a line in the result. This workspace's commands share one network namespace",
      );
      for (const host of ["registry.test", "ruled.test"]) {
        const allowed = await set.call("shell_command", {
          command: `curl -sS --max-time 10 http://${host}:${originPort}/x`,
          login: false,
        });
        expect(allowed.text, host).toMatch(/registry says hi \/x\n$/);
      }
      const other = await set.call("shell_command", {
        command: `curl -sS --max-time 10 http://other.test:${originPort}/x`,
        login: false,
      });
      expect(other.text).toContain(`network: blocked other.test:${originPort} (not in network_allow`);
    } finally {
      await runtime.orchestrator.terminateSessions();
      await runtime.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});
