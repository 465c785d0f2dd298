import type { SandboxRules } from "@conch/sandbox-core";
import { describe, expect, it } from "vitest";
import { bwrapArgs } from "../src/bwrap/bwrap-args.js";

const rules: SandboxRules = {
  mode: "workspace-write",
  readableRoots: ["/"],
  writableRoots: [
    { root: "/work/repo", readOnlySubpaths: ["/work/repo/.git"], blockedMissing: ["/work/repo/.conch"] },
    { root: "/tmp", readOnlySubpaths: [], blockedMissing: [] },
  ],
  network: false,
};

describe("bwrapArgs", () => {
  it("binds everything read-only, writable roots over it, protected paths read-only again", () => {
    expect(bwrapArgs(rules, { cwd: "/work/repo", tty: false, seccompFd: 3, emptyDir: "/e" })).toEqual([
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--bind",
      "/work/repo",
      "/work/repo",
      "--bind",
      "/tmp",
      "/tmp",
      "--ro-bind",
      "/work/repo/.git",
      "/work/repo/.git",
      "--ro-bind",
      "/e",
      "/work/repo/.conch",
      "--unshare-user",
      "--unshare-pid",
      "--unshare-net",
      "--die-with-parent",
      "--new-session",
      "--chdir",
      "/work/repo",
      "--seccomp",
      "3",
      "--",
    ]);
  });

  it("pins every directory between a writable root and a protected path as a mount point", () => {
    const nested: SandboxRules = {
      ...rules,
      writableRoots: [
        { root: "/tmp", readOnlySubpaths: ["/tmp/d/ws/.git"], blockedMissing: ["/tmp/d/ws/.conch"] },
      ],
    };
    const args = bwrapArgs(nested, { cwd: "/tmp/d/ws", tty: false, seccompFd: 3, emptyDir: "/e" });
    expect(args.slice(7, 22)).toEqual([
      "--bind",
      "/tmp",
      "/tmp",
      "--bind",
      "/tmp/d",
      "/tmp/d",
      "--bind",
      "/tmp/d/ws",
      "/tmp/d/ws",
      "--ro-bind",
      "/tmp/d/ws/.git",
      "/tmp/d/ws/.git",
      "--ro-bind",
      "/e",
      "/tmp/d/ws/.conch",
    ]);
  });

  it("keeps the network and the controlling terminal when asked", () => {
    const args = bwrapArgs(
      { ...rules, network: true },
      { cwd: "/", tty: true, seccompFd: 4, emptyDir: "/e" },
    );
    expect(args).not.toContain("--unshare-net");
    expect(args).not.toContain("--new-session");
    expect(args.slice(-4)).toEqual(["/", "--seccomp", "4", "--"]);
  });
});
