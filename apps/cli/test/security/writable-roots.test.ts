// Issue 10, items 1, 6 and 7 and the private /tmp: what a tool call may write is decided by the session's
// cwd and config only, held by identity, with protected paths found for every call. Each test is a real
// attempt through the real CLI and bwrap, checked on the host.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { git, replay, toolCall, userConfig, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

/** Each tool that starts a command, with its workdir field, as a model would call it. */
const TOOLS: readonly {
  name: string;
  profile: string;
  args: (command: string, workdir: string) => Record<string, unknown>;
}[] = [
  { name: "shell_command", profile: "codex", args: (command, workdir) => ({ command, workdir }) },
  {
    name: "shell",
    profile: "codex",
    args: (command, workdir) => ({ command: ["sh", "-c", command], workdir }),
  },
  {
    name: "exec_command",
    profile: "codex",
    args: (cmd, workdir) => ({ cmd, workdir, yield_time_ms: 5000 }),
  },
  {
    name: "bash",
    profile: "bash",
    args: (command, workdir) => ({ command, workdir, description: "try it" }),
  },
  {
    name: "shell",
    profile: "argv",
    args: (command, cwd) => ({ argv: ["sh", "-c", command], cwd, timeout_seconds: 20 }),
  },
  { name: "terminal_open", profile: "terminal", args: (command, cwd) => ({ command, cwd, tty: false }) },
];

const hostPidNamespace = (): string =>
  spawnSync("readlink", ["/proc/self/ns/pid"], { encoding: "utf8" }).stdout.trim();

/**
 * terminal_open returns after a fixed window, which a slow start can outlast: the terminal's output is
 * then read with terminal_read, in one replay session, until the command is done.
 */
async function terminalOutput(command: string, cwd: string): Promise<{ text: string }> {
  const session = replay(ws, ["--profile", "terminal", "--approval", "on-request"]);
  const opened = await session.call("terminal_open", { command, cwd, tty: false });
  let text = opened.text;
  const id = Number(/Terminal ID: (\d+)/.exec(text)?.[1]);
  for (let i = 0; i < 10 && Number.isFinite(id) && !/Status: exited/.test(text); i++) {
    const read = await session.call("terminal_read", { id, wait_ms: 1000 });
    text += `\n${read.text}`;
  }
  await session.close();
  return { text };
}

describeWith("bwrap", "a call's workdir never becomes a writable root (item 1)", () => {
  it.each(TOOLS.map((tool) => [`${tool.profile}/${tool.name}`, tool] as const))(
    "%s: workdir = the home dir, /, .git or .conch starts there and writes nothing outside the workspace",
    async (_label, tool) => {
      git(ws.cwd, "init", "-q");
      mkdirSync(join(ws.cwd, ".conch"));
      const attempts: [workdir: string, target: string][] = [
        [ws.home, join(ws.home, "pwned")],
        ["/", "/etc/conch-pwned"],
        [".git", join(ws.cwd, ".git", "hooks", "pre-commit")],
        [".conch", join(ws.cwd, ".conch", "config.toml")],
        [ws.outside, join(ws.outside, "pwned")],
      ];
      for (const [workdir, target] of attempts) {
        const script = `pwd; echo 'touch /tmp/x' > ${target}; readlink /proc/self/ns/pid`;
        const call =
          tool.name === "terminal_open"
            ? await terminalOutput(script, workdir)
            : toolCall(ws, tool.name, tool.args(script, workdir), {
                profile: tool.profile,
                approval: "on-request",
              });
        const expectedPwd = workdir.startsWith("/") ? workdir : join(ws.cwd, workdir);
        expect(call.text).toContain(`${expectedPwd}\n`);
        expect(existsSync(target), `${tool.name} wrote ${target}`).toBe(false);
        // `/` as the workdir does not show the host's processes either.
        expect(call.text).not.toContain(hostPidNamespace());
      }
      // The workspace itself is still writable from any workdir.
      const ok = toolCall(ws, tool.name, tool.args(`echo ok > ${join(ws.cwd, "written")}`, ws.home), {
        profile: tool.profile,
      });
      expect(ok.text).not.toContain("denied");
      expect(readFileSync(join(ws.cwd, "written"), "utf8")).toBe("ok\n");
    },
  );
});

describeWith("bwrap", "writable roots are resolved once and held by identity (item 6)", () => {
  it("a writable root replaced by a symlink to the home is refused, never followed", async () => {
    const extra = join(ws.outside, "extra");
    mkdirSync(extra);
    userConfig(ws, [`writable_roots = ["${extra}"]`]);
    const session = replay(ws);
    expect((await session.call("shell_command", { command: `touch ${extra}/first` })).text).toContain(
      "Exit code: 0",
    );
    // Someone (an unsandboxed command the person approved, a tool outside Conch) swaps the root.
    renameSync(extra, `${extra}.moved`);
    symlinkSync(ws.home, extra);
    const second = await session.call("shell_command", { command: `touch ${extra}/pwned` });
    expect(second.text).toContain(
      `the sandbox's writable root ${extra} is not the directory the session started with (it is now a symlink)`,
    );
    expect(await session.close()).toBe(0);
    expect(existsSync(join(ws.home, "pwned"))).toBe(false);
    expect(existsSync(join(`${extra}.moved`, "first"))).toBe(true);
  });

  it("a root the agent could have planted as a symlink inside the workspace is refused at start", () => {
    symlinkSync(ws.home, join(ws.cwd, "build"));
    userConfig(ws, [`writable_roots = ["${join(ws.cwd, "build")}"]`]);
    const call = toolCall(ws, "shell_command", { command: "touch build/pwned" });
    expect(call.text).toContain(
      `reached through the symlink ${join(ws.cwd, "build")}, which lies in a writable root`,
    );
    expect(existsSync(join(ws.home, "pwned"))).toBe(false);
  });

  it("$TMPDIR moved aside and replaced by a symlink to the home does not make the home writable", async () => {
    const tmpdir = join(ws.cwd, "tmpdir");
    mkdirSync(tmpdir);
    ws.env.TMPDIR = tmpdir;
    const session = replay(ws);
    const first = await session.call("shell_command", {
      command: 'mv "$TMPDIR" moved && ln -s "$HOME" "$TMPDIR"; echo done',
    });
    expect(first.text).toContain("done");
    const second = await session.call("shell_command", { command: 'touch "$TMPDIR/pwned"' });
    expect(second.text).toContain("Exit code: 1");
    expect(await session.close()).toBe(0);
    expect(existsSync(join(ws.home, "pwned"))).toBe(false);
  });
});

describeWith("bwrap", "protected paths are found for every call (item 7)", () => {
  it("a .git created after the session's first call is read-only from then on", async () => {
    const session = replay(ws);
    expect((await session.call("shell_command", { command: "true" })).text).toContain("Exit code: 0");
    git(ws.cwd, "init", "-q");
    const hook = join(ws.cwd, ".git", "hooks", "pre-commit");
    const attempt = await session.call("shell_command", {
      command: `printf '#!/bin/sh\\ntouch ${ws.outside}/ran\\n' > .git/hooks/pre-commit`,
    });
    expect(attempt.text).toMatch(/Read-only file system/);
    expect(await session.close()).toBe(0);
    expect(existsSync(hook)).toBe(false);
  });
});

describeWith("bwrap", "a private /tmp per workspace, and nothing left behind", () => {
  it("hides the host's /tmp, persists across calls of one workspace, and keeps workspaces apart", async () => {
    const hostFile = join("/tmp", `conch-host-secret-${process.pid}`);
    writeFileSync(hostFile, "host");
    try {
      const note = `/tmp/conch-note-${process.pid}`;
      const session = replay(ws);
      const first = await session.call("shell_command", { command: `cat ${hostFile}; echo kept > ${note}` });
      expect(first.text).toContain("No such file or directory");
      expect((await session.call("shell_command", { command: `cat ${note}` })).text).toContain("kept");
      expect(await session.close()).toBe(0);
      expect(existsSync(note)).toBe(false);

      const other = workspace();
      try {
        other.env.XDG_STATE_HOME = ws.env.XDG_STATE_HOME;
        other.env.XDG_CONFIG_HOME = ws.env.XDG_CONFIG_HOME;
        expect(toolCall(other, "shell_command", { command: `cat ${note}` }).text).toContain("No such file");
      } finally {
        other.cleanup();
      }
    } finally {
      rmSync(hostFile, { force: true });
    }
  });

  it("leaves no .conch (or any mount point) behind in the cwd, the home or /", () => {
    const before = readdirSync(ws.cwd);
    toolCall(ws, "shell_command", { command: "true" });
    toolCall(ws, "shell_command", { command: "true", workdir: ws.home });
    expect(readdirSync(ws.cwd)).toEqual(before);
    expect(existsSync(join(ws.cwd, ".conch"))).toBe(false);
    expect(readdirSync(ws.home).filter((name) => name !== ".config" && name !== ".local")).toEqual([]);
    expect(existsSync("/.conch")).toBe(false);
  });
});
