// The Landlock grants for a command's rules. Landlock only adds rights, each to a directory and all it
// holds: nothing granted to a directory can be taken back for one path inside it. So a path that must
// not be read (a hidden secret, the host's /tmp) or written (a root's `.git`) is kept out by granting the
// siblings along the way instead of the parent: to hide /root/.ssh, each entry of / but /root, and each
// entry of /root but .ssh. The cost, said in docs/security.md: the directories on the way (/, /root)
// cannot be listed, and in a writable root that holds a protected path (`.git`) no file can be made,
// removed or renamed at the top level; entries that appear there later get no grant at all.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { SandboxRules } from "@conch/sandbox-core";
import { isAtOrInside } from "../bwrap/paths.js";

/** What the helper is told: paths readable (and executable), and paths readable and writable. */
export interface LandlockGrants {
  readonly read: readonly string[];
  readonly write: readonly string[];
}

/**
 * Device files every command may use as it does outside (null sinks, random, its controlling terminal
 * by name). Not /dev/pts: a session's terminal is open before the command starts and needs no grant,
 * and the same user's other terminals must not be written to.
 */
const DEVICES_WRITABLE = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"];

/** More grants than this means a directory tree the rules cut too finely: refused rather than cut short. */
const MAX_GRANTS = 4000;

/**
 * `root` and all it holds, less each of `excluded` (and all they hold): as few paths as cover the rest.
 * A path excluded that does not lie in `root` changes nothing.
 */
export function grantsExcept(root: string, excluded: readonly string[]): string[] {
  const inside = excluded.filter((path) => isAtOrInside(path, root));
  if (inside.length === 0) return [root];
  if (inside.includes(root)) return [];
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    // Unreadable to this user: nothing under it can be granted either way.
    return [];
  }
  const grants: string[] = [];
  for (const entry of entries.sort()) {
    const path = join(root, entry);
    // A symbolic link is never granted: a grant follows it to what it names (a link to / would grant
    // everything), and access through it is judged at its target, by that target's own grants.
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() !== false) continue;
    grants.push(...grantsExcept(path, inside));
  }
  return grants;
}

/** The grants that enforce `rules` (what the bwrap backend binds, said in Landlock's terms). */
export function landlockGrants(rules: SandboxRules): LandlockGrants {
  // Not readable: the hidden paths, and the host's /tmp (and $TMPDIR), which bwrap replaces.
  const tmpTargets = rules.tmp.kind === "host" ? [] : rules.tmp.targets;
  const unreadable = [...rules.hidden.map((hidden) => hidden.path), ...tmpTargets];
  const read: string[] = [];
  for (const root of rules.readableRoots) read.push(...grantsExcept(root, unreadable));
  // What a hidden path keeps readable (this workspace's spill files).
  for (const hidden of rules.hidden) read.push(...hidden.readable);

  const write: string[] = [];
  for (const { root, readOnlySubpaths } of rules.writableRoots) {
    write.push(...grantsExcept(root, [...readOnlySubpaths, ...unreadable]));
  }
  if (rules.tmp.kind === "private") write.push(rules.tmp.source);
  write.push(...DEVICES_WRITABLE);
  if (read.length + write.length > MAX_GRANTS) {
    throw new Error(
      `the rules need ${read.length + write.length} Landlock grants, more than ${MAX_GRANTS}: a hidden or protected path lies under a directory with too many entries`,
    );
  }
  return { read, write };
}
