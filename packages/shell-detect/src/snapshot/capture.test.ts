import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Shell } from "../shell-type.js";
import { captureShellSnapshot } from "./capture.js";

const bash: Shell = { type: "bash", path: "/bin/bash" };

describe("captureShellSnapshot, before anything runs", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "conch-capture-"));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const options = () => ({ dir: join(root, "snapshots"), env: { HOME: root }, keep: () => true });

  it.each<[string, unknown, unknown, string]>([
    [
      "a relative dir",
      bash,
      { dir: "snapshots" },
      'invalid request: options.dir: expected an absolute path, received "snapshots"',
    ],
    [
      "no keep",
      bash,
      { keep: undefined },
      "invalid request: options.keep: expected a function (name, value) => boolean, received nothing",
    ],
    [
      "env that is not an object",
      bash,
      { env: "HOME=/" },
      'invalid request: options.env: expected an object of strings, received "HOME=/"',
    ],
    [
      "an env value that is not a string",
      bash,
      { env: { HOME: 1 } },
      "invalid request: options.env.HOME: expected a string, received 1",
    ],
    [
      "a timeout of 0",
      bash,
      { timeoutMs: 0 },
      "invalid request: options.timeoutMs: expected an integer from 1 to 2147483647 (milliseconds), received 0",
    ],
    [
      "a fractional timeout",
      bash,
      { timeoutMs: 1.5 },
      "invalid request: options.timeoutMs: expected an integer from 1 to 2147483647 (milliseconds), received 1.5",
    ],
    [
      "an unknown option",
      bash,
      { cwd: "/" },
      "invalid request: options.cwd: unknown option (expected one of dir, env, keep, timeoutMs, workDir, run)",
    ],
    [
      "a relative shell path",
      { type: "bash", path: "bash" },
      {},
      'invalid request: shell.path: expected an absolute path, received "bash"',
    ],
    ["no shell", null, {}, "invalid request: shell: expected a Shell ({ type, path }), received null"],
  ])("rejects %s", async (_, shell, overrides, message) => {
    await expect(
      captureShellSnapshot(shell as Shell, { ...options(), ...(overrides as object) }),
    ).rejects.toThrow(
      expect.objectContaining({ name: "ShellDetectError", code: "INVALID_REQUEST", message }),
    );
  });

  it.each(["fish", "pwsh", "powershell", "cmd"] as const)("does not support %s", async (type) => {
    expect(await captureShellSnapshot({ type, path: `/usr/bin/${type}` }, options())).toEqual({
      ok: false,
      reason: `shell snapshots are not supported for ${type} (only bash, zsh, sh, dash)`,
    });
  });

  it("creates the directory private to the user", async () => {
    const dir = join(root, "state", "snapshots");
    await captureShellSnapshot({ type: "bash", path: join(root, "missing-bash") }, { ...options(), dir });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("refuses a directory that is a symlink or that others can write to", async () => {
    const real = join(root, "real");
    mkdirSync(real, { mode: 0o700 });
    const link = join(root, "link");
    symlinkSync(real, link);
    expect(await captureShellSnapshot(bash, { ...options(), dir: link })).toEqual({
      ok: false,
      reason: `the snapshot directory "${link}" is a symbolic link; give the real directory`,
    });
    chmodSync(real, 0o777);
    expect(await captureShellSnapshot(bash, { ...options(), dir: real })).toEqual({
      ok: false,
      reason: `the snapshot directory "${real}" is writable by other users (mode 0777)`,
    });
    const file = join(root, "file");
    writeFileSync(file, "");
    expect(await captureShellSnapshot(bash, { ...options(), dir: file })).toEqual({
      ok: false,
      reason: `cannot create the snapshot directory "${file}": EEXIST: file already exists, mkdir '${file}'`,
    });
  });

  it("says when the shell cannot be started", async () => {
    const missing = join(root, "missing-bash");
    expect(await captureShellSnapshot({ type: "bash", path: missing }, options())).toEqual({
      ok: false,
      reason: `cannot start the login shell ${missing}: spawn ${missing} ENOENT`,
    });
  });
});
