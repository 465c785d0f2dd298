/** Which of the parent's variables a command starts from, strictest first (a config moves only forward). */
export const ENV_INHERIT_POLICIES = ["none", "core", "all"] as const;
export type EnvInheritPolicy = (typeof ENV_INHERIT_POLICIES)[number];

/** How the child's environment is built: inherit, drop by pattern, then override. */
export interface EnvPolicy {
  /** Which of the parent's variables to start from (default `all`). */
  inherit?: EnvInheritPolicy | undefined;
  /**
   * Case-insensitive glob patterns of variable names to drop (default: exec-core's
   * DEFAULT_ENV_EXCLUDES, `*KEY*`, `*SECRET*`, `*TOKEN*`, ...).
   */
  exclude?: string[] | undefined;
  /** Variable names (exact) inherited even when an exclude pattern matches them. */
  allow?: string[] | undefined;
  /** Variables set last; they win over inherited values and Conch's pins. */
  set?: Record<string, string> | undefined;
}

/** One command to run to completion. */
export interface ExecRequest {
  /** The program and its arguments; no shell parsing. */
  argv: string[];
  /** Absolute or relative directory the command runs in; must exist. */
  cwd: string;
  env?: EnvPolicy | undefined;
  /** Kill the whole process tree after this many milliseconds; exit code 124. */
  timeoutMs?: number | undefined;
  /** Time between SIGTERM and SIGKILL when killing (default 500). */
  killGraceMs?: number | undefined;
  /** After exit, how long to wait for pipes held open by background processes (default 2000). */
  drainTimeoutMs?: number | undefined;
  /** Bytes of output kept per stream, half head and half tail (default 1 MiB). */
  maxOutputBytes?: number | undefined;
}

/** What a finished command produced. Output fields are bounded head/tail text. */
export interface ExecResult {
  command: string[];
  cwd: string;
  /** The exit status; 128+N when killed by signal N; 124 when timed out. */
  exitCode: number;
  /** The signal that ended the process, e.g. `SIGKILL`. */
  signal: string | null;
  durationMs: number;
  timedOut: boolean;
  canceled: boolean;
  /** Some output was omitted from the middle of a stream. */
  truncated: boolean;
  /** Output held NUL bytes in its first 4 KiB and was summarised. */
  binary: boolean;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved in arrival order. */
  output: string;
  stdoutBytes: number;
  stderrBytes: number;
  /**
   * The programs the command left running when it exited, each stopped by Conch (a one-shot leaves
   * nothing behind), by name; empty when there were none, or when it timed out or was canceled.
   */
  leftProcesses: string[];
  /**
   * The resource limits the kernel enforced on the command (config `limits`): `memory` (an OOM kill in
   * its cgroup; `limit` in bytes), `processes` (a fork refused; `limit` processes), `file` (a write past
   * RLIMIT_FSIZE; `limit` in bytes), `tmp` (its bound /tmp full when it ended; `limit` in bytes). Empty
   * when none was reached or none applied.
   */
  limitsReached: { kind: "memory" | "processes" | "file" | "tmp"; limit: number }[];
}

/**
 * What is spawned, after the request is checked and its environment built: what a sandbox backend
 * rewrites to run inside the sandbox (exec-core spawns it, sandbox-core's backends transform it).
 */
export interface SpawnSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Data the child reads on descriptors 3, 4, ... (each a pipe closed after the data; e.g. a seccomp program for `bwrap --seccomp 3`). */
  extraFds: Uint8Array[];
  /**
   * A descriptor of the child, right after the `extraFds` ones, that the spawner opens as a pipe and reads:
   * where a sandbox's helper writes a line `PID NAME` for each process the command left running, which
   * it then stopped. Absent: nothing reports them there.
   */
  reportFd?: number;
}
