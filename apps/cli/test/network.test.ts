// The network from the CLI: under `network = "allowlist"` a one-command CLI reaches the allowed hosts
// through Conch's proxy, and a host not listed is asked at the CLI's prompt while the connection waits;
// under `network = "off"` (no proxy in a one-command CLI), tools that retry a failed request for a
// minute are told not to. The real binary, bwrap and curl; the origin on 127.0.0.1, named by the config.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;
let env: NodeJS.ProcessEnv;
let origin: Server;
let port: number;

beforeAll(async () => {
  origin = createServer((request, response) => response.end(`origin ${request.url}\n`));
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  port = (origin.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => origin.close(resolve)));
beforeEach(() => {
  dir = realpathSync(mkdtempSync("/var/tmp/conch-cli-net-"));
  mkdirSync(join(dir, "work"));
  env = {
    PATH: process.env.PATH,
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "home", ".config"),
    XDG_STATE_HOME: join(dir, "home", ".state"),
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function config(lines: string[]): void {
  mkdirSync(join(dir, "home", ".config", "conch", "rules"), { recursive: true });
  writeFileSync(join(dir, "home", ".config", "conch", "config.toml"), `${lines.join("\n")}\n`);
}

/** The real binary, run without blocking this process (the origin answers from here); `input` on stdin. */
function conch(
  args: string[],
  input = "",
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: join(dir, "work"), env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describeWith("bwrap", "the network from the CLI", () => {
  it("allowlist: conch run reaches an allowed host; tool call asks at the prompt for one not listed", async () => {
    config([
      'network = "allowlist"',
      'network_allow = ["registry.test"]',
      'network_allow_addresses = ["127.0.0.1"]',
      'network_resolve = { "registry.test" = "127.0.0.1", "asked.test" = "127.0.0.1" }',
    ]);
    const run = await conch([
      "run",
      "--approval",
      "never",
      "--",
      "curl",
      "-sS",
      "--max-time",
      "30",
      `http://registry.test:${port}/allowed`,
    ]);
    expect(run.stdout, run.stderr).toBe("origin /allowed\n");
    const asked = await conch(
      [
        "tool",
        "call",
        "--approver",
        "tty",
        "shell_command",
        JSON.stringify({ command: `curl -sS --max-time 30 http://asked.test:${port}/asked`, login: false }),
      ],
      "y\n",
    );
    expect(asked.stdout, asked.stderr).toMatch(/^Exit code: 0\n[\s\S]*\norigin \/asked\n/);
    const prompt = asked.stderr.split("\n");
    expect(prompt.slice(0, 3)).toEqual([
      "",
      `conch: let this command connect to asked.test:${port}? (not in network_allow; the connection waits)`,
      `  network:  asked.test:${port} (http)`,
    ]);
    expect(asked.stderr).toContain("  [y] yes, for this command  [s] yes, for this session\n");
    expect(asked.stderr).toContain(
      '  [a] always: store `network_rule(host="asked.test", protocol="http", decision="allow")`\n',
    );
    const refused = await conch(
      [
        "tool",
        "call",
        "--approver",
        "tty",
        "shell_command",
        JSON.stringify({ command: `curl -sS --max-time 30 http://asked.test:${port}/no`, login: false }),
      ],
      "n\n",
    );
    expect(refused.stdout).toContain(
      `network: blocked asked.test:${port} (not in network_allow; the user said no; do not retry it unless the user asks you to)`,
    );
  });

  it("off: a one-command CLI has no way out, and retrying tools are told not to retry", async () => {
    config(['network = "off"']);
    const shown = await conch([
      "run",
      "--approval",
      "never",
      "--",
      "sh",
      "-c",
      'echo "$npm_config_fetch_retries $PIP_RETRIES $CARGO_NET_RETRY"',
    ]);
    expect(shown.stdout).toBe("0 0 0\n");
    const own = await conch([
      "run",
      "--approval",
      "never",
      "--",
      "env",
      "npm_config_fetch_retries=3",
      "sh",
      "-c",
      'echo "$npm_config_fetch_retries"',
    ]);
    expect(own.stdout).toBe("3\n");
    const curl = await conch([
      "run",
      "--approval",
      "never",
      "--",
      "curl",
      "-sS",
      "--max-time",
      "30",
      `http://127.0.0.1:${port}/`,
    ]);
    expect(curl.status).not.toBe(0);
    expect(curl.stdout).toBe("");
  });
});
