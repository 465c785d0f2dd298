// What makes a command dangerous once the walk (walk.ts) has reached it: each kind, why it is
// dangerous in words a person or a model can act on, and the test of a program's words for it.
import { posix } from "node:path";
import { INTERPRETERS as LANGUAGE_INTERPRETERS, SHELLS } from "@conch/protocol";
import { beforeDoubleDash, clusterHas, isLongOption, operands } from "./getopt.js";
import { gitSubcommands } from "./git.js";
import { writesKernelSetting } from "./kernel-settings.js";

// Programs that fetch from the network, and what runs text it is handed: `curl … | sh` and its kin.
export const DOWNLOADERS: ReadonlySet<string> = new Set([
  "curl",
  "wget",
  "fetch",
  "http",
  "https",
  "lwp-request",
  "aria2c",
]);
export const INTERPRETERS: ReadonlySet<string> = new Set([
  ...Object.keys(SHELLS),
  // Those that run what is piped into them: a download piped into awk is its data, not its program.
  ...Object.keys(LANGUAGE_INTERPRETERS).filter((name) => LANGUAGE_INTERPRETERS[name]?.stdin === true),
  "source",
  ".",
  "eval",
]);

export const DANGEROUS_KINDS: readonly [
  "forced-rm",
  "git-reset-hard",
  "git-clean-force",
  "git-push-force",
  "dd-write",
  "mkfs",
  "recursive-chmod-root",
  "recursive-chown-root",
  "find-delete",
  "remote-script",
  "kernel-setting",
] = [
  "forced-rm",
  "git-reset-hard",
  "git-clean-force",
  "git-push-force",
  "dd-write",
  "mkfs",
  "recursive-chmod-root",
  "recursive-chown-root",
  "find-delete",
  "remote-script",
  "kernel-setting",
] as const;

export type DangerousKind = (typeof DANGEROUS_KINDS)[number];

export interface DangerousMatch {
  kind: DangerousKind;
  /** The dangerous command itself, after runners, shells and scripts were looked through. */
  argv: string[];
  /** Why it is dangerous, in words a person or a model can act on. */
  reason: string;
}

export const DANGEROUS_REASONS: Readonly<Record<DangerousKind, string>> = {
  "forced-rm": "rm with -f/--force deletes without asking and cannot be undone",
  "git-reset-hard": "git reset --hard discards uncommitted changes in the index and working tree",
  "git-clean-force": "git clean -f deletes untracked files, which git cannot restore",
  "git-push-force": "a force push can overwrite commits on the remote that others rely on",
  "dd-write": "dd of= overwrites a file or device in place",
  mkfs: "mkfs creates a new file system, erasing what the device held",
  "recursive-chmod-root": "chmod -R on / changes the permissions of the whole file system",
  "recursive-chown-root": "chown -R on / changes the ownership of the whole file system",
  "find-delete": "find -delete deletes every file that matches",
  "remote-script":
    "it runs what it downloads (curl or wget into a shell or interpreter), unseen: download the script to a file and read it first",
  "kernel-setting":
    "it changes a setting of the running kernel (sysctl, /proc/sys, /sys), for the whole machine and every user",
};

/** `/`, or a spelling of it or of everything in it (`//`, `/.`, `/..`, `/*`). */
function isRootTarget(path: string): boolean {
  if (!path.startsWith("/")) return false;
  const normal = posix.normalize(path);
  return normal === "/" || normal === "/*";
}

export function directKind(
  name: string,
  words: readonly string[],
  args: readonly string[],
): DangerousKind | null {
  switch (name) {
    case "rm":
      return beforeDoubleDash(args).some((arg) => isLongOption(arg, "--force") || clusterHas(arg, "f"))
        ? "forced-rm"
        : null;
    case "git":
      return gitKind(words);
    case "dd":
      return args.some((arg) => arg.startsWith("of=")) ? "dd-write" : null;
    case "chmod":
      return isRecursiveOnRoot(args) ? "recursive-chmod-root" : null;
    case "chown":
    case "chgrp":
      return isRecursiveOnRoot(args) ? "recursive-chown-root" : null;
    case "find":
      return args.includes("-delete") ? "find-delete" : null;
    default:
      if (name.startsWith("mkfs") || name === "mke2fs") return "mkfs";
      return writesKernelSetting(name, args) ? "kernel-setting" : null;
  }
}

function isRecursiveOnRoot(args: readonly string[]): boolean {
  const recursive = beforeDoubleDash(args).some(
    (arg) => isLongOption(arg, "--recursive") || clusterHas(arg, "R"),
  );
  return recursive && operands(args).some(isRootTarget);
}

function gitKind(words: readonly string[]): DangerousKind | null {
  for (const subcommand of gitSubcommands(words)) {
    const kind = gitSubcommandKind(subcommand.name, words.slice(subcommand.index + 1));
    if (kind !== null) return kind;
  }
  return null;
}

function gitSubcommandKind(subcommand: string, args: readonly string[]): DangerousKind | null {
  switch (subcommand) {
    case "reset":
      return beforeDoubleDash(args).some((arg) => isLongOption(arg, "--hard")) ? "git-reset-hard" : null;
    case "clean":
      return beforeDoubleDash(args).some((arg) => isLongOption(arg, "--force") || clusterHas(arg, "f", "e"))
        ? "git-clean-force"
        : null;
    case "push":
      return args.some(
        (arg) =>
          isLongOption(arg, "--force") ||
          arg.startsWith("--force-with-lease") ||
          isLongOption(arg, "--mirror") ||
          clusterHas(arg, "f", "o") ||
          (arg.startsWith("+") && arg.length > 1),
      )
        ? "git-push-force"
        : null;
    default:
      return null;
  }
}
