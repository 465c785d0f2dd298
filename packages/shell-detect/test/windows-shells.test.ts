// The PowerShell and cmd paths of shell-detect, checked on any host: what argv a Windows shell gets, and
// that shell-detect neither quotes nor escapes the script for it (how cmd re-parses its command line is
// the spawner's concern, see exec-args.ts). Nothing here starts a Windows shell.
import { describe, expect, it } from "vitest";
import {
  deriveExecArgs,
  detectShell,
  resolveShell,
  type Shell,
  type ShellSnapshot,
  type ShellType,
  snapshotExecArgs,
} from "../src/index.js";

const PWSH = "C:\\Program Files\\PowerShell\\7\\pwsh.exe";
const POWERSHELL = "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe";
const CMD = "C:\\Windows\\System32\\cmd.exe";

// Each holds what a Windows shell or a Windows command line gives meaning to.
const SCRIPTS: readonly string[] = [
  'Get-ChildItem -Path "C:\\Program Files"',
  'echo "a ""b"" c"',
  "echo %PATH% and 100%%",
  "echo a ^& b ^| c ^^",
  "build && test || echo failed & echo done",
  "Write-Output 'it''s' \"$env:USERPROFILE\" `n",
  '"C:\\Program Files\\Git\\bin\\git.exe" status "--short"',
  'echo "unbalanced',
  "dir C:\\",
  'echo \\"escaped\\"',
  "first\r\nsecond",
  "  leading and trailing spaces  ",
  "",
];

function shellError(code: string, message: string): unknown {
  return expect.objectContaining({ name: "ShellDetectError", code, message });
}

function existing(...paths: string[]): (path: string) => boolean {
  return (path) => paths.includes(path);
}

describe("deriveExecArgs for PowerShell", () => {
  describe.each<[ShellType, string]>([
    ["pwsh", PWSH],
    ["powershell", POWERSHELL],
  ])("%s", (type, path) => {
    const shell: Shell = { type, path };

    it.each(SCRIPTS)("passes %j as the one argument after -Command, untouched", (script) => {
      expect(deriveExecArgs(shell, script, { login: false })).toEqual([
        path,
        "-NoProfile",
        "-Command",
        script,
      ]);
      expect(deriveExecArgs(shell, script, { login: true })).toEqual([path, "-Command", script]);
    });

    it("keeps the executable's path as the file, unquoted", () => {
      const [file] = deriveExecArgs(shell, "ls", { login: true });
      expect(file).toBe(path);
    });
  });
});

describe("deriveExecArgs for cmd", () => {
  const shell: Shell = { type: "cmd", path: CMD };

  it.each(SCRIPTS)("passes %j as the one argument after /c, untouched", (script) => {
    expect(deriveExecArgs(shell, script, { login: false })).toEqual([CMD, "/c", script]);
  });

  it("gives the same argv with and without login: cmd has no profile switch", () => {
    for (const script of SCRIPTS) {
      expect(deriveExecArgs(shell, script, { login: true })).toEqual(
        deriveExecArgs(shell, script, { login: false }),
      );
    }
  });

  it("neither wraps the script in quotes nor adds /d or /s", () => {
    const script = '"C:\\Program Files\\Git\\bin\\git.exe" status';
    expect(deriveExecArgs(shell, script, { login: false })).toEqual([CMD, "/c", script]);
  });
});

describe("a Windows host seen from any platform: detectShell, then deriveExecArgs", () => {
  const env = {
    Path: "C:\\Program Files\\PowerShell\\7;C:\\Windows\\system32",
    ComSpec: "C:\\Windows\\system32\\cmd.exe",
    SystemRoot: "C:\\Windows",
  };
  const script = 'Write-Output "a b" & echo 50%';

  it("runs the script in pwsh found on Path", () => {
    const shell = detectShell({ platform: "win32", env, exists: existing(PWSH, env.ComSpec) });
    expect(deriveExecArgs(shell, script, { login: true })).toEqual([PWSH, "-Command", script]);
  });

  it("runs the script in Windows PowerShell from System32 when pwsh is absent", () => {
    const shell = detectShell({ platform: "win32", env, exists: existing(POWERSHELL, env.ComSpec) });
    expect(deriveExecArgs(shell, script, { login: false })).toEqual([
      POWERSHELL,
      "-NoProfile",
      "-Command",
      script,
    ]);
  });

  it("runs the script in COMSPEC's cmd when there is no PowerShell", () => {
    const shell = detectShell({ platform: "win32", env, exists: existing(env.ComSpec) });
    expect(deriveExecArgs(shell, script, { login: true })).toEqual([env.ComSpec, "/c", script]);
  });
});

describe("resolveShell on a Windows host", () => {
  const options = {
    platform: "win32",
    env: { PATH: "C:\\Program Files\\PowerShell\\7", SystemRoot: "C:\\Windows" },
    exists: existing(
      PWSH,
      POWERSHELL,
      CMD,
      "C:\\Windows\\System32\\CMD.EXE",
      "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\PowerShell.exe",
    ),
  } as const;

  it("reads the type from a name whatever the case of its .exe", () => {
    expect(resolveShell("PowerShell.exe", options)).toEqual({
      type: "powershell",
      path: "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\PowerShell.exe",
    });
    expect(resolveShell("CMD.EXE", options)).toEqual({ type: "cmd", path: "C:\\Windows\\System32\\CMD.EXE" });
  });

  it("takes a path with forward slashes as a path, in Windows form", () => {
    expect(resolveShell("C:/Windows/System32/cmd.exe", options)).toEqual({ type: "cmd", path: CMD });
    expect(resolveShell("C:/Program Files/PowerShell/7/pwsh.exe", options)).toEqual({
      type: "pwsh",
      path: PWSH,
    });
  });

  it("refuses a Windows shell it has no arguments for", () => {
    expect(() => resolveShell("C:\\Windows\\System32\\wsl.exe", options)).toThrow(
      shellError(
        "UNSUPPORTED_SHELL",
        'unsupported shell "C:\\\\Windows\\\\System32\\\\wsl.exe" (expected one of bash, zsh, sh, dash, fish, pwsh, powershell, cmd)',
      ),
    );
  });
});

describe("snapshotExecArgs for PowerShell and cmd", () => {
  it.each<[ShellType, string]>([
    ["pwsh", PWSH],
    ["powershell", POWERSHELL],
    ["cmd", CMD],
  ])("refuses a snapshot of %s: it has no POSIX startup files", (type, path) => {
    const snapshot: ShellSnapshot = {
      shell: { type, path },
      path: "C:\\state\\snapshot.ps1",
      capturedAt: 0,
      sources: [],
      pathVariable: null,
      historyFile: null,
      exportedPaths: {},
    };
    expect(() => snapshotExecArgs(snapshot, "ls")).toThrow(
      shellError(
        "UNSUPPORTED_SHELL",
        `shell snapshots are not supported for ${type} (only bash, zsh, sh, dash)`,
      ),
    );
  });
});
