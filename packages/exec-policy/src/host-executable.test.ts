import { describe, expect, it } from "vitest";
import { executableName, normalizeAbsolutePath, validateHostExecutableName } from "./host-executable.js";

describe("executableName", () => {
  it.each<[string, string | null]>([
    ["git", "git"],
    ["/usr/bin/git", "git"],
    ["/usr/bin/git/", "git"],
    ["/usr/bin/./git/.", "git"],
    ["./git", "git"],
    ["/usr/bin/..", null],
    ["/", null],
    [".", null],
    ["", null],
  ])("reads %j as %j, as Rust's Path::file_name does", (program, name) => {
    expect(executableName(program)).toBe(name);
  });
});

describe("normalizeAbsolutePath", () => {
  it.each([
    ["/usr/bin/git", "/usr/bin/git"],
    ["//usr//bin/./git/", "/usr/bin/git"],
    ["/usr/local/../bin/git", "/usr/bin/git"],
    ["/..", "/"],
  ])("%j → %j", (path, normalized) => {
    expect(normalizeAbsolutePath(path)).toBe(normalized);
  });
});

describe("validateHostExecutableName", () => {
  it("accepts bare names only", () => {
    expect(() => validateHostExecutableName("git")).not.toThrow();
    expect(() => validateHostExecutableName("git.exe")).not.toThrow();
    for (const name of ["/usr/bin/git", "bin/git", "git/", ".", ".."]) {
      expect(() => validateHostExecutableName(name)).toThrow(
        `invalid rule: host_executable name must be a bare executable name (got ${name})`,
      );
    }
  });
});
