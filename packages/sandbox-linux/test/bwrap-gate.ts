import { describe, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";

const availability =
  process.platform === "linux"
    ? await createLinuxBackend().available()
    : { available: false as const, reason: `this is ${process.platform}, not Linux`, fix: "" };

/** Why real-bwrap suites cannot run here, or null when they can. */
const bwrapMissing: string | null = availability.available ? null : availability.reason;

/**
 * A suite that needs real bwrap. Where bwrap cannot run it fails on CI (a sandbox that silently stops
 * being tested is worse than a red build) and is skipped elsewhere, its name saying why.
 */
export function describeWithBwrap(name: string, suite: () => void): void {
  if (bwrapMissing === null) describe(name, suite);
  else if (process.env.CI) {
    describe(name, () => {
      it("runs real bwrap", () => {
        throw new Error(`bwrap cannot run on this CI machine: ${bwrapMissing}`);
      });
    });
  } else describe.skip(`${name} (skipped: ${bwrapMissing})`, suite);
}
