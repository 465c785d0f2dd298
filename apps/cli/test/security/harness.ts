// The security suite's harness: each test is a real attempt through the real `conch` binary and real
// bwrap, in a temp workspace with a temp home (its own config, state and secrets), asserting on the host.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const BIN: string = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));

export interface Workspace {
  /** Base of everything below; removed by `cleanup`. */
  readonly base: string;
  /** The session cwd: the only writable root. */
  readonly cwd: string;
  /** The home the CLI sees (`HOME`), outside the workspace. */
  readonly home: string;
  /** A directory outside both, for "wrote nowhere else" checks. */
  readonly outside: string;
  readonly env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/**
 * A workspace in /var/tmp (not /tmp: the sandbox replaces /tmp, and a workspace under it is still bound
 * over it, but the checks on host /tmp are clearer apart), with its own home and XDG dirs.
 */
export function workspace(options: { cwdIsHome?: boolean } = {}): Workspace {
  const base = realpathSync(mkdtempSync("/var/tmp/conch-security-"));
  const home = join(base, "home");
  const cwd = options.cwdIsHome === true ? home : join(base, "ws");
  const outside = join(base, "outside");
  for (const dir of [home, cwd, outside]) mkdirSync(dir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    USER: process.env.USER ?? "root",
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    LANG: "C.UTF-8",
  };
  return { base, cwd, home, outside, env, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function conch(
  ws: Workspace,
  args: readonly string[],
  options: { input?: string; cwd?: string } = {},
): Run {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ws.cwd,
    env: ws.env,
    encoding: "utf8",
    input: options.input ?? "",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface ToolCallOptions {
  readonly profile?: string;
  readonly approval?: string;
  readonly sandbox?: string;
  readonly approver?: string;
}

/** `conch tool call --json NAME ARGS`: the model text and the structured result. */
export function toolCall(
  ws: Workspace,
  name: string,
  args: Record<string, unknown>,
  options: ToolCallOptions = {},
): { status: number | null; text: string; result: Record<string, unknown>; stderr: string } {
  const flags = [
    ...(options.profile === undefined ? [] : ["--profile", options.profile]),
    ...(options.approval === undefined ? [] : ["--approval", options.approval]),
    ...(options.sandbox === undefined ? [] : ["--sandbox", options.sandbox]),
    "--approver",
    options.approver ?? "deny",
  ];
  const run = conch(ws, ["tool", "call", ...flags, "--json", name, JSON.stringify(args)]);
  if (run.stdout === "")
    throw new Error(`conch tool call printed nothing (exit ${run.status}): ${run.stderr}`);
  const parsed = JSON.parse(run.stdout) as { text: string; result: Record<string, unknown> };
  return { status: run.status, text: parsed.text, result: parsed.result, stderr: run.stderr };
}

/** A `conch replay -` fed one call at a time, so the test can act on the host between calls. */
export function replay(
  ws: Workspace,
  args: readonly string[] = [],
): {
  call: (tool: string, args: Record<string, unknown>) => Promise<{ text: string }>;
  close: () => Promise<number | null>;
} {
  const child: ChildProcess = spawn(process.execPath, [BIN, "replay", ...args, "-"], {
    cwd: ws.cwd,
    env: ws.env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting: ((line: { text: string }) => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    waiting.shift()?.(JSON.parse(text) as { text: string });
  });
  return {
    call: (tool, callArgs) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin?.write(`${JSON.stringify({ tool, arguments: callArgs })}\n`);
      }),
    close: () =>
      new Promise((resolve) => {
        child.once("exit", (code) => resolve(code));
        child.stdin?.end();
      }),
  };
}

/** Writes a user config (TOML lines) into the workspace's config dir. */
export function userConfig(ws: Workspace, lines: readonly string[]): void {
  const dir = join(ws.home, ".config", "conch");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.toml"), `${lines.join("\n")}\n`);
}

/** Writes a rules file (TOML) into the user's rules dir. */
export function userRules(ws: Workspace, name: string, text: string): void {
  const dir = join(ws.home, ".config", "conch", "rules");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
}

/**
 * The person's git on the host in `cwd`, with the workspace's home (its global config) and an identity:
 * what their own terminal would run. Returns the status; nothing is thrown.
 */
export function personGit(
  ws: Workspace,
  cwd: string,
  ...args: string[]
): { status: number | null; stderr: string } {
  const result = spawnSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args],
    {
      cwd,
      encoding: "utf8",
      env: { PATH: ws.env.PATH, HOME: ws.home, XDG_CONFIG_HOME: ws.env.XDG_CONFIG_HOME, LANG: "C" },
    },
  );
  return { status: result.status, stderr: result.stderr };
}

/** Runs git on the host (fixtures only), quietly, with an identity. */
export function git(cwd: string, ...args: string[]): void {
  const result = spawnSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args],
    { cwd, encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}
