// The host's device nodes under real bwrap: bwrap's --dev binds the host's /dev/null, zero, full, random,
// urandom and tty, and a root caller's sandbox is uid 0 and owns them, so a `chmod 000 /dev/null` inside
// would break every other user of the host. The attempt here is a chmod to the mode a node already has
// and a touch: they change nothing but the inode's ctime and mtime, which are compared on the host.
import { lstatSync } from "node:fs";
import { describeWith } from "@conch/test-config";
import { expect, it } from "vitest";
import { DEVICE_DIR } from "../src/bwrap/device-nodes.js";
import { createLinuxBackend } from "../src/index.js";
import { rules, runSandboxed } from "./sandbox-helpers.js";

const backend = createLinuxBackend();
const isRoot = process.getuid?.() === 0;
const DEVICES = ["null", "zero", "full", "random", "urandom", "tty"];

const times = (path: string): string => {
  const info = lstatSync(path, { bigint: true });
  return `${info.ctimeNs}/${info.mtimeNs}/${(Number(info.mode) & 0o7777).toString(8)}`;
};

describeWith("bwrap", "the host's device nodes", () => {
  it.runIf(isRoot)(
    "a root caller's chmod and touch of /dev's nodes reach only Conch's own copies",
    async () => {
      const host = DEVICES.map((name) => times(`/dev/${name}`));
      const script = DEVICES.map((name) => `chmod 666 /dev/${name} && touch /dev/${name} && echo ${name}`);
      const outcome = await runSandboxed(backend, rules({}), "/", ["sh", "-c", script.join("; ")]);
      expect(outcome).toEqual({ code: 0, output: `${DEVICES.join("\n")}\n` });
      expect(DEVICES.map((name) => times(`/dev/${name}`))).toEqual(host);
      // The copies took the change, so the attempt reached something: a test that cannot fail is none.
      for (const name of DEVICES)
        expect(lstatSync(`${DEVICE_DIR}/${name}`).rdev).toBe(lstatSync(`/dev/${name}`).rdev);
    },
  );

  it.runIf(isRoot)("a copy a command made unusable is made anew for the next one", async () => {
    // Only once the sandbox's /dev/null is known to be the copy: chmod 000 of the host's would break it.
    const inode = await runSandboxed(backend, rules({}), "/", ["stat", "-c", "%i", "/dev/null"]);
    expect(inode.output).toBe(`${lstatSync(`${DEVICE_DIR}/null`).ino}\n`);
    expect(inode.output).not.toBe(`${lstatSync("/dev/null").ino}\n`);
    const broken = await runSandboxed(backend, rules({}), "/", [
      "sh",
      "-c",
      `[ "$(stat -c %i /dev/null)" = ${lstatSync("/dev/null").ino} ] || chmod 000 /dev/null; echo x > /dev/null || echo refused`,
    ]);
    expect(broken.output).toContain("refused");
    expect((lstatSync("/dev/null").mode & 0o777).toString(8)).toBe("666");
    const next = await runSandboxed(backend, rules({}), "/", [
      "sh",
      "-c",
      "echo x > /dev/null && echo wrote",
    ]);
    expect(next).toEqual({ code: 0, output: "wrote\n" });
    expect((lstatSync(`${DEVICE_DIR}/null`).mode & 0o777).toString(8)).toBe("666");
  });

  it("the devices work inside: written and read", async () => {
    const outcome = await runSandboxed(backend, rules({}), "/", [
      "sh",
      "-c",
      "echo x > /dev/null && head -c 3 /dev/zero | wc -c && head -c 3 /dev/urandom | wc -c && { echo x > /dev/full; } 2>/dev/null || echo full",
    ]);
    expect(outcome).toEqual({ code: 0, output: "3\n3\nfull\n" });
  });
});
