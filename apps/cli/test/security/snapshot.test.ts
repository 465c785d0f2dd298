// The shell snapshot runs the user's login shell: in the sandbox, so nothing a sandboxed command wrote
// (a shell named by the model, a program on a PATH into the workspace, a startup file linked into it)
// runs outside it, and the raw capture (every variable, before the env policy) is out of sight.
import { existsSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
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

// Issue 20 §6: the history file is hidden whatever the profile named it, in or out of the home.
describeWith("bwrap", "the history file the user's shell snapshot reports is hidden", () => {
  const SECRET = "hist-conch-test-secret";

  it("bash: a HISTFILE set in ~/.profile outside the home, and ~/.bash_history, read nothing", () => {
    const histfile = join(ws.outside, "bash-hist");
    writeFileSync(histfile, SECRET);
    writeFileSync(join(ws.home, ".profile"), `HISTFILE=${histfile}\nexport FROM_PROFILE=yes\n`);
    writeFileSync(join(ws.home, ".bash_history"), SECRET);
    const call = toolCall(ws, "exec_command", {
      cmd: `echo profile=$FROM_PROFILE; cat ${histfile} ~/.bash_history; echo done`,
      shell: "bash",
      yield_time_ms: 10000,
    });
    expect(call.text).toContain("profile=yes");
    expect(call.text).toContain("done");
    expect(call.text).not.toContain(SECRET);
    // The next command, a non-login one that captures nothing, is covered too.
    const next = toolCall(ws, "shell_command", { command: `cat ${histfile}`, login: false });
    expect(next.text).not.toContain(SECRET);
    const argv = toolCall(ws, "shell", { argv: ["cat", histfile] }, { profile: "argv" });
    expect(argv.text).toContain("Permission denied");
    expect(argv.text).not.toContain(SECRET);
  });

  itWith(
    "zsh",
    "zsh: a HISTFILE under ZDOTDIR with a name of its own reads nothing, in a session too",
    async () => {
      const zdotdir = join(ws.home, ".config", "zsh");
      mkdirSync(zdotdir, { recursive: true });
      writeFileSync(join(ws.home, ".zshenv"), `export ZDOTDIR="$HOME/.config/zsh"\n`);
      writeFileSync(join(zdotdir, ".zshrc"), 'HISTFILE="$ZDOTDIR/my-own-hist"\nSAVEHIST=100\n');
      writeFileSync(join(zdotdir, "my-own-hist"), SECRET);
      const session = replay(ws);
      const first = await session.call("exec_command", {
        cmd: "echo zdotdir=$ZDOTDIR; cat $ZDOTDIR/my-own-hist; echo done",
        shell: "zsh",
        yield_time_ms: 10000,
      });
      const second = await session.call("shell_command", {
        command: `cat ${join(zdotdir, "my-own-hist")}; echo done`,
        login: false,
      });
      expect(await session.close()).toBe(0);
      expect(first.text).toContain(`zdotdir=${zdotdir}`);
      expect(first.text).toContain("done");
      expect(first.text).not.toContain(SECRET);
      expect(second.text).toContain("done");
      expect(second.text).not.toContain(SECRET);
    },
  );

  it("a profile linked into the workspace, whose snapshot is not used, still has what it names hidden", () => {
    const histfile = join(ws.outside, "dotfiles-hist");
    const kube = join(ws.outside, "dotfiles-kube");
    writeFileSync(histfile, SECRET);
    writeFileSync(kube, SECRET);
    mkdirSync(join(ws.cwd, "dotfiles"));
    writeFileSync(join(ws.cwd, "dotfiles", "profile"), `HISTFILE=${histfile}\nexport KUBECONFIG=${kube}\n`);
    symlinkSync(join(ws.cwd, "dotfiles", "profile"), join(ws.home, ".profile"));
    ws.env.SHELL = "/bin/bash";
    for (const call of [
      toolCall(ws, "shell_command", { command: `cat ${histfile} ${kube}; echo done`, login: false }),
      toolCall(ws, "shell_command", { command: `cat ${histfile} ${kube}; echo done` }),
    ]) {
      expect(call.text).toContain("done");
      expect(call.text).not.toContain(SECRET);
    }
  });

  it("an exported HISTFILE is hidden from the first command, before any snapshot", () => {
    const histfile = join(ws.outside, "exported-hist");
    writeFileSync(histfile, SECRET);
    ws.env.HISTFILE = histfile;
    const call = toolCall(ws, "shell_command", { command: `cat ${histfile}; echo done`, login: false });
    expect(call.text).toContain("done");
    expect(call.text).not.toContain(SECRET);
  });
});

// A profile's exports move credentials as surely as the environment Conch started with does.
describeWith("bwrap", "the credentials the user's profile exports a path to are hidden", () => {
  it.each(["bash", "sh"])(
    "%s: KUBECONFIG, GOOGLE_APPLICATION_CREDENTIALS, GNUPGHOME and XDG_CONFIG_HOME from ~/.profile",
    (shell) => {
      const moved = join(ws.outside, "moved");
      const secrets = ["kube-b", "gcp.json", "gnupg/private-keys-v1.d/k.key", "xdg/gh/hosts.yml"];
      for (const secret of secrets) {
        mkdirSync(dirname(join(moved, secret)), { recursive: true });
        writeFileSync(join(moved, secret), `${secret}-conch-test-secret`);
      }
      writeFileSync(
        join(ws.home, ".profile"),
        `export KUBECONFIG=${moved}/kube-a:${moved}/kube-b\n` +
          `export GOOGLE_APPLICATION_CREDENTIALS=${moved}/gcp.json GNUPGHOME=${moved}/gnupg\n` +
          `export XDG_CONFIG_HOME=${moved}/xdg\n`,
      );
      ws.env.SHELL = `/bin/${shell}`;
      const read = `find ${moved} -type f -exec cat {} + 2>&1; echo done`;
      const calls = [
        toolCall(ws, "shell_command", { command: read, login: false }),
        toolCall(ws, "shell_command", { command: read }),
        toolCall(ws, "shell", { argv: ["sh", "-c", read] }, { profile: "argv" }),
      ];
      for (const { text } of calls) {
        expect(text).toContain("done");
        expect(text).toContain("Permission denied");
        expect(text).not.toContain("conch-test-secret");
      }
    },
  );
});

// Each `conch` process uses the snapshot an earlier one captured (its record in the state dir) while
// the startup files are unchanged: what it hides must follow the profile all the same.
describeWith("bwrap", "a snapshot recorded by an earlier process", () => {
  it("hides the HISTFILE the profile names in the next process, and the new one once the profile changes", () => {
    const first = join(ws.outside, "first-hist");
    const second = join(ws.outside, "second-hist");
    writeFileSync(first, "first-conch-test-secret");
    writeFileSync(second, "second-conch-test-secret");
    ws.env.SHELL = "/bin/bash";
    const profile = join(ws.home, ".profile");
    writeFileSync(profile, `HISTFILE=${first}\n`);
    utimesSync(profile, 1_000_000, 1_000_000);
    const command = { command: `cat ${first} ${second}; echo done`, login: false };
    const calls = [toolCall(ws, "shell_command", command).text, toolCall(ws, "shell_command", command).text];
    const snapshots = readdirSync(join(ws.home, ".local", "state", "conch", "snapshots"), {
      recursive: true,
    });
    expect(snapshots.filter((name) => /(^|\/)record-[0-9a-f]{16}\.json$/.test(String(name)))).toHaveLength(1);
    for (const text of calls) {
      expect(text).toContain("second-conch-test-secret");
      expect(text).not.toContain("first-conch-test-secret");
    }
    writeFileSync(profile, `HISTFILE=${second}\n`);
    utimesSync(profile, 2_000_000, 2_000_000);
    const after = toolCall(ws, "shell_command", command).text;
    expect(after).toContain("done");
    expect(after).not.toContain("second-conch-test-secret");
  });
});
