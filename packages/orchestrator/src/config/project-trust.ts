// A project's own rules (its `.conch/config.toml` `rules_dirs`) may allow commands, so they load only for
// a project the person trusted, and only as they were when trusted: `conch trust` pins a digest of the
// config and every rules file. Anything written later, by a sandboxed agent or anyone else, changes the
// digest and is ignored until the person trusts the project again (direnv's `allow`, for rules).
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RulesFile } from "@conch/exec-policy";
import { OrchestratorError } from "../errors.js";

interface TrustRecord {
  readonly digest: string;
  readonly trustedAt: string;
}

interface TrustFile {
  readonly version: 1;
  readonly projects: Record<string, TrustRecord>;
}

/** `<state dir>/trusted-projects.json`. */
function trustFilePath(stateDir: string): string {
  return join(stateDir, "trusted-projects.json");
}

/**
 * The digest of a project's config text and of its rules files (`readRulesDirs` of its `rules_dirs`):
 * of the very texts that load when it matches, so nothing can change between the check and the parse.
 */
export function projectDigest(configText: string, rulesFiles: readonly RulesFile[]): string {
  const hash = createHash("sha256").update("config.toml\0").update(configText).update("\0");
  for (const { path, text } of rulesFiles) hash.update(`${path}\0`).update(text).update("\0");
  return hash.digest("hex");
}

async function readTrust(path: string): Promise<TrustFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, projects: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<TrustFile>;
    if (parsed.version === 1 && typeof parsed.projects === "object" && parsed.projects !== null) {
      return parsed as TrustFile;
    }
  } catch {
    // Reported below.
  }
  throw new OrchestratorError(
    "INVALID_CONFIG",
    `${path}: not a Conch trust file (expected {"version":1,...})`,
  );
}

/** When the project at `projectDir` was trusted with exactly this digest; null otherwise. */
export async function trustedAt(
  stateDir: string,
  projectDir: string,
  digest: string,
): Promise<string | null> {
  const record = (await readTrust(trustFilePath(stateDir))).projects[projectDir];
  return record?.digest === digest ? record.trustedAt : null;
}

/** Whether the project was trusted at all (with another digest, say), for the warning's wording. */
export async function wasTrusted(stateDir: string, projectDir: string): Promise<boolean> {
  return (await readTrust(trustFilePath(stateDir))).projects[projectDir] !== undefined;
}

/** Records `digest` as trusted for `projectDir` (atomically, 0600), or forgets the project when null. */
export async function recordTrust(
  stateDir: string,
  projectDir: string,
  digest: string | null,
): Promise<void> {
  const path = trustFilePath(stateDir);
  const trust = await readTrust(path);
  const projects = { ...trust.projects };
  if (digest === null) delete projects[projectDir];
  else projects[projectDir] = { digest, trustedAt: new Date().toISOString() };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify({ version: 1, projects }, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, path);
}
