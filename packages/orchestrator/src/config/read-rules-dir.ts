import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { RulesFile } from "@conch/exec-policy";
import { OrchestratorError } from "../errors.js";
import { readConfigText } from "./read-config-text.js";

/** How the files are opened: a project's never through a symlink (a sandboxed command could plant one). */
export interface ReadRulesOptions {
  readonly followSymlinks: boolean;
}

/**
 * Every rules file of `dir` (`*.rules`, Codex's syntax, and `*.toml`), by name, each read exactly once:
 * what is digested for trust and what is parsed into the policy are these texts, never a second read
 * that a file changed in between could make differ. A missing dir or file is skipped.
 */
export async function readRulesDir(dir: string, options: ReadRulesOptions): Promise<RulesFile[]> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No rules yet is the common case.
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw new OrchestratorError(
      "INVALID_CONFIG",
      `${dir}: cannot read the rules dir: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const files: RulesFile[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith(".rules") && !name.endsWith(".toml")) continue;
    const path = join(dir, name);
    const text = await readConfigText(path, options);
    if (text !== null) files.push({ path, text });
  }
  return files;
}
