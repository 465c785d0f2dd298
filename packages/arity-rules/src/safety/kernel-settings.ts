// What changes a setting of the running kernel, for the whole machine: `sysctl` writing (`-w`, KEY=VALUE,
// `-p`/`-f`/`--load`, `--system`), and a write into /proc/sys, /sys or another part of /proc that is not
// per-process (/proc/sysrq-trigger, /proc/irq), by a redirection or by a program that writes the files it
// is given (tee, cp, ...). The sandbox keeps these read-only; a person is asked before a command
// that tries, since one approved to run outside it would change the host. Paths are read as the kernel
// walks them, through the links /proc and /dev always hold (`/proc/self/root/..`, `/dev/fd/../..`); a
// relative one (`cd /proc/sys; echo 1 > vm/x`), a link elsewhere to these files, or a target bash expands
// (`> /proc/sys/kernel/core_patter?`, `> $file`) is not recognised.
import type { Redirect } from "../types.js";

// A process's directory: /proc/PID, /proc/self, /proc/thread-self.
const PER_PROCESS = /^(?:\d+|self|thread-self)$/;
const DIGITS = /^\d+$/;

/** Where the link a path has reached leads: to the root, to a place its name does not say, or on. */
type Link = "root" | "elsewhere" | readonly string[] | null;

/**
 * The links of /proc and /dev that are there on every system, for the names walked so far: a
 * process's (or thread's) `root` is a root directory; its `cwd` and an open descriptor are wherever
 * the process put them; /dev/fd is /proc/self/fd and /proc/net is /proc/self/net.
 */
function linkAt(names: readonly string[]): Link {
  const [top, entry, third, fourth] = names;
  if (top === "dev" && entry === "fd" && names.length === 2) return ["proc", "self", "fd"];
  if (top === "dev" && ["stdin", "stdout", "stderr"].includes(entry as string) && names.length === 2) {
    return "elsewhere";
  }
  if (top !== "proc" || entry === undefined) return null;
  if (entry === "net" && names.length === 2) return ["proc", "self", "net"];
  if (!PER_PROCESS.test(entry)) return null;
  // /proc/PID/task/TID/ holds the thread's own root, cwd and fd.
  const inTask = third === "task" && fourth !== undefined && DIGITS.test(fourth);
  const rest = inTask ? names.slice(4) : names.slice(2);
  if (rest.length === 1 && rest[0] === "root") return "root";
  if (rest.length === 1 && rest[0] === "cwd") return "elsewhere";
  if (rest.length === 2 && rest[0] === "fd") return "elsewhere";
  return null;
}

/**
 * The names of the absolute `path` after the kernel's walk of `.`, `..` and the links above, or null
 * when a `..` follows a link to a place its name does not say (`/proc/self/fd/3/..`: anywhere).
 */
function walk(path: string): string[] | null {
  let names: string[] = [];
  let elsewhere = false;
  for (const name of path.split("/")) {
    if (name === "" || name === ".") continue;
    if (name === "..") {
      if (elsewhere) return null;
      names.pop();
      continue;
    }
    if (elsewhere) continue;
    names.push(name);
    const link = linkAt(names);
    if (link === "root") names = [];
    else if (link === "elsewhere") elsewhere = true;
    else if (link !== null) names = [...link];
  }
  // Below a place no name says, the rest is read as a relative path is: not recognised.
  return elsewhere ? [] : names;
}

/**
 * A literal absolute path naming /sys, a part of /proc that is not per-process (a process's `net` is
 * its network namespace's, the host's outside the sandbox), or inside them; or one that walks `..` out
 * of a place no name says.
 */
function isKernelSettingPath(path: string): boolean {
  if (!path.startsWith("/")) return false;
  const names = walk(path);
  if (names === null) return true;
  const [top, entry, third, fourth, fifth] = names;
  if (top === "sys") return true;
  if (top !== "proc" || entry === undefined) return false;
  const thread = third === "task" && fourth !== undefined && DIGITS.test(fourth);
  return !PER_PROCESS.test(entry) || (thread ? fifth : third) === "net";
}

/** A long option written in full or as a getopt abbreviation (`--wr` for `--write`), value aside. */
function isLong(arg: string, full: string): boolean {
  const name = arg.split("=", 1)[0] as string;
  return name.length > 2 && full.startsWith(name);
}

/**
 * Whether sysctl's arguments set a value: an operand KEY=VALUE, `-w`/`--write`, `-p`/`-f`/`--load`
 * (a file of settings, /etc/sysctl.conf by default), `--system` (every sysctl.d file). In a short
 * cluster, `-r` takes the rest as its pattern.
 */
function sysctlWrites(args: readonly string[]): boolean {
  let options = true;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (options && arg === "--") {
      options = false;
      continue;
    }
    if (options && arg.startsWith("--")) {
      if (["--write", "--load", "--system"].some((full) => isLong(arg, full))) return true;
      if (isLong(arg, "--pattern") && !arg.includes("=")) index += 1;
      continue;
    }
    if (options && arg.startsWith("-") && arg.length > 1) {
      for (const letter of arg.slice(1)) {
        if (letter === "w" || letter === "p" || letter === "f") return true;
        if (letter === "r") {
          if (arg.endsWith("r")) index += 1;
          break;
        }
      }
      continue;
    }
    if (arg.includes("=")) return true;
  }
  return false;
}

/**
 * systemd-sysctl applies every sysctl.d file, or the files it is given, unless it only prints them
 * (`--cat-config`, `--tldr`) or itself (`--help`, `--version`).
 */
function systemdSysctlWrites(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  const options = end === -1 ? args : args.slice(0, end);
  const printing = ["--cat-config", "--tldr", "--help", "--version"];
  return !options.some((arg) => arg === "-h" || printing.some((full) => isLong(arg, full)));
}

// Programs that write every file operand, and those that write the last one (or `-t DIR`). dd's `of=`
// is dangerous already (dd-write).
const WRITES_EVERY_OPERAND: ReadonlySet<string> = new Set(["tee", "truncate", "sponge", "shred"]);
const WRITES_LAST_OPERAND: ReadonlySet<string> = new Set(["cp", "mv", "install", "ln", "rsync"]);

// Programs that write (open with O_TRUNC or O_APPEND) the file an option names: sort's output, a
// download, wget's log.
const OUTPUT_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ["sort", ["-o", "--output"]],
  ["curl", ["-o", "--output", "--trace", "--trace-ascii", "-D", "--dump-header", "-c", "--cookie-jar"]],
  ["wget", ["-O", "--output-document", "-o", "--output-file", "-a", "--append-output"]],
]);

/**
 * The values of `names` in `args`: `--long VALUE`, `--long=VALUE` (or a getopt abbreviation), `-x
 * VALUE`, `-xVALUE` and `-abx VALUE` in a cluster of short options.
 */
function optionValues(args: readonly string[], names: readonly string[]): string[] {
  const values: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === "--") break;
    const long = names.find((name) => name.startsWith("--") && isLong(arg, name));
    if (long !== undefined && arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      const value = equals === -1 ? args[index + 1] : arg.slice(equals + 1);
      if (value !== undefined) values.push(value);
      continue;
    }
    if (!/^-[^-]/.test(arg)) continue;
    const letter = [...arg.slice(1)].findIndex((char) => names.includes(`-${char}`));
    if (letter === -1) continue;
    const rest = arg.slice(letter + 2);
    const value = rest === "" ? args[index + 1] : rest;
    if (value !== undefined) values.push(value);
  }
  return values;
}

function operandsOf(args: readonly string[]): string[] {
  const end = args.indexOf("--");
  const before = end === -1 ? args : args.slice(0, end);
  const after = end === -1 ? [] : args.slice(end + 1);
  return [...before.filter((arg) => !arg.startsWith("-") || arg === "-"), ...after];
}

/** cp, mv, install and ln's `-t DIR`, `-vtDIR`, `--target-directory[=]DIR` (rsync's -t keeps times). */
function targetDirectories(args: readonly string[]): string[] {
  const dirs: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === "--") break;
    if (isLong(arg, "--target-directory")) {
      const equals = arg.indexOf("=");
      const value = equals === -1 ? args[index + 1] : arg.slice(equals + 1);
      if (value !== undefined) dirs.push(value);
    } else if (/^-[^-]/.test(arg) && arg.includes("t")) {
      const rest = arg.slice(arg.indexOf("t") + 1);
      const value = rest === "" ? args[index + 1] : rest;
      if (value !== undefined) dirs.push(value);
    }
  }
  return dirs;
}

/** The files `name` writes, as far as its arguments say, for the programs above. */
function writtenFiles(name: string, args: readonly string[]): string[] {
  if (WRITES_EVERY_OPERAND.has(name)) return operandsOf(args);
  // uniq [INPUT [OUTPUT]]: every operand after the first (an option's number may look like one).
  if (name === "uniq") return operandsOf(args).slice(1);
  const options = OUTPUT_OPTIONS.get(name);
  if (options !== undefined) return optionValues(args, options);
  if (!WRITES_LAST_OPERAND.has(name)) return [];
  const last = operandsOf(args).at(-1);
  const targets = name === "rsync" ? [] : targetDirectories(args);
  return last === undefined ? targets : [...targets, last];
}

/** Whether the command `name args` (runners looked through) changes a kernel setting. */
export function writesKernelSetting(name: string, args: readonly string[]): boolean {
  if (name === "sysctl") return sysctlWrites(args);
  if (name === "systemd-sysctl") return systemdSysctlWrites(args);
  // An operand bash expands is here as written (`tee /*/sys/kernel/panic`).
  return writtenFiles(name, args).some(
    (path) => isKernelSettingPath(path) || expandedMayBeKernelSetting(path),
  );
}

// Names a glob in a target is tried as: the ones that decide where a path is, and one that is none of
// them (a global entry of /proc, for all the check knows).
const DECIDING_NAMES: readonly string[] = ["proc", "sys", "self", "thread-self", "1", "task", "root", "net"];
const ANY_OTHER_NAME = "\0";
// What bash expands in a name: a glob (`*`, `?`, `[...]`), an extended glob's group, a brace expansion.
const PATTERN = /[*?[({]/;

/**
 * Whether the pattern `glob` of one name can match `name`: `*`, `?` and `[...]` (`[!...]`, `[^...]`
 * negated); a name with a group or braces (`@(sys)`, `{s..s}ys`) or a set JavaScript cannot read is
 * taken as matching anything.
 */
function globMatches(glob: string, name: string): boolean {
  if (/[({]/.test(glob)) return true;
  let source = "";
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index] as string;
    const close = char === "[" ? glob.indexOf("]", index + 2) : -1;
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else if (close !== -1) {
      const set = glob.slice(index + 1, close).replace(/^!/, "^");
      source += `[${set.replace(/[\\\]]/g, "\\$&")}]`;
      index = close;
    } else source += char.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  try {
    return new RegExp(`^${source}$`, "s").test(name);
  } catch {
    return true;
  }
}

/**
 * Whether a path bash expands could be a kernel setting: bash expands globs and braces in a
 * redirection's target too, and writes the file when they make one word (`> /proc/sys/kernel/pani?`,
 * `> /*\/sys/kernel/panic`, `> /proc/sys/kernel/pani{c..c}`). Each name with a pattern is tried as
 * every name that decides where a path is and as any other; quotes are dropped, so a quoted glob
 * character counts as one (the check asks more, never less). A path with a parameter, a substitution or
 * a tilde says nothing about where it leads and is not read.
 */
function expandedMayBeKernelSetting(written: string): boolean {
  const text = written.replace(/\$(?=["'])/g, "").replace(/["'\\]/g, "");
  if (/[$`~]/.test(text) || !text.startsWith("/")) return false;
  // A word bash reads as a literal that the analysis did not (`$"/proc/sys/x"`, a locale string).
  if (!PATTERN.test(text)) return isKernelSettingPath(text);
  let paths = [""];
  for (const name of text.split("/").slice(1)) {
    const options = PATTERN.test(name)
      ? [...DECIDING_NAMES.filter((candidate) => globMatches(name, candidate)), ANY_OTHER_NAME]
      : [name];
    paths = paths.flatMap((path) => options.map((option) => `${path}/${option}`));
    // Each glob name multiplies the paths; past this many, a target is taken as able to be anything.
    if (paths.length > 4096) return true;
  }
  return paths.some(isKernelSettingPath);
}

/**
 * The first redirection that writes into a kernel setting (`> /proc/sys/…`, `>> /sys/…`, or a glob
 * that can name one), or null.
 */
export function kernelSettingRedirect(redirects: readonly Redirect[]): Redirect | null {
  return (
    redirects.find(
      (redirect) =>
        (redirect.kind === "write" || redirect.kind === "append") &&
        (redirect.target !== null
          ? isKernelSettingPath(redirect.target)
          : redirect.written !== undefined && expandedMayBeKernelSetting(redirect.written)),
    ) ?? null
  );
}
