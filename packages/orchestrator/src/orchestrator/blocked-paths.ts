// What the sandbox kept a command from, read from what it printed, so the model is told what happened
// rather than "the sandbox blocked a write or the network": a hidden secret (do not ask for it), a path
// only its owner can read (the rest of the output stands), a read-only path (which, and why). Only
// absolute paths the command printed next to the error are read; nothing is looked up on disk.
import { dirname, resolve } from "node:path";
import type { SandboxRules } from "@conch/sandbox-core";

/** One thing the sandbox kept a command from, as the model is told it. */
export interface Blocked {
  readonly kind: "hidden" | "unreadable" | "read-only" | "protected" | "top-level";
  readonly path: string;
}

// An error line naming a path: `prog: '/p': Permission denied`, `cat: /p: No such file…`, `… '/p' …`.
const ERROR_LINE =
  /(Permission denied|Read-only file system|Operation not permitted|No such file or directory)/;
const ABSOLUTE_PATH = /(?:^|[\s'"`(:])(\/[^\s'"`:()]*)/g;
// A quoted name (coreutils quote what they name: `touch: cannot touch '.conch/x'`), relative or not.
const QUOTED_PATH = /[\u2018'"`]([^\u2018\u2019'"`\n]+)[\u2019'"`]/g;
// The program that reports the error, first on its line (`/bin/bash: line 1: `, `cat: `): not a path the
// sandbox kept from anything. A shell's own error names the file after it, unquoted (a redirection).
const REPORTER = /^(\S+?): (?:line \d+: )?/;
// An error line of a program that was reading (not writing) what it names.
const READS =
  /^(?:\S*\/)?(?:cat|ls|head|tail|less|more|grep|find|du|stat|file|wc|diff|cmp|sort|source|\.|python3?|node): |cannot (?:open .* for reading|access|read)/;
const SHELL_REPORTER = /^(?:\S*\/)?(?:ba|z|da|k|)sh: (?:line \d+: )?([^:\n]+): /;

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/**
 * The paths the sandbox kept the command from, at most a few, from the end of its output: each error
 * line's absolute paths and quoted names (relative ones read from `cwd`), judged against the rules it ran
 * under.
 */
export function blockedPaths(
  output: string,
  rules: SandboxRules,
  cwd: string,
  options: { readonly sandbox?: string } = {},
): Blocked[] {
  const found = new Map<string, Blocked>();
  for (const line of output.split("\n")) {
    const error = ERROR_LINE.exec(line)?.[1];
    if (error === undefined) continue;
    const shellNamed = SHELL_REPORTER.exec(line)?.[1];
    const rest = line.replace(REPORTER, "");
    const named = [
      ...(shellNamed === undefined ? [] : [shellNamed]),
      ...[...rest.matchAll(QUOTED_PATH)].map((match) => match[1] as string),
      ...[...rest.matchAll(ABSOLUTE_PATH)].map((match) => match[1] as string),
    ];
    for (const name of named) {
      if (name.includes("\0") || /^[a-z]+:\/\//i.test(name)) continue;
      const path = resolve(cwd, name).replace(/\/+$/, "") || "/";
      if (found.has(path)) continue;
      const kind = judge(path, error, rules, options.sandbox ?? "bwrap", READS.test(line));
      if (kind !== null) found.set(path, { kind, path });
    }
    if (found.size >= 8) break;
  }
  return [...found.values()];
}

function judge(
  path: string,
  error: string,
  rules: SandboxRules,
  sandbox: string,
  reading: boolean,
): Blocked["kind"] | null {
  const landlock = sandbox === "landlock";
  const hidden = rules.hidden.find((entry) => inside(path, entry.path));
  if (hidden !== undefined && !hidden.readable.some((readable) => inside(path, readable))) return "hidden";
  if (error === "Read-only file system" || error === "Operation not permitted") {
    const root = rules.writableRoots.find((entry) => inside(path, entry.root));
    // Seatbelt refuses a write outside the roots with EPERM where bwrap's read-only mount says EROFS.
    if (root === undefined) {
      return error === "Read-only file system" || (sandbox === "seatbelt" && !reading) ? "read-only" : null;
    }
    return root.readOnlySubpaths.some((sub) => inside(path, sub)) ? "protected" : null;
  }
  if (error === "Permission denied" && !rules.writableRoots.some((entry) => inside(path, entry.root))) {
    // Landlock refuses a write outside the roots with EACCES where bwrap's read-only mount says EROFS:
    // there, what is not a read is a write.
    return landlock && !reading ? "read-only" : "unreadable";
  }
  // Landlock keeps a root's .git read-only by granting what lies beside it, not the root itself: an entry
  // made, removed or renamed at the root's top level is refused.
  if (error === "Permission denied" && landlock) {
    const root = rules.writableRoots.find((entry) => dirname(path) === entry.root);
    if (root !== undefined && root.readOnlySubpaths.length > 0) return "top-level";
  }
  return null;
}

/** What is writable for temporary files, by backend: bwrap binds the workspace's own at /tmp. */
const TMP_WORDS: Readonly<Record<string, string>> = {
  landlock: "$TMPDIR (not /tmp, under the Landlock sandbox)",
  seatbelt: "$TMPDIR (not /tmp, under Seatbelt)",
};

/**
 * One sentence per kind of thing blocked, naming the paths: what happened and what to do about it.
 * `escalate`: how this tool asks to leave the sandbox, or null where it cannot.
 */
export function blockedHint(
  blocked: readonly Blocked[],
  rules: SandboxRules,
  escalate: string | null,
  options: { readonly sandbox?: string } = {},
): string | null {
  if (blocked.length === 0) return null;
  const of = (kind: Blocked["kind"]): string[] =>
    blocked.filter((entry) => entry.kind === kind).map((entry) => entry.path);
  const list = (paths: string[]): string => paths.slice(0, 3).join(", ") + (paths.length > 3 ? ", …" : "");
  const sentences: string[] = [];
  const hidden = of("hidden");
  if (hidden.length > 0) {
    sentences.push(
      `${list(hidden)} ${hidden.length === 1 ? "is" : "are"} hidden from sandboxed commands (secrets such as ~/.ssh and cloud credentials are); do not ask to escalate for ${hidden.length === 1 ? "it" : "them"} unless the user asked for that.`,
    );
  }
  const unreadable = of("unreadable");
  if (unreadable.length > 0) {
    sentences.push(
      `${list(unreadable)} ${unreadable.length === 1 ? "is" : "are"} not readable in the sandbox (only its owner may read ${unreadable.length === 1 ? "it" : "them"}); the rest of the output is complete.`,
    );
  }
  const readOnly = of("read-only");
  if (readOnly.length > 0) {
    const roots = rules.writableRoots.map((entry) => entry.root);
    sentences.push(
      `${list(readOnly)} ${readOnly.length === 1 ? "is" : "are"} read-only in the sandbox: ${roots.length === 0 ? "nothing is writable in this mode" : `only ${list(roots)} and ${TMP_WORDS[options.sandbox ?? "bwrap"] ?? "/tmp"} are writable`}.${escalate === null ? "" : ` To write there, ${escalate}.`}`,
    );
  }
  const protectedPaths = of("protected");
  if (protectedPaths.length > 0) {
    sentences.push(
      `${list(protectedPaths)} ${protectedPaths.length === 1 ? "is" : "are"} kept read-only inside the workspace: .git's config and hooks, .conch and .agents can make the user's own tools run programs later.${escalate === null ? "" : ` To change ${protectedPaths.length === 1 ? "it" : "them"}, ${escalate}.`}`,
    );
  }
  const topLevel = of("top-level");
  if (topLevel.length > 0) {
    sentences.push(
      `${list(topLevel)}: under the Landlock sandbox (this host cannot run bwrap) nothing can be made, removed or renamed at the top of a workspace that holds .git, which stays read-only because only what lies beside it is writable; work in a subdirectory, or ask the user to make the entry.`,
    );
  }
  return sentences.join(" ");
}
