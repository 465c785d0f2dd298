import { describe, expect, it } from "vitest";
import { SandboxError } from "../errors.js";
import { validatePolicy, validateResolveOptions } from "./validate-policy.js";

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError);
    const { code, message } = error as SandboxError;
    return { code, message };
  }
  throw new Error("expected a SandboxError");
}

describe("validatePolicy", () => {
  it("copies a valid policy onto a null prototype", () => {
    const policy = validatePolicy({ mode: "workspace-write", writableRoots: ["a"], networkAccess: true });
    expect(Object.getPrototypeOf(policy)).toBe(null);
    expect({ ...policy }).toEqual({ mode: "workspace-write", writableRoots: ["a"], networkAccess: true });
    expect({ ...validatePolicy({ mode: "workspace-write" }) }).toEqual({ mode: "workspace-write" });
    expect({ ...validatePolicy({ mode: "read-only" }) }).toEqual({ mode: "read-only" });
  });

  it.each([
    [null, "invalid sandbox policy: policy: expected an object, received null"],
    [["read-only"], 'invalid sandbox policy: policy: expected an object, received ["read-only"]'],
    [
      { mode: "yolo" },
      'invalid sandbox policy: mode: expected one of read-only, workspace-write, danger-full-access, external-sandbox, received "yolo"',
    ],
    [
      {},
      "invalid sandbox policy: mode: expected one of read-only, workspace-write, danger-full-access, external-sandbox, received nothing",
    ],
    [
      { mode: "workspace-write", writableRoots: "/x" },
      'invalid sandbox policy: writableRoots: expected an array of paths, received "/x"',
    ],
    [
      { mode: "workspace-write", writableRoots: ["/x", 7] },
      "invalid sandbox policy: writableRoots[1]: expected a non-empty path, received 7",
    ],
    [
      { mode: "workspace-write", writableRoots: [""] },
      'invalid sandbox policy: writableRoots[0]: expected a non-empty path, received ""',
    ],
    [
      { mode: "workspace-write", networkAccess: "yes" },
      'invalid sandbox policy: networkAccess: expected a boolean, received "yes"',
    ],
    [
      { mode: "workspace-write", writable_roots: ["/x"] },
      "invalid sandbox policy: writable_roots: unknown field for mode workspace-write (expected one of mode, writableRoots, networkAccess)",
    ],
    [
      { mode: "read-only", networkAccess: true },
      "invalid sandbox policy: networkAccess: unknown field for mode read-only (expected one of mode)",
    ],
  ])("rejects %j", (policy, message) => {
    expect(errorOf(() => validatePolicy(policy))).toEqual({ code: "INVALID_SANDBOX_POLICY", message });
  });
});

describe("validateResolveOptions", () => {
  it("requires an absolute cwd and an object env", () => {
    expect(errorOf(() => validateResolveOptions({ cwd: "rel" }))).toEqual({
      code: "INVALID_SANDBOX_POLICY",
      message: 'invalid sandbox options: cwd: expected an absolute path, received "rel"',
    });
    expect(errorOf(() => validateResolveOptions({ cwd: "/", env: "x" }))).toEqual({
      code: "INVALID_SANDBOX_POLICY",
      message: 'invalid sandbox options: env: expected an object, received "x"',
    });
    expect(validateResolveOptions({ cwd: "/" }).env).toBe(process.env);
  });
});
