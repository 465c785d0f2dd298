import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveShell } from "./resolve-shell.js";

function shellDetectError(fields: { readonly code: string; readonly message: string }): unknown {
  return expect.objectContaining({ name: "ShellDetectError", ...fields });
}

const EXPECTED = "expected one of bash, zsh, sh, dash, fish, pwsh, powershell, cmd";

describe("resolveShell", () => {
  it.each(["tcsh", "/bin/tcsh", "-bash", ""])("rejects %j before touching the file system", (value) => {
    const exists = (): boolean => {
      throw new Error("looked up");
    };
    expect(() => resolveShell(value, { exists })).toThrow(
      shellDetectError({
        code: "UNSUPPORTED_SHELL",
        message: `unsupported shell ${JSON.stringify(value)} (${EXPECTED})`,
      }),
    );
  });

  it("looks a name up in PATH, then /bin and /usr/bin", () => {
    const options = { platform: "linux", env: { PATH: "/opt/homebrew/bin:/usr/local/bin" } } as const;
    expect(resolveShell("zsh", { ...options, exists: (path) => path === "/usr/local/bin/zsh" })).toEqual({
      type: "zsh",
      path: "/usr/local/bin/zsh",
    });
    expect(resolveShell("fish", { ...options, exists: (path) => path === "/usr/bin/fish" })).toEqual({
      type: "fish",
      path: "/usr/bin/fish",
    });
  });

  it("skips empty and relative PATH entries", () => {
    const exists = (path: string): boolean => ["dash", "bin/dash", "/usr/bin/dash"].includes(path);
    expect(resolveShell("dash", { platform: "linux", env: { PATH: "::bin:." }, exists })).toEqual({
      type: "dash",
      path: "/usr/bin/dash",
    });
  });

  it("takes a path as given, resolved against the cwd", () => {
    const exists = (path: string): boolean => path === resolve("bin/zsh") || path === "/usr/local/bin/zsh";
    expect(resolveShell("/usr/local/bin/zsh", { platform: "linux", exists })).toEqual({
      type: "zsh",
      path: "/usr/local/bin/zsh",
    });
    expect(resolveShell("./bin/zsh", { platform: "linux", exists })).toEqual({
      type: "zsh",
      path: resolve("bin/zsh"),
    });
  });

  it("names what it searched when the shell is missing", () => {
    const options = { platform: "linux", env: { PATH: "/opt/bin" }, exists: () => false } as const;
    expect(() => resolveShell("zsh", options)).toThrow(
      shellDetectError({
        code: "SHELL_NOT_FOUND",
        message: 'shell "zsh" not found in PATH, /bin, /usr/bin',
      }),
    );
    expect(() => resolveShell("/opt/zsh/bin/zsh", options)).toThrow(
      shellDetectError({
        code: "SHELL_NOT_FOUND",
        message: 'shell "/opt/zsh/bin/zsh" not found (no executable file at "/opt/zsh/bin/zsh")',
      }),
    );
  });

  it("adds .exe and reads Path case-insensitively on Windows", () => {
    const options = {
      platform: "win32",
      env: { Path: "C:\\Program Files\\PowerShell\\7", SystemRoot: "D:\\Windows" },
      exists: (path: string): boolean =>
        ["C:\\Program Files\\PowerShell\\7\\pwsh.exe", "D:\\Windows\\System32\\cmd.exe"].includes(path),
    } as const;
    expect(resolveShell("pwsh", options)).toEqual({
      type: "pwsh",
      path: "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
    });
    expect(resolveShell("pwsh.exe", options)).toEqual({
      type: "pwsh",
      path: "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
    });
    expect(resolveShell("cmd", options)).toEqual({ type: "cmd", path: "D:\\Windows\\System32\\cmd.exe" });
    expect(resolveShell("D:\\Windows\\System32\\cmd.exe", options)).toEqual({
      type: "cmd",
      path: "D:\\Windows\\System32\\cmd.exe",
    });
    expect(() => resolveShell("powershell", options)).toThrow(
      shellDetectError({
        code: "SHELL_NOT_FOUND",
        message:
          'shell "powershell" not found in PATH, D:\\Windows\\System32, D:\\Windows\\System32\\WindowsPowerShell\\v1.0',
      }),
    );
  });
});

describe.runIf(process.platform === "linux")("resolveShell on this machine", () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "conch-resolve-shell-"));
    mkdirSync(join(root, "dir", "bash"), { recursive: true });
    mkdirSync(join(root, "plain"));
    writeFileSync(join(root, "plain", "bash"), "#!/bin/sh\n");
    mkdirSync(join(root, "exec"));
    writeFileSync(join(root, "exec", "bash"), "#!/bin/sh\n");
    chmodSync(join(root, "exec", "bash"), 0o755);
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("finds the installed shells", () => {
    const env = { PATH: "/usr/bin:/bin" };
    expect(resolveShell("bash", { env })).toEqual({ type: "bash", path: "/usr/bin/bash" });
    expect(resolveShell("dash", { env })).toEqual({ type: "dash", path: "/usr/bin/dash" });
    expect(resolveShell("/bin/sh", { env })).toEqual({ type: "sh", path: "/bin/sh" });
  });

  it("skips directories and files without the execute bit", () => {
    const PATH = ["dir", "plain", "exec"].map((dir) => join(root, dir)).join(":");
    expect(resolveShell("bash", { env: { PATH } })).toEqual({
      type: "bash",
      path: join(root, "exec", "bash"),
    });
    expect(() => resolveShell(join(root, "plain", "bash"))).toThrow(
      shellDetectError({
        code: "SHELL_NOT_FOUND",
        message: `shell "${root}/plain/bash" not found (no executable file at "${root}/plain/bash")`,
      }),
    );
  });
});
