import { closeSync, lstatSync, mkdtempSync, openSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let placeholder: string | undefined;

function isPlaceholder(path: string, uid: number): boolean {
  const info = lstatSync(path, { throwIfNoEntry: false });
  return (
    info?.isFile() === true &&
    info.uid === uid &&
    (info.mode & 0o7777) === 0 &&
    info.size === 0 &&
    info.nlink === 1
  );
}

function created(path: string, uid: number): boolean {
  try {
    closeSync(openSync(path, "wx", 0o000));
  } catch {
    // Already there: it is checked like one just made.
  }
  return isPlaceholder(path, uid);
}

/**
 * An empty file of mode 000 owned by this user, bound read-only over hidden files, so that reading one
 * fails with EACCES (the sandbox drops every capability, root's DAC override too) and nothing can be
 * written or chmod-ed through it. One per user and machine, checked before every use and made anew
 * when it changed or vanished (tmp cleaners); a file of that name that is not exactly this is never
 * used or touched (a private directory holds one instead). bwrap follows a symlink at the source of a
 * bind, so a sandbox able to replace this file could have the next one bind a secret over itself:
 * every sandbox therefore keeps it, and the directories leading to it, read-only (`bwrapArgs`).
 */
export function hiddenFilePlaceholder(): string {
  const uid = process.getuid?.() ?? 0;
  if (placeholder !== undefined && isPlaceholder(placeholder, uid)) return placeholder;
  // The host's /tmp, not $TMPDIR: a sandbox sees its own /tmp there, so the file is out of its sight,
  // and it never lands in a workspace that happens to hold $TMPDIR.
  const base = statSync("/tmp", { throwIfNoEntry: false })?.isDirectory() === true ? "/tmp" : tmpdir();
  const stable = join(base, `conch-hidden-${uid}`);
  if (created(stable, uid)) {
    placeholder = stable;
    return stable;
  }
  const own = join(mkdtempSync(join(base, "conch-hidden-")), "empty");
  if (!created(own, uid)) throw new Error(`Cannot create an empty mode-000 placeholder file at ${own}`);
  placeholder = own;
  return own;
}
