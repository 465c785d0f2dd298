// Ordinary git work through the tools, under the default policy (on-request, workspace-write) with
// nobody to ask: every call below that needed a person would come back rejected. Real bwrap, real git,
// a real PTY and vim for the interactive rebase; what Conch moved aside is said in the model's text.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxPolicy } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

// Outside /tmp, which the sandbox replaces with a private one.
const BASE = "/var/tmp";
let work: string;
let orchestrator: ToolOrchestrator;
let set: ToolSet;

const IDENTITY =
  "export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=a " +
  "GIT_COMMITTER_EMAIL=a@example.com GIT_CONFIG_NOSYSTEM=1 HOME=/tmp";

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(BASE, "conch-git-tools-")));
  const policy: SandboxPolicy = { mode: "workspace-write" };
  orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "on-request",
    sandbox: policy,
    sessionSandbox: bwrapSandbox(policy, work),
    approver: null,
  });
  set = await checkedToolSet({ profile: "codex", orchestrator, shell: { type: "bash", path: "/bin/bash" } });
});
afterEach(async () => {
  await orchestrator.terminateSessions();
  await rm(work, { recursive: true, force: true });
});

async function shell(command: string): Promise<{ text: string; exit: unknown }> {
  const result = await set.call("shell_command", { command: `${IDENTITY}; ${command}`, login: false });
  return { text: result.text, exit: result.result.exit_code };
}

function hostLog(): string {
  return execFileSync("git", ["log", "--first-parent", "--format=%s"], { cwd: work, encoding: "utf8" });
}

describeWith("bwrap", "git through the tools, under the default policy", () => {
  it("git init, commits, an amend, a branch and a tag: all unasked", async () => {
    for (const command of [
      "git init -q -b main && echo 1 > a && git add a && git commit -qm one",
      "echo 2 >> a && git commit -qam two",
      "git commit -q --amend -m 'two, amended'",
      "git branch topic && git tag v1",
      "git switch -q topic && echo t > t && git add t && git commit -qm topic && git switch -q main",
      "git merge -q --no-ff -m 'merge topic' topic && git stash list",
    ]) {
      const { text, exit } = await shell(command);
      expect(exit, text).toBe(0);
      expect(text).not.toMatch(/Conch moved|rejected|approv/i);
    }
    expect(hostLog()).toBe("merge topic\ntwo, amended\none\n");
  });

  it("an interactive rebase with vim on a PTY, driven by keystrokes", async () => {
    await shell(
      "git init -q -b main && for n in 1 2 3; do echo $n >> a; git add a; git commit -qm c$n; done",
    );
    const started = await set.call("exec_command", {
      // Conch pins the editors to `true` for commands; a model that wants one names it.
      cmd: `${IDENTITY} TERM=xterm GIT_SEQUENCE_EDITOR=vi GIT_EDITOR=vi; git rebase -i HEAD~2`,
      tty: true,
      yield_time_ms: 1500,
    });
    const id = started.result.session_id as number;
    expect(started.text, started.text).toContain("Process running with session ID");
    // The todo in vim: squash the second pick into the first, write and quit; then the message editor.
    await set.call("write_stdin", { session_id: id, chars: "\u001b:2s/^pick/squash/\r", yield_time_ms: 500 });
    await set.call("write_stdin", { session_id: id, chars: ":wq\r", yield_time_ms: 1500 });
    // The rebase ends once the second vim is written: poll until the session says so (bounded).
    let polled = (
      await set.call("write_stdin", { session_id: id, chars: "\u001b:wq\r", yield_time_ms: 1500 })
    ).text;
    for (let tries = 0; tries < 20 && !/exited with code/.test(polled); tries++) {
      polled = (await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 500 })).text;
    }
    expect(polled).toMatch(/(Process exited|exited) with code 0/);
    expect(hostLog()).toBe("c2\nc1\n");
    expect(execFileSync("git", ["log", "-1", "--format=%B"], { cwd: work, encoding: "utf8" })).toMatch(
      /c2[\s\S]*c3/,
    );
  });

  it("says what it moved aside: a hook planted in a repository the command made", async () => {
    const { text, exit } = await shell(
      "git init -q -b main && printf '#!/bin/sh\\ntouch /var/tmp/never\\n' > .git/hooks/pre-commit && " +
        "chmod +x .git/hooks/pre-commit",
    );
    expect(exit).toBe(0);
    expect(text).toMatch(
      /\[Conch moved \.git\/hooks\/pre-commit, which this command made, aside to \.git\/hooks\/pre-commit\.conch-moved-\d{8}T\d{6}: git would run this hook at the person's next git command, outside the sandbox\.\]$/,
    );
    expect(readdirSync(join(work, ".git", "hooks")).filter((name) => name === "pre-commit")).toEqual([]);
  });

  it("a command that writes git's config fails in the sandbox, and the text says why and how to ask", async () => {
    await shell("git init -q -b main");
    const { text, exit } = await shell("git config core.hooksPath .githooks");
    expect(exit).not.toBe(0);
    expect(text).toContain(
      "git could not change the repository's config: the sandbox keeps .git/config (and hooks) read-only",
    );
    expect(text).toContain('run the command again with sandbox_permissions "require_escalated"');
    expect(execFileSync("git", ["config", "--list", "--local"], { cwd: work, encoding: "utf8" })).not.toMatch(
      /hookspath/i,
    );
  });

  it("a session's planted control file is moved aside after its call, and the call says so", async () => {
    await shell("git init -q -b main");
    await mkdir(join(work, "evil"));
    const started = await set.call("exec_command", { cmd: "bash -i", tty: true, yield_time_ms: 500 });
    const id = started.result.session_id as number;
    const written = await set.call("write_stdin", {
      session_id: id,
      chars: "echo ../evil > .git/commondir\n",
      yield_time_ms: 1000,
    });
    expect(written.text).toMatch(/\[Conch moved \.git\/commondir, which this command made, aside/);
    expect(existsSync(join(work, ".git", "commondir"))).toBe(false);
  });
});
