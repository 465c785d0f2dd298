import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import {
  environContains,
  isLive,
  lastAllocatedPid,
  listPids,
  type ProcInfo,
  pidsDown,
  readProcInfo,
} from "./proc.js";

const HAS_PROC = existsSync("/proc/self/stat");
const POLL_MS = 20;
const KILL_ROUNDS = 50;
const FREEZE_ROUNDS = 10;
const SCAN_PASSES = 16;
/** A range of pids at most this long is read pid by pid rather than by listing /proc. */
const DIRECT_PROBE_PIDS = 64;
/** After this long, the pid counter may have wrapped past the root, so every pid is examined. */
const FULL_SCAN_AFTER_MS = 1000;

interface Scan {
  members: ProcInfo[];
  /** The root's pid still names our process group: signalling `-root` reaches only our processes. */
  groupIsOurs: boolean;
}

/**
 * Everything a spawned command started, found on demand. The root leads its own session and process
 * group; a descendant that leaves both (setsid, double fork) is still found by its parent chain while
 * that lasts, and by the marker entry in its environment after. A process that leaves the session, loses
 * its parent and clears its environment is out of reach here: only a pid namespace (the sandbox) holds it.
 */
export class ProcessTree {
  readonly rootPid: number;
  readonly #marker: string;
  readonly #rootStart: number | undefined;
  readonly #spawnedAt = Date.now();

  /** `marker` is a `NAME=value` entry placed only in this command's environment. */
  constructor(rootPid: number, marker: string) {
    this.rootPid = rootPid;
    this.#marker = marker;
    // Without /proc (or if the root could not be read) only the process group can be signalled.
    this.#rootStart = HAS_PROC ? readProcInfo(rootPid)?.startTime : undefined;
  }

  /** The live processes of the tree, the root included while it runs. */
  #scan(): Scan {
    if (this.#rootStart === undefined) return { members: [], groupIsOurs: true };
    const root = this.rootPid;
    const rootInfo = readProcInfo(root);
    const rootIsOurs = rootInfo?.startTime === this.#rootStart;
    // The kernel does not reuse a pid while a process group or session still carries it; so when the
    // root's pid names another process, nothing is left in our group or session. When the root is gone,
    // its pid may be taken while this scan runs: the scan reads it again below and gives up the group if so.
    let groupIsOurs = rootInfo === undefined || rootIsOurs;
    const full = Date.now() - this.#spawnedAt > FULL_SCAN_AFTER_MS;
    const seen = new Set<number>();
    const infos = new Map<number, ProcInfo>();
    // A process may exit between the directory listing and the read of its stat, after starting a child
    // the listing missed. So list again until no pid at all was allocated during a whole pass, from
    // before the listing to after the last read: then every process that exists was seen.
    let last = lastAllocatedPid();
    for (let pass = 0; pass < SCAN_PASSES; pass++) {
      // Without a wrap of the pid counter, everything the root started has a pid in [root, last]. When
      // that range is short, its pids are read one by one instead of listing /proc: a pid allocated
      // meanwhile is past `last`, and moves the counter, so the next pass reads it.
      const direct =
        !full && last !== undefined && last >= root && last - root < DIRECT_PROBE_PIDS ? last : undefined;
      // Newest first: descendants are newer than the root, and a process about to hop is read sooner.
      const pids = direct !== undefined ? pidsDown(direct, root) : listPids().sort((a, b) => b - a);
      const listed = direct ?? lastAllocatedPid();
      const bounded = !full && listed !== undefined && listed >= root;
      for (const pid of pids) {
        if (seen.has(pid) || (bounded && (pid < root || pid > listed))) continue;
        seen.add(pid);
        const info = pid === root && rootInfo !== undefined ? rootInfo : readProcInfo(pid);
        if (pid === root && rootInfo === undefined && info !== undefined) {
          // The root died before this scan and its pid now names a newer process, whose group it is.
          groupIsOurs = false;
          continue;
        }
        if (isLive(info) && info.startTime >= this.#rootStart) infos.set(pid, info);
      }
      const end = lastAllocatedPid();
      if (end === undefined || end === last) break;
      last = end;
    }
    const members: ProcInfo[] = [];
    for (const info of infos.values()) {
      if (this.#belongs(info, infos, rootIsOurs, groupIsOurs)) members.push(info);
    }
    return { members, groupIsOurs };
  }

  #belongs(info: ProcInfo, infos: Map<number, ProcInfo>, rootIsOurs: boolean, groupIsOurs: boolean): boolean {
    const root = this.rootPid;
    if (info.pid === root) return rootIsOurs;
    if (groupIsOurs && (info.pgrp === root || info.session === root)) return true;
    if (rootIsOurs) {
      let parent = infos.get(info.ppid);
      for (let depth = 0; parent !== undefined && depth < 4096; depth++) {
        if (parent.pid === root) return true;
        parent = infos.get(parent.ppid);
      }
    }
    return environContains(info.pid, this.#marker);
  }

  /**
   * Sends `signal` to the root's process group while it is still ours, and to each member after checking
   * it is still the same process (same pid and start time).
   */
  #signal(signal: NodeJS.Signals, scan: Scan): void {
    // The group at once, so that what forks meanwhile gets the signal too; but only while the root holds
    // its pid: once the root is gone, the group's last member could exit after the scan and a new process
    // take the pid, so then each member is signalled alone, after checking it is still the same process.
    const rootHoldsPid =
      this.#rootStart === undefined || readProcInfo(this.rootPid)?.startTime === this.#rootStart;
    if (
      this.#rootStart === undefined ||
      (rootHoldsPid && scan.groupIsOurs && scan.members.some((m) => m.pgrp === this.rootPid))
    ) {
      try {
        process.kill(-this.rootPid, signal);
      } catch {
        // ESRCH: the group emptied meanwhile.
      }
    }
    // Each inner group (the command a wrapper such as bwrap started in a session of its own) at once as
    // well, while its leader is still the same process: signalled one by one, a shell could see its child
    // die first and print "Terminated" before its own signal arrived.
    for (const leader of scan.members) {
      if (leader.pid !== leader.pgrp || leader.pgrp === this.rootPid) continue;
      if (readProcInfo(leader.pid)?.startTime !== leader.startTime) continue;
      try {
        process.kill(-leader.pgrp, signal);
      } catch {
        // The group emptied meanwhile.
      }
    }
    for (const member of scan.members) {
      if (readProcInfo(member.pid)?.startTime !== member.startTime) continue;
      try {
        process.kill(member.pid, signal);
      } catch {
        // Gone between the check and the signal.
      }
    }
  }

  /**
   * Whether this tree can see the processes under its root (/proc); where it cannot (macOS), only the
   * root's own group can be reached.
   */
  get visible(): boolean {
    return this.#rootStart !== undefined;
  }

  /**
   * The process groups of the tree other than the root's own: those a wrapper such as bwrap started its
   * command in. A signal meant for the command goes there, since the wrapper dies of it otherwise.
   */
  innerGroups(): number[] {
    const groups = new Set<number>();
    for (const member of this.#scan().members) {
      if (member.pgrp !== this.rootPid && member.pid === member.pgrp) groups.add(member.pgrp);
    }
    return [...groups];
  }

  /**
   * SIGTERM to every member, up to `graceMs` for them to leave, then SIGKILL until none is left. Before
   * SIGKILL, members are stopped (SIGSTOP) and the tree scanned again until it stops growing, so a
   * process that forks as fast as it can is caught with all its children. Resolves with the names of the
   * processes it found to end (none once the tree is gone; none without /proc, where it cannot tell).
   */
  async terminate(graceMs: number): Promise<string[]> {
    if (this.#rootStart === undefined) {
      await this.#terminateGroup(graceMs);
      return [];
    }
    let scan = this.#scan();
    if (scan.members.length === 0) return [];
    const names = scan.members.map((member) => processName(member.pid));
    this.#signal("SIGTERM", scan);
    const terminated = new Set(scan.members.map((m) => `${m.pid}:${m.startTime}`));
    const terminateNew = (): void => {
      const fresh = scan.members.filter((m) => !terminated.has(`${m.pid}:${m.startTime}`));
      for (const member of fresh) terminated.add(`${member.pid}:${member.startTime}`);
      names.push(...fresh.map((member) => processName(member.pid)));
      // One by one: the group has had its SIGTERM, and a second one could cut short a graceful exit.
      this.#signal("SIGTERM", { members: fresh, groupIsOurs: false });
    };
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
      scan = this.#scan();
      if (scan.members.length === 0) return names;
      // Started since the last look: they get their SIGTERM and the rest of the grace period too.
      terminateNew();
    }
    for (let round = 0; round < KILL_ROUNDS; round++) {
      const frozen = new Map<number, ProcInfo>();
      for (let i = 0; i < FREEZE_ROUNDS && scan.members.some((m) => !frozen.has(m.pid)); i++) {
        this.#signal("SIGSTOP", scan);
        for (const member of scan.members) frozen.set(member.pid, member);
        scan = this.#scan();
      }
      this.#signal("SIGKILL", { members: [...frozen.values()], groupIsOurs: scan.groupIsOurs });
      await sleep(round === 0 ? 1 : POLL_MS);
      scan = this.#scan();
      if (scan.members.length === 0) return names;
    }
    return names;
  }

  /** Without /proc: the process group is all that can be seen and signalled. */
  async #terminateGroup(graceMs: number): Promise<void> {
    const groupAlive = (): boolean => {
      try {
        process.kill(-this.rootPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (!groupAlive()) return;
    const none = { members: [], groupIsOurs: true };
    this.#signal("SIGTERM", none);
    const deadline = Date.now() + graceMs;
    while (groupAlive() && Date.now() < deadline) await sleep(POLL_MS);
    if (groupAlive()) this.#signal("SIGKILL", none);
  }
}

/** A process's name as the kernel has it (`comm`), or "?" once it is gone. */
function processName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim() || "?";
  } catch {
    return "?";
  }
}
