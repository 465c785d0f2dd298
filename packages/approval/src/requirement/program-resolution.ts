// Which file a program name runs. Rules and the known-safe list name programs (`cat`, `npm`), but a
// bare name runs whatever PATH finds first, and an agent that can write a directory early in PATH (an
// activated `.venv/bin`, `node_modules/.bin`, `./bin`) decides what `cat` is. So is a program named by a
// path into the workspace (`./x`, `/ws/bin/x`), or found through a relative or empty PATH entry (resolved
// against the working directory, which the command itself may change). A symlink in a writable
// directory counts as untrusted even when it points to /bin/cat today: the agent can retarget it. Only
// the file system's metadata is read (stat, lstat, realpath); nothing is run.
import { lstatSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { expectedReceived } from "@conch/protocol";
import type { ProgramLookup } from "./types.js";

/**
 * Why a program is not the one its name says: the file is in a writable root (a symlink there too,
 * whatever it points to), it leads into one (a link, or a PATH directory that is a link), it was found
 * through a relative or empty PATH entry, PATH is set by the command line, or it could not be looked up.
 */
type UntrustedReason =
  | "writable-root"
  | "leads-into-writable-root"
  | "relative-entry"
  | "path-changed"
  | "not-resolved";

export interface UntrustedProgram {
  /** The program as the command names it: `cat`, `./x`, `/ws/bin/x`. */
  readonly name: string;
  /** The file it resolves to (the PATH candidate, or the path it is named by); null when unknown. */
  readonly resolved: string | null;
  /** Where a symlink at `resolved` (or a directory on the way) leads, when that differs. */
  readonly target: string | null;
  /** The PATH entry it was found through, as written, for `relative-entry`. */
  readonly entry: string | null;
  readonly reason: UntrustedReason;
}

/** How one program resolves. */
export interface Resolution {
  /** Non-null when the program is not the one its name says. */
  readonly untrusted: UntrustedProgram | null;
  /**
   * True when it resolves outside every writable root and no PATH entry before it is writable, relative
   * or empty, so that no file the agent writes later can take its place; required to leave the sandbox.
   */
  readonly certain: boolean;
}

// Programs looked up per command line: past this, a name counts as not resolved (each costs one stat per
// PATH entry).
const MAX_PROGRAMS = 256;

function under(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
}

// Synchronous: a command line's programs cost a few metadata reads of local files (a dozen for a name
// found late in PATH), each a couple of microseconds; through the thread pool each took tens.
function realPathOf(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

function executableFile(path: string): boolean {
  try {
    const found = statSync(path, { throwIfNoEntry: false });
    return found?.isFile() === true && (found.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  } catch {
    return false;
  }
}

function validate(lookup: ProgramLookup): void {
  const { path, cwd, writableRoots } = lookup as Partial<ProgramLookup>;
  if (typeof path !== "string") throw new TypeError(expectedReceived("programs.path", "a string", path));
  if (typeof cwd !== "string" || !isAbsolute(cwd)) {
    throw new TypeError(expectedReceived("programs.cwd", "an absolute path", cwd));
  }
  if (!Array.isArray(writableRoots) || !writableRoots.every((root) => typeof root === "string")) {
    throw new TypeError(expectedReceived("programs.writableRoots", "an array of paths", writableRoots));
  }
}

/**
 * A resolver for the programs of one command line. `changesDirectory`: the command line runs `cd`,
 * `pushd` or `popd`, so a relative path names a file relative to a directory only known when it runs.
 */
export function programResolver(
  lookup: ProgramLookup,
  changesDirectory: boolean,
): (program: string) => Resolution {
  validate(lookup);
  const cwd = resolve(lookup.cwd);
  const lexicalRoots = lookup.writableRoots.map((root) => resolve(cwd, root));
  let roots: string[] | null = null;
  // The roots as written and as the file system resolves them (a root may itself be reached by a link).
  const allRoots = (): string[] => {
    roots ??= [
      ...lexicalRoots,
      ...lexicalRoots.map(realPathOf).filter((path): path is string => path !== null),
    ];
    return roots;
  };
  const entries = lookup.path.split(":");
  const directoryRealPaths = new Map<string, string | null>();
  const realDirectory = (directory: string): string | null => {
    let found = directoryRealPaths.get(directory);
    if (found === undefined) {
      found = realPathOf(directory);
      directoryRealPaths.set(directory, found);
    }
    return found;
  };
  const cache = new Map<string, Resolution>();

  const inWritableRoot = (path: string): string | null => {
    const rootList = allRoots();
    if (under(path, rootList)) return path;
    const real = realPathOf(path);
    return real !== null && under(real, rootList) ? real : null;
  };

  const byPath = (program: string): Resolution => {
    const relative = !program.startsWith("/");
    const file = resolve(cwd, program);
    const untrusted = (target: string | null): Resolution => ({
      untrusted: {
        name: program,
        resolved: file,
        target,
        entry: null,
        reason: target === null ? "writable-root" : "leads-into-writable-root",
      },
      certain: false,
    });
    if (relative && changesDirectory) {
      return {
        untrusted: { name: program, resolved: null, target: null, entry: null, reason: "not-resolved" },
        certain: false,
      };
    }
    const writable = inWritableRoot(file);
    if (writable !== null) return untrusted(writable === file ? null : writable);
    return { untrusted: null, certain: true };
  };

  const byName = (program: string): Resolution => {
    const rootList = allRoots();
    let replaceable = false;
    for (const entry of entries) {
      const relative = entry === "" || !entry.startsWith("/");
      const directory = resolve(cwd, entry === "" ? "." : entry);
      const candidate = join(directory, program);
      if (!executableFile(candidate)) {
        if (!replaceable) {
          const real = relative ? null : realDirectory(directory);
          replaceable = relative || under(directory, rootList) || (real !== null && under(real, rootList));
        }
        continue;
      }
      if (relative) {
        return {
          untrusted: { name: program, resolved: candidate, target: null, entry, reason: "relative-entry" },
          certain: false,
        };
      }
      const lexical = under(candidate, rootList);
      const real = lexical || isSymlink(candidate) ? realPathOf(candidate) : null;
      const realDir = lexical ? null : realDirectory(directory);
      const leads = real ?? (realDir === null ? null : join(realDir, program));
      if (lexical || (leads !== null && under(leads, rootList))) {
        const target = leads !== null && leads !== candidate ? leads : null;
        const reason = lexical ? "writable-root" : "leads-into-writable-root";
        return {
          untrusted: { name: program, resolved: candidate, target, entry: null, reason },
          certain: false,
        };
      }
      return { untrusted: null, certain: !replaceable };
    }
    return { untrusted: null, certain: !replaceable };
  };

  return (program) => {
    let found = cache.get(program);
    if (found === undefined) {
      if (cache.size >= MAX_PROGRAMS) {
        return {
          untrusted: { name: program, resolved: null, target: null, entry: null, reason: "not-resolved" },
          certain: false,
        };
      }
      found = program.includes("/") ? byPath(program) : byName(program);
      cache.set(program, found);
    }
    return found;
  };
}
