import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveExecArgs } from "./exec-args.js";
import type { Shell, ShellType } from "./shell-type.js";

describe("deriveExecArgs", () => {
  it.each<[ShellType, string, boolean, string[]]>([
    ["bash", "/bin/bash", true, ["/bin/bash", "-lc", "ls"]],
    ["bash", "/bin/bash", false, ["/bin/bash", "-c", "ls"]],
    ["zsh", "/usr/bin/zsh", true, ["/usr/bin/zsh", "-lc", "ls"]],
    ["zsh", "/usr/bin/zsh", false, ["/usr/bin/zsh", "-c", "ls"]],
    ["sh", "/bin/sh", true, ["/bin/sh", "-lc", "ls"]],
    ["sh", "/bin/sh", false, ["/bin/sh", "-c", "ls"]],
    ["dash", "/bin/dash", true, ["/bin/dash", "-lc", "ls"]],
    ["dash", "/bin/dash", false, ["/bin/dash", "-c", "ls"]],
    ["fish", "/usr/bin/fish", true, ["/usr/bin/fish", "-l", "-c", "ls"]],
    ["fish", "/usr/bin/fish", false, ["/usr/bin/fish", "-c", "ls"]],
    ["pwsh", "/usr/bin/pwsh", true, ["/usr/bin/pwsh", "-Command", "ls"]],
    ["pwsh", "/usr/bin/pwsh", false, ["/usr/bin/pwsh", "-NoProfile", "-Command", "ls"]],
    ["powershell", "powershell.exe", true, ["powershell.exe", "-Command", "ls"]],
    ["powershell", "powershell.exe", false, ["powershell.exe", "-NoProfile", "-Command", "ls"]],
    ["cmd", "C:\\Windows\\System32\\cmd.exe", true, ["C:\\Windows\\System32\\cmd.exe", "/c", "ls"]],
    ["cmd", "C:\\Windows\\System32\\cmd.exe", false, ["C:\\Windows\\System32\\cmd.exe", "/c", "ls"]],
  ])("%s at %s with login=%s", (type, path, login, argv) => {
    expect(deriveExecArgs({ type, path }, "ls", { login })).toEqual(argv);
  });

  it("rejects a shell type it has no arguments for", () => {
    const tcsh = { type: "tcsh", path: "/bin/tcsh" } as unknown as Shell;
    expect(() => deriveExecArgs(tcsh, "ls", { login: false })).toThrow(
      'unsupported shell "tcsh" (expected one of bash, zsh, sh, dash, fish, pwsh, powershell, cmd)',
    );
  });
});

describe.runIf(process.platform === "linux")("deriveExecArgs with the real shells", () => {
  let home: string;

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "conch-shell-detect-"));
    // Read by every POSIX login shell (bash falls back to it without a .bash_profile), never otherwise.
    writeFileSync(join(home, ".profile"), "export CONCH_PROFILE=loaded\n");
  });

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  function run(shell: Shell, script: string, login: boolean): string {
    const [file, ...args] = deriveExecArgs(shell, script, { login });
    return execFileSync(file, args, { encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: home } });
  }

  describe.each<Shell>([
    { type: "bash", path: "/bin/bash" },
    { type: "dash", path: "/bin/dash" },
    { type: "sh", path: "/bin/sh" },
  ])("$path", (shell) => {
    it("runs the script without the profile", () => {
      expect(run(shell, 'echo "$0|${CONCH_PROFILE:-none}"', false)).toBe(`${shell.path}|none\n`);
    });

    it("loads the profile as a login shell", () => {
      expect(run(shell, 'echo "$0|${CONCH_PROFILE:-none}"', true)).toBe(`${shell.path}|loaded\n`);
    });

    it("passes the script through as one argument, unquoted and unsplit", () => {
      expect(run(shell, `printf '%s\\n' "a  b" '$HOME' "it's"`, false)).toBe("a  b\n$HOME\nit's\n");
    });
  });

  it("makes bash a login shell only with login", () => {
    const bash: Shell = { type: "bash", path: "/bin/bash" };
    const script = "shopt -q login_shell && echo login || echo non-login";
    expect(run(bash, script, true)).toBe("login\n");
    expect(run(bash, script, false)).toBe("non-login\n");
  });
});
