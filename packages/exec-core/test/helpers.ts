import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

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

/** Pids a test script printed, one per line as `pid=N`. */
export function printedPids(output: string): number[] {
  return [...output.matchAll(/^pid=(\d+)$/gm)].map((m) => Number(m[1]));
}

/** A fresh temporary directory per test, removed afterwards. */
export function useTempDir(): () => string {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    dir ??= mkdtempSync(join(tmpdir(), "conch-exec-"));
    return dir;
  };
}
