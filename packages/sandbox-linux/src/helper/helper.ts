// The static helper shipped in this package (bin/conch-sandbox-helper-linux-<arch>, built from
// helper/conch-sandbox-helper.c by tooling/scripts/build-sandbox-helper.mjs): found for this machine's
// architecture, its SHA-256 checked against the digest recorded at build time before it is ever run.
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Availability } from "@conch/sandbox-core";
import { HELPER_DIGESTS } from "./helper-digests.js";
import { runCapture } from "./run-capture.js";

const REINSTALL_FIX =
  "reinstall @conch/sandbox-linux (its bin/ directory holds the helper, checked against the digest it was built with), or build it with `node tooling/scripts/build-sandbox-helper.mjs` in a checkout";

type Unavailable = Extract<Availability, { available: false }>;

/** The helper for this architecture, checked; or why there is none to run. */
export function helperPath(arch: string = process.arch): { path: string } | Unavailable {
  const key = `linux-${arch}`;
  const digest = HELPER_DIGESTS[key];
  if (digest === undefined) {
    return {
      available: false,
      reason: `no Landlock helper is built for ${key} (there are ${Object.keys(HELPER_DIGESTS).join(", ")})`,
      fix: "run Conch on x86_64 or aarch64 Linux",
    };
  }
  // From src/helper or dist/helper alike the package's bin/ is two levels up; a bundle (the conch
  // CLI's dist/conch.js) has it copied beside itself.
  const name = `conch-sandbox-helper-${key}`;
  const places = [new URL(`../../bin/${name}`, import.meta.url), new URL(`./${name}`, import.meta.url)];
  const path = fileURLToPath(places.find((place) => existsSync(place)) ?? (places[0] as URL));
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
    accessSync(path, constants.X_OK);
  } catch (error) {
    return {
      available: false,
      reason: `the Landlock helper ${path} cannot be run: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      fix: REINSTALL_FIX,
    };
  }
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== digest) {
    return {
      available: false,
      reason: `the Landlock helper ${path} is not the one this package was built with (SHA-256 ${actual}, expected ${digest})`,
      fix: REINSTALL_FIX,
    };
  }
  return { path };
}

/** The Landlock ABI the kernel offers (0: none, with why), as the helper finds it. */
export async function probeLandlockAbi(helper: string): Promise<{ abi: number; why: string }> {
  const probe = await runCapture(helper, ["--probe"]);
  const match = /^landlock-abi (\d+)\n?(.*)/s.exec(probe.output);
  if (probe.code !== 0 || match === null) {
    return { abi: 0, why: `the helper's probe failed: ${probe.output.trim() || `exit code ${probe.code}`}` };
  }
  return { abi: Number(match[1]), why: (match[2] ?? "").trim() };
}
