import { describeWith } from "@conch/test-config";
import { describe, expect, it } from "vitest";
import { mountTable, readProcSurface } from "../src/bwrap/proc-entries.js";

describe("mountTable", () => {
  it("reads each mount's point, unescaped, and type, outermost first", () => {
    const mountinfo = [
      "22 27 0:21 / /proc rw,relatime - proc proc rw",
      "90 22 0:50 / /proc/sys/fs/binfmt_misc rw,relatime shared:5 - binfmt_misc binfmt_misc rw",
      "91 22 0:51 / /proc/fs/nfsd rw,relatime master:2 shared:9 - nfsd nfsd rw",
      "92 27 0:52 / /srv/with\\040space rw - tmpfs tmpfs rw",
      "93 92 0:21 / /srv/with\\040space/proc rw - proc proc rw",
      "",
    ].join("\n");
    expect(mountTable(mountinfo)).toEqual([
      { path: "/proc", type: "proc" },
      { path: "/srv/with space", type: "tmpfs" },
      { path: "/proc/fs/nfsd", type: "nfsd" },
      { path: "/srv/with space/proc", type: "proc" },
      { path: "/proc/sys/fs/binfmt_misc", type: "binfmt_misc" },
    ]);
  });
});

describeWith("linux", "readProcSurface", () => {
  it("lists the global entries of /proc with their types, and no pid directory or link", () => {
    const { entries } = readProcSurface();
    const names = entries.map((entry) => entry.name);
    expect(entries.find((entry) => entry.name === "sys")).toEqual({ name: "sys", type: "dir" });
    expect(entries.find((entry) => entry.name === "version")).toEqual({ name: "version", type: "file" });
    for (const link of ["self", "thread-self", "net", "mounts"]) expect(names).not.toContain(link);
    expect(names.filter((name) => /^\d+$/.test(name))).toEqual([]);
    expect(names).toEqual([...names].sort());
  });

  it("lists where kernel file systems are mounted, /proc and /sys among them", () => {
    const { kernelMounts } = readProcSurface();
    expect(kernelMounts.slice(0, 2).sort()).toEqual(["/proc", "/sys"]);
    expect(new Set(kernelMounts).size).toBe(kernelMounts.length);
  });
});
