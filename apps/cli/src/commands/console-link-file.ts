// How `conch console` hands a browser the login link without putting it on the browser's command line,
// which every user of the machine reads in /proc/PID/cmdline (a URL's fragment included): the link goes in
// a small page in a directory only this user may enter, and the browser is given that page's file URL.
// The page sends the browser on to the link (Jupyter opens its servers the same way). A link works once,
// for 15 minutes; the pages of older ones are swept at the next run.

import { randomBytes } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** How long a login link lives (conchd's LINK_TTL_MS): its page is worth nothing after that. */
const LINK_TTL_MS = 15 * 60 * 1000;
const PAGE = /^login-[A-Za-z0-9_-]{22}\.html$/;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** `dir`, made if missing, when it is a directory of this user's that no one else may enter; else throws. */
function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || (process.getuid !== undefined && stat.uid !== process.getuid())) {
    throw new Error(`${dir} is not a directory of yours`);
  }
  chmodSync(dir, 0o700);
  securePath(dirname(dir));
}

/**
 * Throws unless nobody but this user and root can move or replace `dir` or a directory above it, as
 * sshd's StrictModes asks of a home: each is owned by this user or root, and writable by no one else
 * unless sticky (as /tmp is: there another user cannot rename what is not theirs). Otherwise another user
 * could swap the page's directory for theirs between its check and the write, and read the link.
 */
function securePath(dir: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  let current = realpathSync(dir);
  for (;;) {
    const stat = lstatSync(current);
    const sticky = (stat.mode & 0o1000) !== 0;
    if ((stat.uid !== uid && stat.uid !== 0) || ((stat.mode & 0o022) !== 0 && !sticky)) {
      throw new Error(
        `${current} can be written by other users, who could replace the page's folder (make it writable by its owner only: chmod go-w ${current})`,
      );
    }
    const parent = dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

/** Removes the pages of links that have lapsed. */
function sweep(dir: string, now: number): void {
  for (const name of readdirSync(dir)) {
    if (!PAGE.test(name)) continue;
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat !== undefined && now - stat.mtimeMs > LINK_TTL_MS) rmSync(path, { force: true });
  }
}

/**
 * Writes a page that opens `link` into `dir` (made 0700; the page 0600, created afresh, never through a
 * link) and returns the page's path.
 */
export function writeLinkPage(dir: string, link: string): string {
  privateDir(dir);
  sweep(dir, Date.now());
  const path = join(dir, `login-${randomBytes(16).toString("base64url")}.html`);
  const href = escapeHtml(link);
  writeFileSync(
    path,
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=${href}">
<title>conchd console</title>
</head>
<body>
<p><a href="${href}">Open conchd's console</a> (the link works once, for 15 minutes).</p>
</body>
</html>
`,
    { mode: 0o600, flag: "wx" },
  );
  return path;
}
