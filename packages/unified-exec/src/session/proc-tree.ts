// The reads of /proc that shell-prompt.ts and input-wait.ts share: a process's stat, where it sleeps, and
// the processes under a session's root. Under the sandbox's pid namespace /proc as this process sees it
// names every pid (and every pid in a stat) in this process's namespace, so the same reads work there.
import { readFileSync } from "node:fs";

export interface ProcStat {
  readonly pid: number;
  readonly name: string;
  readonly state: string;
  readonly pgrp: number;
  /** The foreground process group of the process's controlling terminal. */
  readonly tpgid: number;
  readonly startTime: number;
}

/** The process's /proc/PID/stat, or null when it is gone. */
export function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null;
  }
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 2).split(" ");
  return {
    pid,
    name: text.slice(text.indexOf("(") + 1, close),
    state: fields[0] ?? "?",
    pgrp: Number(fields[2]),
    tpgid: Number(fields[5]),
    startTime: Number(fields[19]),
  };
}

/** The kernel function the process sleeps in, or null when it cannot be read. */
export function procWchan(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/wchan`, "latin1");
  } catch {
    return null;
  }
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1")
      .split(" ")
      .filter((word) => word !== "")
      .map(Number);
  } catch {
    return [];
  }
}

/** `root` and the processes under it, level by level, at most `maxDepth` levels and `maxProcesses`. */
export function procTree(
  root: number,
  maxDepth: number,
  maxProcesses: number = Number.POSITIVE_INFINITY,
): ProcStat[] {
  const seen: ProcStat[] = [];
  let level = [root];
  for (let depth = 0; depth < maxDepth && level.length > 0 && seen.length < maxProcesses; depth++) {
    const next: number[] = [];
    for (const pid of level) {
      const info = procStat(pid);
      if (info === null) continue;
      seen.push(info);
      next.push(...children(pid));
    }
    level = next;
  }
  return seen;
}
