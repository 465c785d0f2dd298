import { lstatSync } from "node:fs";
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
  it("lists the masked files this kernel's /proc has, and only those", () => {
    const { masked } = readProcSurface();
    const present = ["kcore", "keys", "kpageflags", "slabinfo", "timer_list", "vmallocinfo"].filter(
      (name) => lstatSync(`/proc/${name}`, { throwIfNoEntry: false })?.isFile() === true,
    );
    expect(present).toContain("timer_list");
    for (const name of present) expect(masked).toContain(name);
    expect(masked).not.toContain("cpuinfo");
    expect(masked).toEqual([...masked].sort());
  });

  it("lists where kernel file systems are mounted, /proc and /sys among them", () => {
    const { kernelMounts } = readProcSurface();
    expect(kernelMounts.slice(0, 2).sort()).toEqual(["/proc", "/sys"]);
    expect(new Set(kernelMounts).size).toBe(kernelMounts.length);
  });
});
