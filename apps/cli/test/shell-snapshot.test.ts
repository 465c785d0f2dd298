// Issue 11: the user's login environment is captured once per process, in the sandbox, and every
// login-shell command runs non-login with it: the profile's variables, functions and aliases are there,
// its noise never is, its secrets only if the env policy says so. Through the real CLI and bwrap.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

let base: string;
let home: string;
let ws: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  base = realpathSync(mkdtempSync("/var/tmp/conch-snapshot-"));
  home = join(base, "home");
  ws = join(base, "ws");
  mkdirSync(home);
  mkdirSync(ws);
  env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    USER: process.env.USER ?? "root",
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
  };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** A profile that is noisy and slow, counts its runs in the workspace, and sets what a command needs. */
function profile(file: string, syntax: "bash" | "zsh"): void {
  writeFileSync(
    join(home, file),
    [
      "echo profile-noise-out",
      "echo profile-noise-err >&2",
      "sleep 0.3",
      `echo run >> ${join(ws, "profile-runs")}`,
      "export FROM_PROFILE=profile-value",
      "export OPENAI_API_KEY=sk-conch-test-secret",
      "export PAGER=less",
      syntax === "zsh" ? "greet() { echo hello-$1 }" : "greet() { echo hello-$1; }",
      "alias ll='echo alias-works'",
      "",
    ].join("\n"),
  );
}

function replay(lines: readonly object[]): { text: string }[] {
  const result = spawnSync(process.execPath, [BIN, "replay", "-"], {
    cwd: ws,
    env,
    input: lines.map((line) => JSON.stringify(line)).join("\n"),
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { text: string });
}

const probe = "echo $FROM_PROFILE; greet you; ll; echo key=${OPENAI_API_KEY:-unset} pager=$PAGER";

describeWith("bwrap", "shell snapshots", () => {
  it("bash: one capture per process; every call sees the variable, function and alias, never the noise", () => {
    profile(".bashrc", "bash");
    writeFileSync(join(home, ".profile"), `. ${join(home, ".bashrc")}\n`);
    const [first, second, exec] = replay([
      { tool: "shell_command", arguments: { command: probe } },
      { tool: "shell_command", arguments: { command: probe } },
      { tool: "exec_command", arguments: { cmd: probe, yield_time_ms: 3000 } },
    ]);
    for (const call of [first, second, exec]) {
      expect(call?.text).toContain("profile-value\nhello-you\nalias-works\nkey=unset pager=cat\n");
      expect(call?.text).not.toContain("profile-noise");
    }
    // The profile ran for the capture in the sandbox, where the workspace is read-only (its write to
    // profile-runs failed), and never as a command's login shell (no noise in any call).
    expect(existsSync(join(ws, "profile-runs"))).toBe(false);
  });

  it("a PTY session gets the snapshot too", () => {
    profile(".bashrc", "bash");
    writeFileSync(join(home, ".profile"), `. ${join(home, ".bashrc")}\n`);
    const [started] = replay([
      { tool: "exec_command", arguments: { cmd: probe, tty: true, yield_time_ms: 3000 } },
    ]);
    expect(started?.text).toContain("profile-value");
    expect(started?.text).toContain("alias-works");
    expect(started?.text).not.toContain("profile-noise");
  });

  it("login: false skips the snapshot as well as the profile", () => {
    profile(".bashrc", "bash");
    writeFileSync(join(home, ".profile"), `. ${join(home, ".bashrc")}\n`);
    const [call] = replay([
      { tool: "shell_command", arguments: { command: "echo [$FROM_PROFILE]", login: false } },
    ]);
    expect(call?.text).toContain("[]\n");
  });

  it("shell_snapshot = false runs login shells, as before", () => {
    mkdirSync(join(home, ".config", "conch"), { recursive: true });
    writeFileSync(join(home, ".config", "conch", "config.toml"), "shell_snapshot = false\n");
    writeFileSync(
      join(home, ".profile"),
      `export FROM_PROFILE=login\necho run >> ${join(ws, "profile-runs")}\n`,
    );
    const calls = replay([
      { tool: "shell_command", arguments: { command: "echo $FROM_PROFILE" } },
      { tool: "shell_command", arguments: { command: "echo $FROM_PROFILE" } },
    ]);
    expect(calls.map((call) => call.text.includes("login\n"))).toEqual([true, true]);
    expect(readFileSync(join(ws, "profile-runs"), "utf8")).toBe("run\nrun\n");
  });

  it("a profile that hangs never blocks a command: it runs as a login shell, and --check says why", () => {
    mkdirSync(join(home, ".config", "conch"), { recursive: true });
    writeFileSync(join(home, ".profile"), "exec sleep 1\n");
    const [call] = replay([
      { tool: "shell_command", arguments: { command: "echo still-runs", login: false } },
    ]);
    expect(call?.text).toContain("still-runs");
    const check = spawnSync(process.execPath, [BIN, "sandbox", "--check"], {
      cwd: ws,
      env,
      encoding: "utf8",
    });
    expect(check.stdout).toContain("no snapshot of");
    expect(check.stdout).toContain("commands run login shells:");
  });

  itWith("zsh", "zsh: the same, through exec_command's shell", () => {
    profile(".zshrc", "zsh");
    const [first, second] = replay([
      { tool: "exec_command", arguments: { cmd: probe, shell: "zsh", yield_time_ms: 3000 } },
      { tool: "exec_command", arguments: { cmd: probe, shell: "zsh", yield_time_ms: 3000 } },
    ]);
    for (const call of [first, second]) {
      expect(call?.text).toContain("profile-value\nhello-you\nalias-works\nkey=unset pager=cat\n");
      expect(call?.text).not.toContain("profile-noise");
    }
    expect(existsSync(join(ws, "profile-runs"))).toBe(false);
  });
});
