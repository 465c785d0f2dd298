import type { SandboxRules } from "@conch/sandbox-core";
import { describe, expect, it } from "vitest";
import { bwrapArgs } from "../src/bwrap/bwrap-args.js";

const rules: SandboxRules = {
  mode: "workspace-write",
  readableRoots: ["/"],
  writableRoots: [{ root: "/work/repo", readOnlySubpaths: ["/work/repo/.git"] }],
  tmp: { kind: "private", source: "/state/tmp/ws1", targets: ["/tmp", "/var/tmp/user"] },
  hidden: [],
  network: false,
};
const options = {
  cwd: "/work/repo",
  tty: false,
  seccompFd: 3,
  placeholder: "/ph/empty",
  proc: { masked: [], kernelMounts: [] },
  devices: null,
  deviceDir: "/tmp/conch-dev-0",
};
const KERNEL = ["--dev", "/dev", "--proc", "/proc", "--remount-ro", "/proc"];
const TAIL = [
  "--unshare-user",
  "--unshare-pid",
  "--unshare-uts",
  "--disable-userns",
  "--unshare-net",
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "ALL",
  "--chdir",
  "/work/repo",
  "--seccomp",
  "3",
  "--",
];

/** The mount arguments, between the read-only fresh /proc and the namespaces. */
function mounts(args: string[]): string[][] {
  const body = args.slice(3 + KERNEL.length, args.indexOf("--unshare-user"));
  const out: string[][] = [];
  for (let i = 0; i < body.length; ) {
    const op = body[i] as string;
    const width = op === "--remount-ro" ? 2 : op === "--tmpfs" ? 2 : op === "--perms" ? 2 : 3;
    out.push(body.slice(i, i + width));
    i += width;
  }
  return out;
}

describe("bwrapArgs", () => {
  it("binds / read-only, the private /tmp, writable roots over it, protected paths read-only again", () => {
    expect(bwrapArgs(rules, options)).toEqual([
      "--ro-bind",
      "/",
      "/",
      ...KERNEL,
      "--bind",
      "/state/tmp/ws1",
      "/tmp",
      "--bind",
      "/state/tmp/ws1",
      "/var/tmp/user",
      "--bind",
      "/work/repo",
      "/work/repo",
      "--ro-bind",
      "/work/repo/.git",
      "/work/repo/.git",
      ...TAIL,
    ]);
  });

  it("binds a writable root under /tmp after the private /tmp, so it lands on top", () => {
    const args = bwrapArgs(
      { ...rules, writableRoots: [{ root: "/tmp/x", readOnlySubpaths: [] }] },
      { ...options, cwd: "/tmp/x" },
    );
    expect(mounts(args)).toEqual([
      ["--bind", "/state/tmp/ws1", "/tmp"],
      ["--bind", "/state/tmp/ws1", "/var/tmp/user"],
      ["--bind", "/tmp/x", "/tmp/x"],
    ]);
  });

  it("mounts a fresh tmpfs at each target for an empty /tmp, and nothing for the host's", () => {
    const empty = bwrapArgs({ ...rules, tmp: { kind: "empty", targets: ["/tmp", "/run/t"] } }, options);
    expect(mounts(empty).slice(0, 4)).toEqual([
      ["--perms", "1777"],
      ["--tmpfs", "/tmp"],
      ["--perms", "1777"],
      ["--tmpfs", "/run/t"],
    ]);
    const host = bwrapArgs({ ...rules, tmp: { kind: "host" } }, options);
    expect(mounts(host)).toEqual([
      ["--bind", "/work/repo", "/work/repo"],
      ["--ro-bind", "/work/repo/.git", "/work/repo/.git"],
    ]);
  });

  it("pins every directory between a writable root and a protected path as a mount point", () => {
    const nested: SandboxRules = {
      ...rules,
      tmp: { kind: "host" },
      writableRoots: [{ root: "/srv", readOnlySubpaths: ["/srv/d/ws/.git"] }],
    };
    expect(mounts(bwrapArgs(nested, { ...options, cwd: "/srv/d/ws" }))).toEqual([
      ["--bind", "/srv", "/srv"],
      ["--bind", "/srv/d", "/srv/d"],
      ["--bind", "/srv/d/ws", "/srv/d/ws"],
      ["--ro-bind", "/srv/d/ws/.git", "/srv/d/ws/.git"],
    ]);
  });

  it("hides directories and files after every bind, pinning the way to those in writable roots", () => {
    const hiding: SandboxRules = {
      ...rules,
      tmp: { kind: "host" },
      writableRoots: [{ root: "/home/u", readOnlySubpaths: ["/home/u/.conch"] }],
      hidden: [
        { path: "/home/u/.config/gcloud", type: "dir", readable: [] },
        { path: "/home/u/.conch/secret", type: "file", readable: [] },
        { path: "/root/.ssh", type: "dir", readable: [] },
        { path: "/etc/shadow", type: "file", readable: [] },
      ],
    };
    expect(mounts(bwrapArgs(hiding, { ...options, cwd: "/home/u" }))).toEqual([
      ["--bind", "/home/u", "/home/u"],
      ["--bind", "/home/u/.config", "/home/u/.config"],
      ["--bind", "/home/u/.conch", "/home/u/.conch"],
      ["--ro-bind", "/home/u/.conch", "/home/u/.conch"],
      ["--perms", "0000"],
      ["--tmpfs", "/root/.ssh"],
      ["--remount-ro", "/root/.ssh"],
      ["--ro-bind", "/ph/empty", "/etc/shadow"],
      ["--perms", "0000"],
      ["--tmpfs", "/home/u/.config/gcloud"],
      ["--remount-ro", "/home/u/.config/gcloud"],
      ["--ro-bind", "/ph/empty", "/home/u/.conch/secret"],
    ]);
  });

  it("leaves a hidden directory's readable exceptions reachable by name, not listable", () => {
    const spill: SandboxRules = {
      ...rules,
      writableRoots: [],
      hidden: [
        {
          path: "/home/u/.local/state/conch",
          type: "dir",
          readable: ["/home/u/.local/state/conch/spill/ws1", "/elsewhere", "/home/u/.local/state/conch"],
        },
        // Inside the hidden directory: already out of sight.
        { path: "/home/u/.local/state/conch/audit.log", type: "file", readable: [] },
        // Inside a readable exception: hidden again.
        { path: "/home/u/.local/state/conch/spill/ws1/key", type: "file", readable: [] },
      ],
    };
    expect(mounts(bwrapArgs(spill, options)).slice(2)).toEqual([
      ["--perms", "0111"],
      ["--tmpfs", "/home/u/.local/state/conch"],
      ["--ro-bind-try", "/home/u/.local/state/conch/spill/ws1", "/home/u/.local/state/conch/spill/ws1"],
      ["--remount-ro", "/home/u/.local/state/conch"],
      ["--ro-bind", "/ph/empty", "/home/u/.local/state/conch/spill/ws1/key"],
    ]);
  });

  it("skips hidden paths under the private or empty /tmp unless a writable root shows them", () => {
    const underTmp: SandboxRules = {
      ...rules,
      writableRoots: [{ root: "/tmp/ws", readOnlySubpaths: [] }],
      hidden: [
        { path: "/tmp/other/.env", type: "file", readable: [] },
        { path: "/tmp/ws/.env", type: "file", readable: [] },
      ],
    };
    expect(mounts(bwrapArgs(underTmp, options)).slice(2)).toEqual([
      ["--bind", "/tmp/ws", "/tmp/ws"],
      ["--ro-bind", "/ph/empty", "/tmp/ws/.env"],
    ]);
  });

  it("keeps the placeholder and the way to it read-only wherever a writable mount shows it", () => {
    const args = bwrapArgs(
      {
        ...rules,
        tmp: { kind: "private", source: "/state/tmp", targets: ["/tmp"] },
        writableRoots: [{ root: "/var", readOnlySubpaths: [] }],
      },
      { ...options, placeholder: "/var/tmp/conch-hidden-0" },
    );
    expect(mounts(args)).toEqual([
      ["--bind", "/state/tmp", "/tmp"],
      ["--bind", "/var", "/var"],
      ["--bind", "/var/tmp", "/var/tmp"],
      ["--ro-bind", "/var/tmp/conch-hidden-0", "/var/tmp/conch-hidden-0"],
    ]);
    const inTmpSource = bwrapArgs(
      { ...rules, tmp: { kind: "private", source: "/state/tmp", targets: ["/tmp"] }, writableRoots: [] },
      { ...options, placeholder: "/state/tmp/d/empty" },
    );
    expect(mounts(inTmpSource)).toEqual([
      ["--bind", "/state/tmp", "/tmp"],
      ["--bind", "/state/tmp/d", "/tmp/d"],
      ["--ro-bind", "/state/tmp/d/empty", "/tmp/d/empty"],
    ]);
  });

  it("binds a root caller's own device nodes over the host's, and keeps their directory read-only", () => {
    const devices = new Map([
      ["/dev/null", "/tmp/conch-dev-0/null"],
      ["/dev/tty", "/tmp/conch-dev-0/tty"],
    ]);
    const args = bwrapArgs(
      { ...rules, tmp: { kind: "host" }, writableRoots: [{ root: "/tmp", readOnlySubpaths: [] }] },
      { ...options, cwd: "/tmp", devices },
    );
    expect(args.slice(0, 11)).toEqual([
      ...["--ro-bind", "/", "/", "--dev", "/dev"],
      ...[
        "--dev-bind",
        "/tmp/conch-dev-0/null",
        "/dev/null",
        "--dev-bind",
        "/tmp/conch-dev-0/tty",
        "/dev/tty",
      ],
    ]);
    expect(args.join(" ")).toContain(
      "--bind /tmp /tmp --ro-bind /tmp/conch-dev-0 /tmp/conch-dev-0 --unshare-user",
    );
  });

  it("makes the fresh /proc read-only whole, after masking the kernel internals this kernel has", () => {
    const proc = { masked: ["kcore", "timer_list"], kernelMounts: [] };
    const args = bwrapArgs({ ...rules, writableRoots: [], tmp: { kind: "host" } }, { ...options, proc });
    expect(args.slice(0, args.indexOf("--unshare-user"))).toEqual([
      ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
      ...["--ro-bind", "/ph/empty", "/proc/kcore"],
      ...["--ro-bind", "/ph/empty", "/proc/timer_list"],
      ...["--remount-ro", "/proc"],
    ]);
  });

  it("puts the fresh /dev, /proc and a read-only /sys back over a writable root that covers them", () => {
    const whole: SandboxRules = {
      ...rules,
      tmp: { kind: "host" },
      writableRoots: [{ root: "/", readOnlySubpaths: [] }],
    };
    const args = bwrapArgs(whole, { ...options, cwd: "/" });
    expect(args.slice(0, args.indexOf("--unshare-user"))).toEqual([
      ...["--ro-bind", "/", "/", ...KERNEL],
      ...["--bind", "/", "/"],
      // The placeholder, shown by the writable /, is kept read-only (see below).
      ...["--bind", "/ph", "/ph", "--ro-bind", "/ph/empty", "/ph/empty"],
      ...[...KERNEL, "--ro-bind", "/sys", "/sys"],
    ]);
    const below = bwrapArgs(rules, options);
    expect(below.filter((arg) => arg === "--proc")).toEqual(["--proc"]);
    expect(below).not.toContain("/sys");
  });

  it("binds kernel file systems inside a writable mount read-only again, after the writable binds", () => {
    const proc = {
      masked: [],
      kernelMounts: [
        "/proc",
        "/sys/fs/cgroup",
        "/work/repo/chroot/proc",
        "/state/tmp/ws1/m/sys",
        "/srv/proc",
      ],
    };
    expect(mounts(bwrapArgs(rules, { ...options, proc }))).toEqual([
      ["--bind", "/state/tmp/ws1", "/tmp"],
      ["--bind", "/state/tmp/ws1", "/var/tmp/user"],
      ["--bind", "/work/repo", "/work/repo"],
      ["--ro-bind", "/work/repo/.git", "/work/repo/.git"],
      ["--ro-bind-try", "/work/repo/chroot/proc", "/work/repo/chroot/proc"],
      ["--ro-bind-try", "/state/tmp/ws1/m/sys", "/var/tmp/user/m/sys"],
    ]);
  });

  it("keeps the network and the controlling terminal when asked", () => {
    const args = bwrapArgs({ ...rules, network: true }, { ...options, cwd: "/", tty: true, seccompFd: 4 });
    expect(args).not.toContain("--unshare-net");
    expect(args).not.toContain("--new-session");
    expect(args.slice(-12)).toEqual([
      "--unshare-user",
      "--unshare-pid",
      "--unshare-uts",
      "--disable-userns",
      "--die-with-parent",
      "--cap-drop",
      "ALL",
      "--chdir",
      "/",
      "--seccomp",
      "4",
      "--",
    ]);
  });
});
