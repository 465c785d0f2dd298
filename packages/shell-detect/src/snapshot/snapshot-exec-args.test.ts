import { describe, expect, it } from "vitest";
import type { Shell } from "../shell-type.js";
import type { ShellSnapshot } from "./shell-snapshot.js";
import { snapshotExecArgs } from "./snapshot-exec-args.js";

function snapshot(shell: Shell, path: string): ShellSnapshot {
  return {
    shell,
    path,
    capturedAt: 0,
    sources: [],
    pathVariable: null,
    historyFile: null,
    exportedPaths: {},
  };
}

const SCRIPT = "a & b\n|| 'c'\\";

describe("snapshotExecArgs", () => {
  it("hands bash the script untouched and the snapshot through BASH_ENV, while the file exists", () => {
    expect(
      snapshotExecArgs(snapshot({ type: "bash", path: "/bin/bash" }, "/state/it's/bash-1.sh"), SCRIPT),
    ).toEqual([
      "/usr/bin/env",
      "BASH_ENV=$([ -r '/state/it'\\''s/bash-1.sh' ] && builtin printf %s '/state/it'\\''s/bash-1.sh')",
      "/bin/bash",
      "--norc",
      "-c",
      SCRIPT,
    ]);
  });

  it("hands zsh the script untouched and the snapshot's directory as ZDOTDIR", () => {
    expect(
      snapshotExecArgs(snapshot({ type: "zsh", path: "/bin/zsh" }, "/state/zsh-1/.zshenv"), SCRIPT),
    ).toEqual(["/usr/bin/env", "ZDOTDIR=/state/zsh-1", "/bin/zsh", "-c", SCRIPT]);
  });

  it.each(["sh", "dash"] as const)("has %s source the snapshot, then exec itself with the script", (type) => {
    expect(snapshotExecArgs(snapshot({ type, path: "/bin/sh" }, "/state/sh-1.sh"), SCRIPT)).toEqual([
      "/bin/sh",
      "-c",
      `if [ -r '/state/sh-1.sh' ]; then . '/state/sh-1.sh'; fi; exec "$0" -c "$1"`,
      "/bin/sh",
      SCRIPT,
    ]);
  });

  it("rejects a shell no snapshot can be taken of, and a script that is not a string", () => {
    expect(() => snapshotExecArgs(snapshot({ type: "fish", path: "/bin/fish" }, "/state/x"), "ls")).toThrow(
      expect.objectContaining({
        code: "UNSUPPORTED_SHELL",
        message: "shell snapshots are not supported for fish (only bash, zsh, sh, dash)",
      }),
    );
    expect(() =>
      snapshotExecArgs(snapshot({ type: "bash", path: "/bin/bash" }, "/x"), 42 as unknown as string),
    ).toThrow(
      expect.objectContaining({
        code: "INVALID_REQUEST",
        message: "invalid request: script: expected a string, received 42",
      }),
    );
  });
});
