// What changes a setting of the running kernel, for the whole machine: `sysctl` writing (`-w`, KEY=VALUE,
// `-p`/`-f`/`--load`, `--system`), and a write into /proc/sys, /sys or another part of /proc that is not
// per-process (/proc/sysrq-trigger, /proc/irq), by a redirection or by a program that writes the files it
// is given (tee, cp, ...). The sandbox keeps these read-only; a person is asked before a command
// that tries, since one approved to run outside it would change the host. Paths are read as written:
// a relative one (`cd /proc/sys; echo 1 > vm/x`) or a link elsewhere to these files is not recognised.
import { posix } from "node:path";
import type { Redirect } from "../types.js";

// /proc/PID/root, /proc/self/root and /proc/thread-self/root lead back to a root directory.
const ROOT_ALIAS = /^\/proc\/(?:\d+|self|thread-self)\/root(?=\/|$)/;
const PER_PROCESS = /^(?:\d+|self|thread-self)$/;

/** A literal absolute path naming /sys, or a part of /proc that is not per-process, or inside them. */
function isKernelSettingPath(path: string): boolean {
  if (!path.startsWith("/")) return false;
  let normal = posix.normalize(path);
  while (ROOT_ALIAS.test(normal)) normal = posix.normalize(`/${normal.replace(ROOT_ALIAS, "")}`);
  const [, top, entry] = normal.split("/");
  if (top === "sys") return true;
  return top === "proc" && entry !== undefined && entry !== "" && !PER_PROCESS.test(entry);
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

// Programs that write every file operand, and those that write the last one (or `-t DIR`). dd's `of=`
// is dangerous already (dd-write).
const WRITES_EVERY_OPERAND: ReadonlySet<string> = new Set(["tee", "truncate", "sponge", "shred"]);
const WRITES_LAST_OPERAND: ReadonlySet<string> = new Set(["cp", "mv", "install", "ln", "rsync"]);

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
  if (!WRITES_LAST_OPERAND.has(name)) return [];
  const last = operandsOf(args).at(-1);
  const targets = name === "rsync" ? [] : targetDirectories(args);
  return last === undefined ? targets : [...targets, last];
}

/** Whether the command `name args` (runners looked through) changes a kernel setting. */
export function writesKernelSetting(name: string, args: readonly string[]): boolean {
  if (name === "sysctl") return sysctlWrites(args);
  return writtenFiles(name, args).some(isKernelSettingPath);
}

/** The first redirection that writes into a kernel setting (`> /proc/sys/…`, `>> /sys/…`), or null. */
export function kernelSettingRedirect(redirects: readonly Redirect[]): Redirect | null {
  return (
    redirects.find(
      (redirect) =>
        (redirect.kind === "write" || redirect.kind === "append") &&
        redirect.target !== null &&
        isKernelSettingPath(redirect.target),
    ) ?? null
  );
}
