import { describe, expect, it } from "vitest";
import { isLikelySandboxDenied, SANDBOX_DENIAL_KEYWORDS } from "./is-likely-sandbox-denied.js";

describe("isLikelySandboxDenied", () => {
  it("needs a non-zero exit and one of the keywords, in any case", () => {
    expect(SANDBOX_DENIAL_KEYWORDS.length).toBe(9);
    for (const keyword of SANDBOX_DENIAL_KEYWORDS) {
      expect(isLikelySandboxDenied(1, `x: ${keyword.toUpperCase()}\n`)).toBe(true);
      expect(isLikelySandboxDenied(0, keyword)).toBe(false);
    }
    expect(isLikelySandboxDenied(1, "touch: cannot touch '/etc/x': Read-only file system")).toBe(true);
    expect(isLikelySandboxDenied(101, "cargo failed: Operation not permitted (os error 1)")).toBe(true);
    // git's words when the sandbox keeps the repository's config read-only (the rename fails with EBUSY).
    expect(
      isLikelySandboxDenied(4, "error: could not write config file .git/config: Device or resource busy"),
    ).toBe(true);
    expect(isLikelySandboxDenied(1, "tests failed")).toBe(false);
    expect(isLikelySandboxDenied(null, "Permission denied")).toBe(false);
  });

  it("never treats 2, 126, 127 or a SIGSYS exit alone as a denial", () => {
    expect(isLikelySandboxDenied(2, "ls: cannot access 'x': No such file or directory")).toBe(false);
    expect(isLikelySandboxDenied(126, "")).toBe(false);
    expect(isLikelySandboxDenied(127, "sh: 1: nope: not found")).toBe(false);
    expect(isLikelySandboxDenied(159, "")).toBe(false);
    expect(isLikelySandboxDenied(126, "sh: 1: ./x: Permission denied")).toBe(true);
  });

  it("for sessions, counts only failures within 150 ms of spawn or at exit", () => {
    const output = "bash: /work/.conch/x: Read-only file system";
    expect(isLikelySandboxDenied(1, output, { session: true, sinceSpawnMs: 150 })).toBe(true);
    expect(isLikelySandboxDenied(1, output, { session: true, sinceSpawnMs: 151 })).toBe(false);
    expect(isLikelySandboxDenied(1, output, { session: true, sinceSpawnMs: 5000, exited: true })).toBe(true);
    expect(isLikelySandboxDenied(1, output, { session: true })).toBe(false);
    expect(isLikelySandboxDenied(0, output, { session: true, exited: true })).toBe(false);
    expect(isLikelySandboxDenied(1, output, { sinceSpawnMs: 5000 })).toBe(true);
  });
});
