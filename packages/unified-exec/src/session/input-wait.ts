// Whether the program in the foreground of a session's terminal is waiting for a person's input (a
// question, a password, an editor, a pager, a REPL), read from the kernel: the terminal's foreground
// process group, every member of it asleep, and one of them asleep reading the terminal (in its read, or
// in poll/select while it holds no socket: a server polling its sockets in the foreground is busy, not
// waiting). The reads are proc-tree.ts's, which work the same under the sandbox's pid namespace.
import { readdirSync, readlinkSync } from "node:fs";
import { type ProcStat, procTree, procWchan } from "./proc-tree.js";

// How deep, and how many processes, under the session's root are looked at.
const MAX_DEPTH = 8;
const MAX_PROCESSES = 256;
// Past this many open files, a process is not looked through for sockets (and counts as holding one).
const MAX_FDS = 512;

// Asleep in the terminal's read (n_tty_read sleeps in wait_woken), or in poll/select.
const TERMINAL_READ = /^(?:n_tty_read|wait_woken)/;
const POLL = /^(?:poll_schedule_timeout|do_select|do_sys_poll|core_sys_select|do_epoll_wait|ep_poll)/;

function holdsSocket(pid: number): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return true;
  }
  if (fds.length > MAX_FDS) return true;
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) return true;
    } catch {
      // Closed since the listing.
    }
  }
  return false;
}

/** What waits for input on a session's terminal: the program's name, as the kernel has it. */
export interface InputWait {
  readonly program: string;
}

/**
 * The program in the foreground of the terminal under `root` (the session's process) when it waits for
 * input, else null (busy, not on a terminal, or nothing tells: a kernel that does not say where a
 * process sleeps counts as not waiting).
 */
export function foregroundInputWait(root: number): InputWait | null {
  const seen = procTree(root, MAX_DEPTH, MAX_PROCESSES);
  // The terminal's foreground group, as the processes that have it as their terminal see it.
  const foreground = seen.findLast((info) => info.tpgid > 0)?.tpgid;
  if (foreground === undefined) return null;
  const members = seen.filter((info) => info.pgrp === foreground);
  if (members.length === 0 || members.some((info) => info.state !== "S")) return null;
  // The newest member reading the terminal is what a person would answer (vim, not the shell under it).
  let reader: ProcStat | null = null;
  for (const info of members) {
    const where = procWchan(info.pid);
    if (where === null) continue;
    const reads = TERMINAL_READ.test(where) || POLL.test(where);
    if (!reads || holdsSocket(info.pid)) continue;
    if (reader === null || info.startTime >= reader.startTime) reader = info;
  }
  return reader === null ? null : { program: reader.name };
}
