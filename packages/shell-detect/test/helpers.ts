import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith, type Need } from "@conch/test-config";
import { afterEach } from "vitest";
import { resolveShell, type Shell, type ShellType } from "../src/index.js";

/** POSIX shells the suites run for real; fish stands in for one that snapshots do not support. */
export function installedShell(name: ShellType): Shell | undefined {
  try {
    return resolveShell(name, { env: { PATH: "/usr/bin:/bin:/usr/local/bin" } });
  } catch {
    return undefined;
  }
}

/**
 * A suite that needs the shell `name` installed, gated like every suite that needs something of the
 * machine (@conch/test-config): failed on CI without it, skipped elsewhere saying why.
 */
export function describeWithShell(
  title: string,
  name: ShellType & Need,
  suite: (shell: Shell) => void,
): void {
  describeWith(name, title, () => suite(installedShell(name) ?? { type: name, path: `/usr/bin/${name}` }));
}

export interface TempHome {
  /** The HOME every shell in the test gets; never the real one. */
  readonly home: string;
  /** Where snapshots go. */
  readonly dir: string;
  /** The environment a capture starts with. */
  readonly env: Record<string, string>;
  write(name: string, text: string): string;
}

/** A fresh home and snapshot directory per test, removed afterwards. */
export function useTempHome(): () => TempHome {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  return () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "conch-snapshot-")));
    roots.push(root);
    const home = join(root, "home");
    mkdirSync(home);
    const env = { HOME: home, PATH: "/usr/bin:/bin", USER: "conch-test", LANG: "C.UTF-8" };
    return {
      home,
      dir: join(root, "state", "snapshots"),
      env,
      write: (name, text) => {
        const path = join(home, name);
        writeFileSync(path, text);
        return path;
      },
    };
  };
}

export interface Ran {
  readonly stdout: string;
  readonly stderr: string;
  readonly status: number | null;
}

/** Runs `argv` with `env`, stdin on /dev/null, or on a pipe (to Node, a socket) with `stdin: "pipe"`. */
export function run(
  argv: readonly string[],
  env: Record<string, string>,
  cwd?: string,
  stdin: "ignore" | "pipe" = "ignore",
): Ran {
  const [file = "", ...args] = argv;
  const result = spawnSync(file, args, { env, cwd, encoding: "utf8", stdio: [stdin, "pipe", "pipe"] });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

/** Alive means present in /proc and not a zombie (this machine's init does not reap orphans). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Keeps everything but names that look like credentials and the names Conch pins itself. */
export const PINNED: readonly string[] = [
  "TERM",
  "NO_COLOR",
  "PAGER",
  "GIT_PAGER",
  "GH_PAGER",
  "LANG",
  "LC_ALL",
  "CONCH",
];
export function policyKeep(name: string): boolean {
  return !/(KEY|TOKEN|SECRET|PASSWORD)/.test(name) && !PINNED.includes(name);
}
