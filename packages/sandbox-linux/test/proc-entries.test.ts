import { describeWith } from "@conch/test-config";
import { describe, expect, it } from "vitest";
import { mountPoints, readProcSurface } from "../src/bwrap/proc-entries.js";

describe("mountPoints", () => {
  it("reads each mount point once, unescaped, outermost first", () => {
    const mountinfo = [
      "22 27 0:21 / /proc rw,relatime - proc proc rw",
      "90 22 0:50 / /proc/sys/fs/binfmt_misc rw,relatime - binfmt_misc binfmt_misc rw",
      "91 22 0:51 / /proc/fs/nfsd rw,relatime - nfsd nfsd rw",
      "92 27 0:52 / /srv/with\\040space rw - tmpfs tmpfs rw",
      "93 92 0:52 / /proc/fs/nfsd rw - tmpfs tmpfs rw",
      "",
    ].join("\n");
    expect(mountPoints(mountinfo)).toEqual([
      "/proc",
      "/srv/with space",
      "/proc/fs/nfsd",
      "/proc/sys/fs/binfmt_misc",
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
});
