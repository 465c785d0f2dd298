// A command's Seatbelt profile, from sandbox-core's resolved rules: a pure function (no file system; the
// rules' paths are already canonical, as macOS spells them: /private/tmp, not /tmp). Every path goes in
// as a parameter (`-D NAME=VALUE` of sandbox-exec, `(param "NAME")` in the text), never into the text,
// so no path can change what the profile says. Seatbelt lets the last matching rule win, except that a
// deny of one operation by name is not undone by a later allow of a wildcard (file-write*): the
// sections come in that order, each narrowing the one before.
import { SandboxError, type SandboxRules } from "@conch/sandbox-core";
import { BASE_POLICY, NETWORK_SERVICES_POLICY, TTY_POLICY } from "./base-policy.js";

export interface SeatbeltProfileOptions {
  /**
   * The loopback port of this command's own proxy endpoint (network "allowlist"): the only place it may
   * connect to. Absent, and the rules give no network: no network at all.
   */
  readonly proxyPort?: number;
  /** Written into every refusal's log message (`CONCH_<tag>`), to find them in `log stream`. */
  readonly tag: string;
}

export interface SeatbeltProfile {
  /** The profile text, for `sandbox-exec -p`. */
  readonly text: string;
  /** The parameters it names, for `sandbox-exec -D NAME=VALUE`. */
  readonly params: Readonly<Record<string, string>>;
}

/** Names no command may create or change in a writable root, whether they exist or not. */
const NEVER_CREATED = [".conch", ".agents"] as const;
/**
 * The same names in any case and at any depth (APFS is usually case-insensitive: `.CONCH` is `.conch`),
 * as fixed regexes: no path is spliced into them.
 */
const NEVER_CREATED_ANY_CASE = [
  String.raw`/\.[Cc][Oo][Nn][Cc][Hh](/|$)`,
  // APFS folds the long s (U+017F) to s as well.
  `/\\.[Aa][Gg][Ee][Nn][Tt]([Ss]|${String.fromCharCode(0x17f)})(/|$)`,
] as const;

const TAG = /^[A-Za-z0-9_-]{1,64}$/;

function fail(message: string): never {
  throw new SandboxError("SANDBOX_UNAVAILABLE", `cannot sandbox: ${message}`);
}

function isAtOrInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root === "/" ? "/" : `${root}/`);
}

/** The directories strictly between `root` and `path` (inside it), outermost first. */
function dirsBetween(root: string, path: string): string[] {
  const prefix = root === "/" ? "/" : `${root}/`;
  if (!path.startsWith(prefix)) return [];
  const parts = path.slice(prefix.length).split("/").slice(0, -1);
  return parts.map((_, i) => prefix + parts.slice(0, i + 1).join("/"));
}

/** Collects the parameters: one name per distinct path, checked to be a path Seatbelt can take. */
class Params {
  readonly values: Record<string, string> = {};
  readonly #byPath = new Map<string, string>();

  add(name: string, path: string): string {
    const known = this.#byPath.get(path);
    if (known !== undefined) return known;
    if (!path.startsWith("/") || /[\0\n\r]/.test(path) || (path.length > 1 && path.endsWith("/"))) {
      fail(
        `Seatbelt takes canonical absolute paths without a NUL or a line break, received ${JSON.stringify(path)}`,
      );
    }
    this.values[name] = path;
    this.#byPath.set(path, name);
    return name;
  }
}

const param = (name: string): string => `(param "${name}")`;
/** A path and everything under it. */
const under = (name: string): string => `(subpath ${param(name)})`;
/** A path only. */
const at = (name: string): string => `(literal ${param(name)})`;

/**
 * The Seatbelt profile for `rules`: reads everywhere but the hidden paths (and the host's /tmp, which
 * the command does not see on Linux either); writes only in the writable roots, less their read-only
 * paths, `.conch` and `.agents` (which may not be created either) and the git control files that do
 * not exist yet; no moving aside of a directory that holds a protected or hidden path; the network as
 * the rules and `proxyPort` say.
 */
export function seatbeltProfile(rules: SandboxRules, options: SeatbeltProfileOptions): SeatbeltProfile {
  if (!TAG.test(options.tag))
    fail(`a profile tag is 1 to 64 letters, digits, "_" or "-", received ${JSON.stringify(options.tag)}`);
  if (rules.readableRoots.length !== 1 || rules.readableRoots[0] !== "/") {
    fail(
      `the Seatbelt backend reads from / less hidden paths, received readable roots ${JSON.stringify(rules.readableRoots)}`,
    );
  }
  const port = options.proxyPort;
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65_535)) {
    fail(`proxyPort is a TCP port (1 to 65535), received ${JSON.stringify(port)}`);
  }
  const params = new Params();
  // Every refusal carries the tag, so that the log says which command's profile refused what.
  const tag = `(with message "CONCH_${options.tag}")`;
  const deny = (operations: string, filters: string): string => `(deny ${operations} ${tag}\n  ${filters})`;
  const out: string[] = ["(version 1)", `(deny default ${tag})`, BASE_POLICY.trimEnd()];

  // Reads: everything, less the hidden paths (their exceptions readable again) and the host's /tmp.
  out.push("; Reads: everywhere but the hidden paths (and the host's /tmp), each exception readable again.");
  out.push("(allow file-read*)");
  out.push(deny("file-read* file-write* file-ioctl", '(regex #"^/dev/ttys[0-9]+$")'));
  out.push(TTY_POLICY.trimEnd());
  const tmp = rules.tmp.kind === "host" ? [] : rules.tmp.targets;
  const tmpNames = tmp.map((target, i) => params.add(`HOST_TMP_${i}`, target));
  for (const name of tmpNames) out.push(deny("file-read*", under(name)));
  // A writable root inside the host's /tmp (a helper's scratch directory) is readable again.
  rules.writableRoots.forEach((root, i) => {
    if (tmp.some((target) => isAtOrInside(root.root, target)))
      out.push(`(allow file-read* ${under(params.add(`WR_${i}`, root.root))})`);
  });
  const hidden = rules.hidden.map((entry, i) => ({ ...entry, name: params.add(`HIDE_${i}`, entry.path) }));
  for (const entry of hidden)
    out.push(deny("file-read*", entry.type === "dir" ? under(entry.name) : at(entry.name)));
  const tmpSource = rules.tmp.kind === "private" ? params.add("TMP", rules.tmp.source) : null;
  for (const [i, entry] of hidden.entries()) {
    const ways = new Set<string>();
    // realpath() walks the way to an exception (and to this workspace's /tmp, which lies in Conch's
    // hidden state directory): the directories on it may be looked at, not listed.
    const way = (path: string, name: string): void => {
      ways.add(entry.name);
      for (const [k, dir] of dirsBetween(entry.path, path).entries())
        ways.add(params.add(`${name}_DIR_${k}`, dir));
    };
    entry.readable.forEach((path, j) => {
      out.push(`(allow file-read* ${under(params.add(`HIDE_${i}_OK_${j}`, path))})`);
      way(path, `HIDE_${i}_OK_${j}`);
    });
    if (rules.tmp.kind === "private" && isAtOrInside(rules.tmp.source, entry.path))
      way(rules.tmp.source, "TMP");
    if (ways.size > 0) out.push(`(allow file-read-metadata\n  ${[...ways].map(at).join("\n  ")})`);
  }
  if (tmpSource !== null) out.push(`(allow file-read* ${under(tmpSource)})`);

  // Writes: the writable roots less what stays read-only, and this workspace's own /tmp.
  // The roots themselves and this workspace's /tmp are kept too: renamed away, their protected paths
  // could be changed where no rule names them, and the directory renamed back.
  const keep: string[] = [
    ...rules.writableRoots.map((root) => root.root),
    ...(rules.tmp.kind === "private" ? [rules.tmp.source] : []),
  ];
  const rootClauses: string[] = [];
  if (rules.writableRoots.length > 0 || tmpSource !== null) {
    out.push("; Writes: the writable roots less what stays read-only (also when it does not exist yet).");
    const clauses: string[] = [];
    rules.writableRoots.forEach((root, i) => {
      const rootName = params.add(`WR_${i}`, root.root);
      const readOnly = new Set(root.readOnlySubpaths);
      for (const name of NEVER_CREATED) readOnly.add(`${root.root === "/" ? "" : root.root}/${name}`);
      for (const path of rules.gitWatch?.absent ?? []) if (isAtOrInside(path, root.root)) readOnly.add(path);
      const nots = [...readOnly].map((path, j) => {
        const name = params.add(`WR_${i}_RO_${j}`, path);
        keep.push(...dirsBetween(root.root, path));
        return `(require-not ${at(name)}) (require-not ${under(name)})`;
      });
      for (const regex of NEVER_CREATED_ANY_CASE) nots.push(`(require-not (regex #"${regex}"))`);
      for (const entry of hidden)
        if (isAtOrInside(entry.path, root.root)) keep.push(...dirsBetween(root.root, entry.path));
      const clause =
        nots.length === 0 ? under(rootName) : `(require-all ${under(rootName)}\n    ${nots.join("\n    ")})`;
      clauses.push(clause);
      rootClauses.push(clause);
    });
    if (tmpSource !== null) clauses.push(under(tmpSource));
    out.push(`(allow file-write*\n  ${clauses.join("\n  ")})`);
  }
  // A hidden path is never written, even inside a writable root; nothing that holds a protected or
  // hidden path is moved, removed or replaced (else it could be rebuilt, or its secret moved into view).
  // The host's /tmp is never written either, even inside a writable root (/private as a root).
  const closed = [...hidden.map((entry) => under(entry.name)), ...tmpNames.map(under)];
  if (closed.length > 0) {
    out.push(deny("file-write*", closed.join("\n  ")));
    // Writable again: a root inside the host's /tmp (a helper's scratch directory), and this workspace's
    // /tmp, which lies in Conch's (hidden) state directory.
    rules.writableRoots.forEach((root, i) => {
      if (tmp.some((target) => isAtOrInside(root.root, target)))
        out.push(`(allow file-write*\n  ${rootClauses[i]})`);
    });
    if (tmpSource !== null) out.push(`(allow file-write* ${under(tmpSource)})`);
  }
  const kept = [...new Set(keep)];
  if (kept.length > 0) {
    out.push(deny("file-write*", kept.map((dir, i) => at(params.add(`KEEP_${i}`, dir))).join("\n  ")));
  }
  // No file flags (chflags uchg, schg): a flag set on what the command made would keep Conch's check after
  // the command from moving it aside.
  out.push(`(deny file-write-flags ${tag})`);

  // Network: all of it, only this command's proxy endpoint, or none; never a unix socket (a connect to
  // one is network-outbound too, and no file rule stops it: conchd's channel, gpg's and ssh's agents).
  if (rules.network) {
    out.push("; Network: the host's IP network in full; no unix socket.");
    out.push(
      '(allow network-outbound (remote ip "*:*"))\n(allow network-inbound (local ip "*:*"))\n(allow network-bind (local ip "*:*"))',
    );
    out.push(NETWORK_SERVICES_POLICY.trimEnd());
  } else if (port !== undefined) {
    // Nothing else: trustd and ocspd fetch what a certificate names (its OCSP and issuer URLs) for the
    // caller, a way out past the proxy; a client that checks certificates through the system (Go,
    // Swift) cannot do so here.
    out.push("; Network: only this command's own endpoint of Conch's proxy, on the loopback.");
    out.push(`(allow network-outbound (remote ip "localhost:${port}"))`);
  } else {
    out.push("; Network: none.");
  }
  return { text: `${out.join("\n")}\n`, params: params.values };
}

/** sandbox-exec's arguments for `profile` and the command `argv`. */
export function seatbeltArgs(profile: SeatbeltProfile, argv: readonly string[]): string[] {
  return [
    "-p",
    profile.text,
    ...Object.entries(profile.params).map(([name, value]) => `-D${name}=${value}`),
    "--",
    ...argv,
  ];
}
