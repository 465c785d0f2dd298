import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type ExecPolicy, loadPolicyFiles } from "@conch/approval";

/** The rules files of `dirs`: every `*.rules` (Codex's syntax) and `*.toml` file, by name, dir by dir. */
async function rulesFilesIn(dirs: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      // No rules yet is the common case; a dir that exists but cannot be read is an error below.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    for (const name of names.sort()) {
      if (name.endsWith(".rules") || name.endsWith(".toml")) files.push(join(dir, name));
    }
  }
  return files;
}

/** The exec-policy of every rules file in `dirs`; a bad file throws `INVALID_RULES` naming file and line. */
export async function loadRulesDirs(
  dirs: readonly string[],
): Promise<{ policy: ExecPolicy; files: string[] }> {
  const files = await rulesFilesIn(dirs);
  return { policy: await loadPolicyFiles(files), files };
}
