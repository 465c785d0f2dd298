// conchd's command line: --help, --version, and the mistakes it refuses before serving anything.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDaemonArgs } from "../src/args.js";
import { UsageError } from "../src/errors.js";
import { BIN, makeWorkspace } from "./harness.js";

function conchd(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const workspace = makeWorkspace();
  try {
    const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
      cwd: workspace.cwd,
      env: workspace.env,
      encoding: "utf8",
      input: "",
    });
    return { status, stdout, stderr };
  } finally {
    workspace.remove();
  }
}

function usageMessage(args: string[]): string {
  try {
    parseDaemonArgs(args);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`${JSON.stringify(args)} parsed`);
}

describe("parseDaemonArgs", () => {
  it("reads every option, both spellings; one given twice is a mistake, as in conch", () => {
    expect(
      parseDaemonArgs(["--cwd", "/", "--profile=argv", "--approval", "never", "--sandbox=read-only"]),
    ).toEqual({
      action: "serve",
      options: { cwd: "/", profile: "argv", approvalPolicy: "never", sandbox: "read-only" },
    });
    expect(parseDaemonArgs([])).toEqual({ action: "serve", options: { cwd: process.cwd() } });
    expect(parseDaemonArgs(["--profile", "bash", "-h"])).toEqual({ action: "help" });
    expect(parseDaemonArgs(["--version", "--bogus"])).toEqual({ action: "version" });
  });

  it("names the argument in every mistake", () => {
    expect(usageMessage(["--bogus"])).toBe("unknown option --bogus");
    expect(usageMessage(["--bogus=1"])).toBe("unknown option --bogus");
    expect(usageMessage(["-x"])).toBe("unknown option -x");
    expect(usageMessage(["--listen"])).toBe("unknown option --listen");
    expect(usageMessage(["--config", "x.toml"])).toBe(`--config: no such file: ${resolve("x.toml")}`);
    expect(usageMessage(["--profile", "bash", "--profile=argv"])).toBe("--profile: given more than once");
    expect(usageMessage(["serve"])).toBe('unexpected argument "serve" (conchd takes only options)');
    expect(usageMessage(["--profile"])).toBe("--profile: expected a value");
    expect(usageMessage(["--cwd="])).toBe('--cwd: expected a value, received ""');
    expect(usageMessage(["--profile", "zsh"])).toBe(
      '--profile: expected one of codex, bash, terminal, argv, received "zsh"',
    );
    expect(usageMessage(["--approval", "always"])).toBe(
      '--approval: expected one of untrusted, on-failure, on-request, never, received "always"',
    );
    expect(usageMessage(["--sandbox", "external-sandbox"])).toBe(
      '--sandbox: expected one of read-only, workspace-write, danger-full-access, received "external-sandbox"',
    );
    expect(usageMessage(["--cwd", "/nonexistent/conchd"])).toBe(
      "--cwd: no such directory: /nonexistent/conchd",
    );
    expect(usageMessage(["--bogus", "--help"])).toBe("unknown option --bogus");
  });
});

describe("conchd", () => {
  it("prints its help and version on stdout", () => {
    const help = conchd(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(
      /^conchd: Conch's tools as an MCP server, on stdio or Streamable HTTP\n\nUsage: conchd \[options\]\n/,
    );
    expect(help.stderr).toBe("");
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(conchd(["--version"])).toEqual({ status: 0, stdout: `${manifest.version}\n`, stderr: "" });
  });

  it("refuses a bad flag with exit 2, naming it, before serving", () => {
    expect(conchd(["--profile", "zsh"])).toEqual({
      status: 2,
      stdout: "",
      stderr:
        'conchd: --profile: expected one of codex, bash, terminal, argv, received "zsh"\n' +
        "Run 'conchd --help' for usage.\n",
    });
    expect(conchd(["--nope"])).toEqual({
      status: 2,
      stdout: "",
      stderr: "conchd: unknown option --nope\nRun 'conchd --help' for usage.\n",
    });
  });
});
