import { readdirSync, readFileSync } from "node:fs";

/** The fields of /proc/PID/stat that identify a process and place it in a tree. */
export interface ProcInfo {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** Start time in clock ticks since boot; with the pid it names one process even after pid reuse. */
  startTime: number;
}

export function readProcInfo(pid: number): ProcInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    state: fields[0] ?? "?",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    startTime: Number(fields[19]),
  };
}

/** A process that has exited but not been reaped is dead for our purposes: it holds nothing and runs nothing. */
export function isLive(info: ProcInfo | undefined): info is ProcInfo {
  return info !== undefined && info.state !== "Z" && info.state !== "X";
}

export function listPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0) pids.push(pid);
  }
  return pids;
}

/** The pids from `high` down to `low`, both included. */
export function pidsDown(high: number, low: number): number[] {
  const pids: number[] = [];
  for (let pid = high; pid >= low; pid--) pids.push(pid);
  return pids;
}

/** The most recently allocated pid in this pid namespace. */
export function lastAllocatedPid(): number | undefined {
  try {
    const last = Number(readFileSync("/proc/loadavg", "latin1").trim().split(" ").pop());
    return Number.isInteger(last) ? last : undefined;
  } catch {
    return undefined;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Whether the process's environment holds `entry`. While a process is between fork and exec, or inside
 * exec, its environment reads as empty for an instant: such a read is tried again a few times.
 */
export function environContains(pid: number, entry: string): boolean {
  for (let attempt = 0; attempt < 5; attempt++) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, "latin1");
    } catch {
      return false;
    }
    if (environ.length > 0) return environ.split("\0").includes(entry);
    Atomics.wait(pause, 0, 0, 2);
  }
  return false;
}
