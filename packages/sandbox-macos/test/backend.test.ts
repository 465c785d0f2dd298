// The backend's refusals off macOS (fail closed), on every platform; its real runs are in
// seatbelt-darwin.test.ts.
import { isSandboxError } from "@conch/sandbox-core";
import { describe, expect, it } from "vitest";
import { createSeatbeltBackend, probeSeatbelt } from "../src/backend.js";
import { CASES } from "./fixtures.js";

describe("the Seatbelt backend off macOS", () => {
  it("says it runs only on macOS, with the fix", () => {
    expect(probeSeatbelt("linux")).toEqual({
      available: false,
      reason: "Seatbelt (sandbox-exec) exists only on macOS, and this is linux",
      fix: "use the Linux backend (bubblewrap or Landlock) on Linux",
    });
  });

  it.runIf(process.platform !== "darwin")(
    "refuses to transform a command: nothing runs unsandboxed",
    async () => {
      const backend = createSeatbeltBackend();
      expect(backend.platform).toBe("darwin");
      const rules = CASES["workspace-write"]?.rules;
      if (rules === undefined) throw new Error("no fixture");
      const refused = await backend
        .transform({ argv: ["true"], cwd: "/", env: {}, extraFds: [] }, rules)
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(isSandboxError(refused)).toBe(true);
      expect((refused as Error).message).toMatch(
        /^cannot sandbox: Seatbelt \(sandbox-exec\) exists only on macOS/,
      );
    },
  );
});
