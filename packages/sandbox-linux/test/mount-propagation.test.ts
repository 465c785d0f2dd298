// A file system the host mounts while a sandboxed command runs (an automount the command itself
// triggers: systemd's /boot, /efi, binfmt_misc) must not arrive in a root caller's sandbox writable.
// The host here is a mount namespace of the host's with shared mounts, as systemd makes them, so the
// test mounts nothing in the host's own.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";
import { rules, start } from "./sandbox-helpers.js";

const backend = createLinuxBackend();

describeWith("bwrap", "mounts the host makes while a command runs", () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync("/var/tmp/conch-propagation-");
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it.runIf(process.getuid?.() === 0)("stay out of a root caller's sandbox", async () => {
    const ws = join(base, "ws");
    const mountPoint = join(base, "mnt");
    mkdirSync(ws);
    mkdirSync(mountPoint);
    execFileSync("mkfifo", [join(ws, "ready"), join(ws, "go")]);
    // The command says it is running, waits until the "host" has mounted, then looks and writes.
    const spec = await backend.transform(
      {
        argv: [
          "sh",
          "-c",
          'echo > ready; read x < go; grep -c " $1 " /proc/self/mountinfo; touch "$1/planted" && echo planted',
          "sh",
          mountPoint,
        ],
        cwd: ws,
        env: { PATH: process.env.PATH ?? "" },
        extraFds: [],
      },
      rules({ writableRoots: [{ root: ws, readOnlySubpaths: [] }] }),
    );
    const host = [
      '"$@" &',
      'read x < "$READY"',
      'mount -t tmpfs conch-late "$MNT"',
      'echo > "$GO"',
      "wait $!",
      'status=$?; ls -A "$MNT"; umount "$MNT"; exit $status',
    ].join("\n");
    const child = start({
      ...spec,
      argv: ["unshare", "--mount", "--propagation", "shared", "--", "sh", "-c", host, "sh", ...spec.argv],
      env: { ...spec.env, READY: join(ws, "ready"), GO: join(ws, "go"), MNT: mountPoint },
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    // Not in the sandbox's mount table; the write lands on the read-only directory beneath.
    expect(output).toBe(`0\ntouch: cannot touch '${mountPoint}/planted': Read-only file system\n`);
    expect(code).toBe(1);
    expect(readdirSync(mountPoint)).toEqual([]);
  });
});
