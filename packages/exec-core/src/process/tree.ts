import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { environContains, isLive, lastAllocatedPid, listPids, type ProcInfo, readProcInfo } from "./proc.js";

const HAS_PROC = existsSync("/proc/self/stat");
const POLL_MS = 20;
const KILL_ROUNDS = 50;
/** After this long, the pid counter may have wrapped past the root, so every pid is examined. */
const FULL_SCAN_AFTER_MS = 1000;

/**
 * Everything a spawned command started, found on demand. The root leads its own session and process
 * group; a descendant that leaves both (setsid, double fork) is still found by its parent chain while
 * that lasts, and by the marker entry in its environment after.
 */
export class ProcessTree {
  readonly rootPid: number;
  readonly #marker: string;
  readonly #rootStart: number;
  readonly #spawnedAt = Date.now();

  /** `marker` is a `NAME=value` entry placed only in this command's environment. */
  constructor(rootPid: number, marker: string) {
    this.rootPid = rootPid;
    this.#marker = marker;
    this.#rootStart = readProcInfo(rootPid)?.startTime ?? 0;
  }

  /** The live processes of the tree, the root included while it runs. */
  members(): ProcInfo[] {
    if (!HAS_PROC) return [];
    const last = lastAllocatedPid();
    const full =
      last === undefined || last < this.rootPid || Date.now() - this.#spawnedAt > FULL_SCAN_AFTER_MS;
    const infos = new Map<number, ProcInfo>();
    for (const pid of listPids()) {
      // Without a wrap of the pid counter, everything the root started has a pid in (root, last].
      if (!full && (pid < this.rootPid || pid > (last as number))) continue;
      const info = readProcInfo(pid);
      if (isLive(info) && info.startTime >= this.#rootStart) infos.set(pid, info);
    }
    const members: ProcInfo[] = [];
    for (const info of infos.values()) {
      if (this.#belongs(info, infos)) members.push(info);
    }
    return members;
  }

  #belongs(info: ProcInfo, infos: Map<number, ProcInfo>): boolean {
    const root = this.rootPid;
    if (info.pid === root || info.pgrp === root || info.session === root) return true;
    let parent = infos.get(info.ppid);
    for (let depth = 0; parent !== undefined && depth < 4096; depth++) {
      if (parent.pid === root) return true;
      parent = infos.get(parent.ppid);
    }
    return environContains(info.pid, this.#marker);
  }

  /** Sends `signal` to the root's process group and to each member, checking each is still the same process. */
  signal(signal: NodeJS.Signals, members: readonly ProcInfo[] = this.members()): void {
    try {
      process.kill(-this.rootPid, signal);
    } catch {
      // ESRCH: the group is already empty.
    }
    for (const member of members) {
      if (readProcInfo(member.pid)?.startTime !== member.startTime) continue;
      try {
        process.kill(member.pid, signal);
      } catch {
        // Gone between the check and the signal.
      }
    }
  }

  /**
   * SIGTERM to every member, up to `graceMs` for them to leave, then SIGKILL until none is left. Members
   * are found before each signal, so processes started during the grace period are killed too.
   */
  async terminate(graceMs: number): Promise<void> {
    let members = this.members();
    if (members.length === 0 && HAS_PROC) return;
    this.signal("SIGTERM", members);
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
      members = this.members();
      if (members.length === 0 && HAS_PROC) return;
    }
    for (let round = 0; round < KILL_ROUNDS; round++) {
      this.signal("SIGKILL", members);
      if (!HAS_PROC) return;
      await sleep(round === 0 ? 1 : POLL_MS);
      members = this.members();
      if (members.length === 0) return;
    }
  }
}
