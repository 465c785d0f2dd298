// The shell snapshot runs the user's login shell: in the sandbox, so nothing a sandboxed command wrote
// (a shell named by the model, a program on a PATH into the workspace, a startup file linked into it)
// runs outside it, and the raw capture (every variable, before the env policy) is out of sight.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { conch, replay, toolCall, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

describeWith("bwrap", "shell snapshots never run what the sandbox wrote outside it", () => {
  it("a shell the model names from the workspace is not run outside the sandbox", () => {
    const marker = join(ws.outside, "pwned");
    const plant = toolCall(ws, "shell_command", {
      command: `mkdir -p bin && printf '#!/bin/sh\\necho x >> ${marker}\\nexec /bin/bash "$@"\\n' > bin/bash && chmod +x bin/bash && echo ok`,
    });
    expect(plant.text).toContain("ok");
    const call = toolCall(ws, "exec_command", {
      cmd: "echo hi",
      shell: join(ws.cwd, "bin", "bash"),
      yield_time_ms: 3000,
    });
    expect(call.text).toContain("hi");
    expect(existsSync(marker)).toBe(false);
  });

  it("a program on a PATH that points into the workspace runs in the sandbox when the profile calls it", () => {
    const marker = join(ws.outside, "pwned");
    writeFileSync(join(ws.home, ".profile"), "id >/dev/null 2>&1\nexport FROM_PROFILE=yes\n");
    toolCall(ws, "shell_command", {
      command: `mkdir -p .venv/bin && printf '#!/bin/sh\\necho x >> ${marker}\\n' > .venv/bin/id && chmod +x .venv/bin/id`,
    });
    ws.env.PATH = `${join(ws.cwd, ".venv", "bin")}:${ws.env.PATH}`;
    const call = toolCall(ws, "shell_command", { command: "echo $FROM_PROFILE" });
    expect(call.text).toContain("yes");
    expect(existsSync(marker)).toBe(false);
  });

  it("a startup file linked into the workspace is not used for a snapshot, and its payload stays in the sandbox", () => {
    const marker = join(ws.outside, "pwned");
    mkdirSync(join(ws.cwd, "dotfiles"));
    writeFileSync(join(ws.cwd, "dotfiles", "profile"), "export FROM_DOTFILES=yes\n");
    symlinkSync(join(ws.cwd, "dotfiles", "profile"), join(ws.home, ".profile"));
    toolCall(ws, "shell_command", { command: `echo 'echo x >> ${marker}' >> dotfiles/profile` });
    const check = conch(ws, ["sandbox", "--check"]);
    expect(check.stdout).toContain("lies in a writable root");
    const call = toolCall(ws, "shell_command", { command: "echo $FROM_DOTFILES" });
    expect(call.text).toContain("yes");
    expect(existsSync(marker)).toBe(false);
  });

  it("the raw capture, before the env policy filtered it, is never readable in the sandbox", async () => {
    writeFileSync(join(ws.home, ".profile"), "export MY_API_TOKEN=conch-test-secret-token\n");
    const session = replay(ws);
    // Polls every place a capture's work files could be, from before the capture starts.
    const watcher = await session.call("exec_command", {
      cmd:
        "for i in $(seq 100); do cat /tmp/conch-capture*/capture /tmp/.capture-*/capture " +
        "~/.local/state/conch/snapshots/*/.capture-*/capture ~/.local/state/conch/snapshots/*/*/capture 2>/dev/null; " +
        "grep -rh conch-test-secret ~/.local/state/conch /tmp 2>/dev/null; sleep 0.02; done; echo watched",
      login: false,
      yield_time_ms: 250,
    });
    expect(watcher.text).toContain("Process running");
    const captured = await session.call("shell_command", { command: "echo token=[${MY_API_TOKEN:-}]" });
    expect(captured.text).toContain("token=[]");
    const id = /session ID (\d+)/.exec(watcher.text)?.[1];
    const seen = await session.call("write_stdin", {
      session_id: Number(id),
      chars: "",
      yield_time_ms: 5000,
    });
    expect(seen.text).toContain("watched");
    expect(seen.text).not.toContain("conch-test-secret");
    expect(await session.close()).toBe(0);
  });
});
