import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from "node:fs";
import { dirname, isAbsolute } from "node:path";

/** Names that stay read-only inside every writable root (DESIGN.md §5). */
export const PROTECTED_NAMES: readonly string[] = [".git", ".conch", ".agents"];

/**
 * Files in the home directory that run, or choose what runs, outside the sandbox later: shell startup
 * files (Conch's shell snapshot and the person's next terminal read them), git's and fish's config.
 * Read-only when the home directory is inside a writable root.
 */
export const HOME_PROTECTED_NAMES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".zlogout",
  ".bash_aliases",
  ".inputrc",
  ".pam_environment",
  ".gitconfig",
  ".vimrc",
  ".ssh",
  ".local/bin",
  ".config/git",
  ".config/fish",
  ".config/nvim",
  ".config/autostart",
  ".config/systemd",
  ".config/environment.d",
];

export function canonical(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** True when `path` is strictly below `parent` (both canonical). */
export function isInside(path: string, parent: string): boolean {
  return path !== parent && path.startsWith(parent === "/" ? "/" : `${parent}/`);
}

// A gitdir file names a path: anything longer is not one.
const MAX_POINTER_BYTES = 4096;

/**
 * The start of a regular file, or undefined. The sandboxed command writes these files (a `.git` file, a
 * gitdir's `commondir`): opened without blocking and checked to be regular, so a FIFO planted there
 * cannot hang Conch, and read only so far.
 */
export function readPointer(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    // Sized by the file (plus one page, should it grow meanwhile) so a small config costs no large
    // buffer; never more than MAX_POINTER_BYTES is read.
    const size = Math.min(MAX_POINTER_BYTES, stats.size + 4096);
    const buffer = Buffer.allocUnsafe(size);
    return buffer.toString("utf8", 0, readSync(fd, buffer, 0, size, 0));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The git directories a `.git` file points to, as git reads it: `gitdir: PATH` (relative to the file's
 * directory; worktrees and submodules), and for worktrees the shared repository named by
 * `<gitdir>/commondir` (relative to the gitdir). Absolute, their links unresolved: each is walked as git
 * walks it (`pathChain`).
 */
export function gitdirPointers(gitFile: string): string[] {
  const gitdir = pointerText(readPointer(gitFile), "gitdir: ");
  if (gitdir === null) return [];
  const absolute = isAbsolute(gitdir) ? gitdir : `${dirname(gitFile)}/${gitdir}`;
  const common = pointerText(readPointer(`${absolute}/commondir`), "");
  if (common === null) return [absolute];
  return [absolute, isAbsolute(common) ? common : `${absolute}/${common}`];
}

/**
 * A pointer file's path as git reads it: after `prefix` (`gitdir: ` exactly, at the very start), the
 * rest of the file less its trailing CR and LF, blanks kept; null when there is none (or a NUL cuts it).
 */
export function pointerText(text: string | undefined, prefix: string): string | null {
  if (text === undefined || !text.startsWith(prefix)) return null;
  const path = text.slice(prefix.length).replace(/[\r\n]+$/, "");
  return path === "" || path.includes("\0") ? null : path;
}

/**
 * Canonical paths that must stay read-only because they exist directly inside `dir` under one of
 * `names`. A repository's `.git` is not among them: its git dir is protected in its control paths
 * (`gitDirProtections`), and what its config names is git's to say (`gitProtections`).
 */
export function protectedPathsOf(dir: string, names: readonly string[]): string[] {
  const paths: string[] = [];
  for (const name of names) {
    const path = `${dir === "/" ? "" : dir}/${name}`;
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) continue;
    const real = canonical(path);
    if (real !== undefined) paths.push(real);
  }
  return paths;
}
