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

/** The most recently allocated pid in this pid namespace. */
export function lastAllocatedPid(): number | undefined {
  try {
    const last = Number(readFileSync("/proc/loadavg", "latin1").trim().split(" ").pop());
    return Number.isInteger(last) ? last : undefined;
  } catch {
    return undefined;
  }
}

export function environContains(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry);
  } catch {
    return false;
  }
}
