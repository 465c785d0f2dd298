// Which paths an error line names, judged against the rules: classification only, nothing runs.
import type { SandboxRules } from "@conch/sandbox-core";
import { describe, expect, it } from "vitest";
import { blockedHint, blockedPaths } from "./blocked-paths.js";

const rules: SandboxRules = {
  mode: "workspace-write",
  readableRoots: ["/"],
  writableRoots: [{ root: "/w", readOnlySubpaths: ["/w/.git"] }],
  tmp: { kind: "private", source: "/state/tmp", targets: ["/tmp"] },
  hidden: [{ path: "/home/u/.ssh", type: "dir", readable: [] }],
  network: false,
};

describe("blockedPaths", () => {
  it("takes the file a shell names in its own error, not the shell's path", () => {
    expect(blockedPaths("/bin/bash: line 1: /etc/x: Permission denied\n", rules, "/w")).toEqual([
      { kind: "unreadable", path: "/etc/x" },
    ]);
    expect(blockedPaths("bash: /home/u/.ssh/id_rsa: Permission denied\n", rules, "/w")).toEqual([
      { kind: "hidden", path: "/home/u/.ssh/id_rsa" },
    ]);
    expect(blockedPaths("cat: /home/u/.ssh/id_rsa: Permission denied\n", rules, "/w")).toEqual([
      { kind: "hidden", path: "/home/u/.ssh/id_rsa" },
    ]);
  });

  it("under Landlock, a new entry at the top of a root that holds .git is said for what it is", () => {
    const line = "/bin/bash: line 1: made.txt: Permission denied\n";
    expect(blockedPaths(line, rules, "/w")).toEqual([]);
    const blocked = blockedPaths(line, rules, "/w", { sandbox: "landlock" });
    expect(blocked).toEqual([{ kind: "top-level", path: "/w/made.txt" }]);
    expect(blockedHint(blocked, rules, null)).toContain("work in a subdirectory");
    // Outside the roots, Landlock's EACCES for a write is a read-only path; a read stays unreadable.
    expect(
      blockedPaths("touch: cannot touch '/srv/x': Permission denied\n", rules, "/w", { sandbox: "landlock" }),
    ).toEqual([{ kind: "read-only", path: "/srv/x" }]);
    expect(blockedPaths("cat: /srv/x: Permission denied\n", rules, "/w", { sandbox: "landlock" })).toEqual([
      { kind: "unreadable", path: "/srv/x" },
    ]);
    // Deeper in the root, a refusal is no such thing.
    expect(blockedPaths("bash: src/x: Permission denied\n", rules, "/w", { sandbox: "landlock" })).toEqual(
      [],
    );
  });

  it("under Seatbelt, a write refused outside the roots (EPERM) is a read-only path; a read is not", () => {
    const write = "touch: /srv/x: Operation not permitted\n";
    expect(blockedPaths(write, rules, "/w")).toEqual([]);
    const blocked = blockedPaths(write, rules, "/w", { sandbox: "seatbelt" });
    expect(blocked).toEqual([{ kind: "read-only", path: "/srv/x" }]);
    expect(blockedHint(blocked, rules, null, { sandbox: "seatbelt" })).toContain(
      "$TMPDIR (not /tmp, under Seatbelt)",
    );
    expect(
      blockedPaths("cat: /srv/x: Operation not permitted\n", rules, "/w", { sandbox: "seatbelt" }),
    ).toEqual([]);
  });
});
