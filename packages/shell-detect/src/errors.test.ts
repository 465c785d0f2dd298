import { CONCH_ERROR_CODES, isConchError } from "@conch/protocol";
import { describe, expect, it } from "vitest";
import { isShellDetectError, SHELL_DETECT_ERROR_CODES, ShellDetectError } from "./errors.js";

describe("SHELL_DETECT_ERROR_CODES", () => {
  it("is a subset of the protocol's codes", () => {
    expect(SHELL_DETECT_ERROR_CODES).toEqual(["INVALID_REQUEST", "SHELL_NOT_FOUND", "UNSUPPORTED_SHELL"]);
    expect(SHELL_DETECT_ERROR_CODES.filter((code) => !CONCH_ERROR_CODES.includes(code))).toEqual([]);
  });
});

describe("ShellDetectError", () => {
  it("carries name, code, message and cause", () => {
    const cause = new Error("EACCES");
    const error = new ShellDetectError("SHELL_NOT_FOUND", 'shell "zsh" not found', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("ShellDetectError");
    expect(error.code).toBe("SHELL_NOT_FOUND");
    expect(error.message).toBe('shell "zsh" not found');
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe('ShellDetectError: shell "zsh" not found');
  });

  it("is branded for protocol's isConchError without an own brand property", () => {
    const error = new ShellDetectError("UNSUPPORTED_SHELL", "x");
    expect(isConchError(error)).toBe(true);
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
  });
});

describe("isShellDetectError", () => {
  const conch = Symbol.for("conch.error");
  const own = Symbol.for("conch.shell-detect.error");

  it("accepts errors from this or another copy of the package", () => {
    expect(isShellDetectError(new ShellDetectError("SHELL_NOT_FOUND", "x"))).toBe(true);
    expect(
      isShellDetectError(
        Object.assign(new Error("x"), { code: "UNSUPPORTED_SHELL", [conch]: true, [own]: true }),
      ),
    ).toBe(true);
  });

  it("rejects another package's error, even with a code this package also uses", () => {
    // What an ExecError from @conch/exec-core looks like: the common brand, a shared code.
    expect(
      isShellDetectError(Object.assign(new Error("x"), { code: "INVALID_REQUEST", [conch]: true })),
    ).toBe(false);
  });

  it("rejects other Conch codes, unbranded errors and non-errors", () => {
    expect(
      isShellDetectError(Object.assign(new Error("x"), { code: "SPAWN_FAILED", [conch]: true, [own]: true })),
    ).toBe(false);
    expect(isShellDetectError(Object.assign(new Error("x"), { code: "SHELL_NOT_FOUND" }))).toBe(false);
    expect(isShellDetectError(null)).toBe(false);
    expect(isShellDetectError("SHELL_NOT_FOUND")).toBe(false);
  });
});
