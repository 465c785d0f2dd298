import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

// The distribution's programs first: a `bwrap` or `bash` on PATH could be a file the agent wrote.
const SYSTEM_DIRS: readonly string[] = ["/usr/bin", "/bin", "/usr/local/bin"];

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The program `name` to run: a system one, else the first on PATH that is absolute. */
export function findProgram(name: string, env: Readonly<Record<string, string | undefined>>): string | null {
  for (const dir of SYSTEM_DIRS) {
    const path = join(dir, name);
    if (isExecutableFile(path)) return path;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const path = resolve(join(dir, name));
    if (isExecutableFile(path)) return path;
  }
  return null;
}
