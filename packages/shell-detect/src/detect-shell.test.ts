import { userInfo } from "node:os";
import { describe, expect, it } from "vitest";
import { detectShell } from "./detect-shell.js";
import { shellTypeOf } from "./shell-type.js";

function shellDetectError(fields: { readonly code: string; readonly message: string }): unknown {
  return expect.objectContaining({ name: "ShellDetectError", ...fields });
}

const PASSWD = [
  "root:x:0:0:root:/root:/bin/bash",
  "alice:x:1000:1000:Alice:/home/alice:/usr/bin/zsh",
  "bob:x:1001:1001:Bob:/home/bob:/usr/local/bin/fish",
  "carol:x:1002:1002:Carol:/home/carol:/opt/microsoft/powershell/7/pwsh",
  "dave:x:1003:1003::/home/dave:",
  "erin:x:1004:1004::/home/erin:/bin/tcsh",
  "svc:x:999:999::/nonexistent:/usr/sbin/nologin",
].join("\n");

function existing(...paths: string[]): (path: string) => boolean {
  const set = new Set(paths);
  return (path) => set.has(path);
}

const ALL = existing(
  "/bin/bash",
  "/usr/bin/bash",
  "/usr/bin/zsh",
  "/usr/local/bin/fish",
  "/opt/microsoft/powershell/7/pwsh",
  "/bin/sh",
  "/bin/tcsh",
  "/usr/sbin/nologin",
);

describe("detectShell on POSIX", () => {
  const base = { passwd: PASSWD, platform: "linux", env: { SHELL: "/bin/bash" } } as const;

  it.each([
    [{ uid: 1000 }, { type: "zsh", path: "/usr/bin/zsh" }],
    [{ username: "bob" }, { type: "fish", path: "/usr/local/bin/fish" }],
    [{ uid: 1002 }, { type: "pwsh", path: "/opt/microsoft/powershell/7/pwsh" }],
    [{ uid: 1003 }, { type: "sh", path: "/bin/sh" }],
  ])("takes the passwd shell of %j over $SHELL", (user, shell) => {
    expect(detectShell({ ...base, ...user, exists: ALL })).toEqual(shell);
  });

  it("falls back to $SHELL when the passwd shell is not installed", () => {
    const exists = existing("/usr/local/bin/fish", "/bin/bash");
    expect(detectShell({ ...base, uid: 1000, env: { SHELL: "/usr/local/bin/fish" }, exists })).toEqual({
      type: "fish",
      path: "/usr/local/bin/fish",
    });
  });

  it.each([
    ["unsupported", 1004],
    ["not a shell", 999],
    ["missing", 4242],
  ])("falls back to $SHELL when the passwd shell is %s", (_, uid) => {
    expect(detectShell({ ...base, uid, env: { SHELL: "/usr/bin/zsh" }, exists: ALL })).toEqual({
      type: "zsh",
      path: "/usr/bin/zsh",
    });
  });

  it("then searches PATH for bash before /bin", () => {
    const env = { SHELL: "/usr/local/bin/tcsh", PATH: "/usr/local/bin:/usr/bin" };
    expect(detectShell({ ...base, uid: 999, env, exists: ALL })).toEqual({
      type: "bash",
      path: "/usr/bin/bash",
    });
  });

  it("then looks in /bin and /usr/bin when PATH has no shell", () => {
    const exists = existing("/bin/bash", "/usr/bin/bash");
    expect(detectShell({ ...base, uid: 999, env: { PATH: "/opt/tools" }, exists })).toEqual({
      type: "bash",
      path: "/bin/bash",
    });
  });

  it("prefers bash, then zsh, then sh", () => {
    const options = { ...base, uid: 999, env: {} };
    expect(detectShell({ ...options, exists: existing("/bin/sh", "/usr/bin/zsh") })).toEqual({
      type: "zsh",
      path: "/usr/bin/zsh",
    });
    expect(detectShell({ ...options, exists: existing("/bin/sh") })).toEqual({ type: "sh", path: "/bin/sh" });
  });

  it("ignores a relative $SHELL and relative PATH entries", () => {
    const exists = existing("bash", "./bash", "bin/bash", "/bin/sh");
    const env = { SHELL: "bash", PATH: ":.:bin:/opt/tools" };
    expect(detectShell({ ...base, uid: 999, env, exists })).toEqual({ type: "sh", path: "/bin/sh" });
  });

  it("reports every candidate it tried when none is usable", () => {
    expect(() => detectShell({ ...base, uid: 999, env: {}, exists: () => false })).toThrow(
      shellDetectError({
        code: "SHELL_NOT_FOUND",
        message:
          'no supported shell found (passwd shell "/usr/sbin/nologin", $SHELL unset, no bash, zsh or sh in PATH, /bin, /usr/bin)',
      }),
    );
    const exists = existing("/bin/tcsh");
    const env = { SHELL: "/bin/tcsh", PATH: "/usr/local/bin" };
    expect(() => detectShell({ ...base, uid: 4242, env, exists })).toThrow(
      shellDetectError({
        code: "SHELL_NOT_FOUND",
        message:
          'no supported shell found (passwd shell unset, $SHELL "/bin/tcsh", no bash, zsh or sh in PATH, /bin, /usr/bin)',
      }),
    );
  });
});

describe("detectShell on Windows", () => {
  const SYSTEM32 = "C:\\Windows\\System32";
  const env = {
    Path: "C:\\Program Files\\PowerShell\\7;C:\\Windows\\system32;tools",
    ComSpec: "C:\\Windows\\system32\\cmd.exe",
    SystemRoot: "C:\\Windows",
  };
  const base = { platform: "win32", env } as const;

  it("prefers pwsh on Path", () => {
    const exists = existing(
      "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
      `${SYSTEM32}\\WindowsPowerShell\\v1.0\\powershell.exe`,
      "C:\\Windows\\system32\\cmd.exe",
    );
    expect(detectShell({ ...base, exists })).toEqual({
      type: "pwsh",
      path: "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
    });
  });

  it("ignores passwd and $SHELL", () => {
    const exists = existing("/usr/bin/zsh", "/bin/bash", "C:\\Windows\\system32\\cmd.exe");
    const options = { ...base, passwd: PASSWD, uid: 1000, env: { ...env, SHELL: "/bin/bash" }, exists };
    expect(detectShell(options)).toEqual({ type: "cmd", path: "C:\\Windows\\system32\\cmd.exe" });
  });

  it("finds Windows PowerShell in its system folder when Path lacks it", () => {
    const exists = existing(
      `${SYSTEM32}\\WindowsPowerShell\\v1.0\\powershell.exe`,
      "C:\\Windows\\system32\\cmd.exe",
    );
    expect(detectShell({ ...base, exists })).toEqual({
      type: "powershell",
      path: `${SYSTEM32}\\WindowsPowerShell\\v1.0\\powershell.exe`,
    });
  });

  it("falls back to COMSPEC, then cmd in System32", () => {
    const exists = existing("D:\\bin\\cmd.exe", `${SYSTEM32}\\cmd.exe`);
    expect(detectShell({ ...base, env: { ...env, ComSpec: "D:\\bin\\cmd.exe" }, exists })).toEqual({
      type: "cmd",
      path: "D:\\bin\\cmd.exe",
    });
    expect(detectShell({ ...base, env: { SystemRoot: "C:\\Windows" }, exists })).toEqual({
      type: "cmd",
      path: `${SYSTEM32}\\cmd.exe`,
    });
  });

  it("reports what it tried when nothing is usable", () => {
    expect(() => detectShell({ platform: "win32", env: {}, exists: () => false })).toThrow(
      shellDetectError({
        code: "SHELL_NOT_FOUND",
        message:
          "no supported shell found (COMSPEC unset, no pwsh, powershell or cmd in PATH, C:\\Windows\\System32, C:\\Windows\\System32\\WindowsPowerShell\\v1.0)",
      }),
    );
  });
});

describe.runIf(process.platform === "linux")("detectShell on this machine", () => {
  it("returns the current user's passwd shell", () => {
    const { shell } = userInfo();
    expect(shell).not.toBeNull();
    expect(detectShell({ env: {} })).toEqual({ type: shellTypeOf(shell ?? ""), path: shell });
  });
});
