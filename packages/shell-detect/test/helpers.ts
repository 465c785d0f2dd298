import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "vitest";
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
 * A suite that needs `name` installed, gated like sandbox-linux's bwrap suites. Without it the suite
 * fails on CI (a shell that silently stops being tested is worse than a red build) and is skipped
 * elsewhere, its name and a line on stderr saying why and how to fix it.
 */
export function describeWithShell(title: string, name: ShellType, suite: (shell: Shell) => void): void {
  const shell = installedShell(name);
  if (shell !== undefined) {
    describe(title, () => suite(shell));
  } else if (process.env.CI) {
    describe(title, () => {
      it(`runs real ${name}`, () => {
        throw new Error(`${name} is not installed on this CI machine: apt-get install -y ${name}`);
      });
    });
  } else {
    // Said once at collection as well, so the skip shows without a verbose reporter.
    process.stderr.write(`skipping "${title}": ${name} is not installed (apt-get install -y ${name})\n`);
    describe.skip(`${title} (skipped: ${name} is not installed; apt-get install -y ${name})`, () =>
      suite({ type: name, path: `/usr/bin/${name}` }));
  }
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
