import { readdirSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { SnapshotShellType, SnapshotSource } from "./shell-snapshot.js";

/**
 * The startup files a login, interactive shell of `type` reads, present or not: creating one that is
 * missing (a new ~/.bash_profile hides ~/.profile) changes what the shell loads as surely as editing
 * one. /etc/profile.d is listed as a directory too, so a script added to it shows. Files that these
 * source in turn (~/.nvm/nvm.sh, a dotfiles repo) are not followed; the snapshot's age limit covers them.
 */
export function startupFiles(
  type: SnapshotShellType,
  home: string,
  zdotdirs: readonly string[],
  envFile: string | undefined,
): string[] {
  switch (type) {
    case "bash":
      return [
        ...profileFiles(),
        "/etc/bash.bashrc",
        "/etc/bashrc",
        ...[".bash_profile", ".bash_login", ".profile", ".bashrc", ".bash_aliases"].map((f) => join(home, f)),
      ];
    case "zsh": {
      const names = ["zshenv", "zprofile", "zshrc", "zlogin"];
      // Debian keeps the global files in /etc/zsh, macOS and most others in /etc.
      const global = ["/etc/zsh", "/etc"].flatMap((dir) => names.map((name) => join(dir, name)));
      const dirs = [...new Set([home, ...zdotdirs])];
      return [...global, ...dirs.flatMap((dir) => names.map((name) => join(dir, `.${name}`)))];
    }
    case "sh":
    case "dash":
      return [
        ...profileFiles(),
        join(home, ".profile"),
        ...(envFile !== undefined && isAbsolute(envFile) ? [envFile] : []),
      ];
  }
}

function profileFiles(): string[] {
  let scripts: string[] = [];
  try {
    scripts = readdirSync("/etc/profile.d")
      .filter((name) => name.endsWith(".sh"))
      .sort()
      .map((name) => join("/etc/profile.d", name));
  } catch {
    // No /etc/profile.d: it is still listed, absent, so its appearance shows.
  }
  return ["/etc/profile", "/etc/profile.d", ...scripts];
}

export function statSource(path: string): SnapshotSource {
  return { path, mtimeMs: mtimeOf(path) };
}

/** The file's modification time (through symlinks, as dotfiles often are), or null if it cannot be seen. */
export function mtimeOf(path: string): number | null {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? null;
  } catch {
    return null;
  }
}
