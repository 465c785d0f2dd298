// Codex keys every rule on the executable's file name, so `/bin/rm` is `rm`. That is right when looking
// for danger (any path to rm deletes), but not when proving safety: `./ls` or `node_modules/.bin/cat`
// runs whatever file sits there. A known-safe program must therefore be named bare (found on PATH) or
// by an absolute path in a system directory.
const SYSTEM_BIN_DIRS: ReadonlySet<string> = new Set([
  "/bin",
  "/sbin",
  "/usr/bin",
  "/usr/sbin",
  "/usr/local/bin",
  "/usr/local/sbin",
  "/opt/homebrew/bin",
]);

/** The file name of a command word (`/bin/rm` → `rm`); every path to a program counts as that program. */
export function executableName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/**
 * The program a command word names when that name can be trusted: a bare name, or an absolute path in a
 * system directory. Null for relative or other paths, which run a file the agent may have written.
 */
export function trustedExecutableName(word: string): string | null {
  const slash = word.lastIndexOf("/");
  if (slash === -1) return word === "" ? null : word;
  const name = word.slice(slash + 1);
  return name !== "" && SYSTEM_BIN_DIRS.has(word.slice(0, slash)) ? name : null;
}
