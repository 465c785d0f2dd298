import { SHELLS } from "@conch/protocol";
import { describe, expect, it } from "vitest";
import { SHELL_TYPES, shellTypeOf } from "./shell-type.js";

describe("SHELL_TYPES", () => {
  it("lists every supported shell", () => {
    expect(SHELL_TYPES).toEqual(["bash", "zsh", "sh", "dash", "fish", "pwsh", "powershell", "cmd"]);
  });

  it("are all in the one table of shells every package reads (@conch/protocol's SHELLS)", () => {
    expect(SHELL_TYPES.filter((type) => SHELLS[type] === undefined)).toEqual([]);
  });
});

describe("shellTypeOf", () => {
  it.each([
    ["/bin/bash", "bash"],
    ["/usr/bin/zsh", "zsh"],
    ["/bin/sh", "sh"],
    ["/usr/bin/dash", "dash"],
    ["/opt/homebrew/bin/fish", "fish"],
    ["/usr/bin/pwsh", "pwsh"],
    ["pwsh", "pwsh"],
    ["C:\\Program Files\\PowerShell\\7\\pwsh.exe", "pwsh"],
    ["C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\PowerShell.exe", "powershell"],
    ["powershell.exe", "powershell"],
    ["C:\\Windows\\system32\\CMD.EXE", "cmd"],
    ["cmd.exe", "cmd"],
  ])("reads %s as %s", (path, type) => {
    expect(shellTypeOf(path)).toBe(type);
  });

  it.each(["/bin/tcsh", "/usr/sbin/nologin", "/bin/false", "-bash", "bash5.2", "/usr/bin/BASH", ""])(
    "does not recognise %j",
    (path) => {
      expect(shellTypeOf(path)).toBeUndefined();
    },
  );
});
