// The shapes every sandbox package shares. Anything exported from index.ts is public API.
import type { Server } from "node:net";
import type { SandboxMode, SpawnSpec } from "@conch/protocol";

/**
 * How much a command may touch (DESIGN.md §5): the policy Conch enforces. Only workspace-write takes
 * options. A policy in Codex's wire form becomes one with `fromCodexSandboxPolicy`.
 */
export type SandboxPolicy =
  | { mode: Exclude<SandboxMode, "workspace-write"> }
  | { mode: "workspace-write"; writableRoots?: string[]; networkAccess?: boolean };

/** A writable root and the paths inside it that stay read-only. */
export interface WritableRoot {
  /** Canonical absolute path. */
  root: string;
  /**
   * Canonical absolute paths inside `root` that exist and must stay read-only: `.git` (and the gitdir a
   * `.git` file names), `.conch`, `.agents`, shell startup files, and Conch's own config and state.
   */
  readOnlySubpaths: string[];
}

/**
 * What the command sees at `/tmp` (and at the host's `$TMPDIR`, when that is another absolute path).
 * - `private`: a persistent directory of this workspace (under Conch's state dir), bound writable, so
 *   calls of one project share it and nothing of the host's `/tmp` is visible;
 * - `empty`: a fresh, empty tmpfs for each command (read-only mode: nothing reaches the host);
 * - `host`: the host's own, untouched (no sandbox).
 */
export type TmpRule =
  | { kind: "private"; source: string; targets: string[] }
  | { kind: "empty"; targets: string[] }
  | { kind: "host" };

/** A path whose contents the command must not read (a secret, Conch's own state). */
export interface HiddenPath {
  /** Canonical absolute path that exists. */
  path: string;
  /** A directory is replaced by an empty unreadable one, a file by an empty unreadable file. */
  type: "dir" | "file";
  /** Canonical paths inside `path` that stay readable, read-only (this workspace's spill files). */
  readable: string[];
}

/** A policy resolved for one command: what a backend enforces. */
export interface SandboxRules {
  mode: SandboxMode;
  /** Readable roots (`/` for every mode today), less `hidden`. */
  readableRoots: string[];
  /** Empty under read-only. Disjoint: none lies inside another. */
  writableRoots: WritableRoot[];
  tmp: TmpRule;
  /** Reads denied by default (`~/.ssh`, ...) and by config, minus exceptions; none contains a writable root. */
  hidden: HiddenPath[];
  network: boolean;
  /**
   * What no bind can keep read-only because it does not exist yet (a git dir's `commondir`, a `.git` a
   * root may get): read once the command has run, with `checkGitAfterCommand`. Absent: nothing to check.
   */
  gitWatch?: GitWatch;
}

/** What a command's sandbox could not keep read-only, for `checkGitAfterCommand` once it has run. */
export interface GitWatch {
  /** The writable roots (canonical): a new `.git` file or worktree may point only inside them. */
  readonly roots: readonly string[];
  /** When the rules were found (`Date.now()`): an entry changed since then is the command's doing. */
  readonly startedAt: number;
  /** Control paths of the git dirs known before the command that did not exist then. */
  readonly absent: readonly string[];
  /** The git dirs known before the command, with the nested git dirs they held. */
  readonly gitDirs: readonly { readonly path: string; readonly nested: readonly string[] }[];
  /** `<root>/.git` of each writable root that had none: one that appears is a repository the command made. */
  readonly newRepositories: readonly string[];
  /**
   * The state of an operation in progress that names commands or programs (a rebase's or a
   * cherry-pick's todo, a merge strategy), as it was before the command: null where there was none.
   */
  readonly operations: readonly { readonly path: string; readonly before: string | null }[];
  /** Each root's repository as it was: its git dir, and its index's identity (null: none). */
  readonly repositories: readonly {
    readonly root: string;
    readonly gitDir: string;
    readonly index: string | null;
    /** The paths of the index's gitlinks (nested repositories), as they were. */
    readonly gitlinks: readonly string[];
  }[];
}

export type { SpawnSpec };

export type Availability = { available: true } | { available: false; reason: string; fix: string };

/**
 * A sandbox backend: where and how a command runs under the rules. A local backend (bwrap, Landlock,
 * Seatbelt) rewrites the spawn (`transform`) and the command starts on this machine; a remote one (a
 * command on another host, in a container or a pod, through `conch-agent`) starts it there itself
 * (`host`). A backend has exactly one of the two.
 */
export type SandboxBackend = LocalSandboxBackend | RemoteSandboxBackend;

interface BackendBase {
  /** `bwrap` (Linux), `seatbelt` (macOS), ... — the value of `CONCH_SANDBOX` in the child. */
  readonly name: string;
  readonly platform: NodeJS.Platform;
  /** Whether this backend can sandbox here, and if not, why and how to fix it. Cached by the backend. */
  available(): Promise<Availability>;
}

export interface LocalSandboxBackend extends BackendBase {
  /**
   * `spec` rewritten to run under `rules`; `options.tty` for PTY sessions (no new session).
   * `options.reportLeftovers` (a one-shot command): where the backend can, the processes the command
   * leaves running when it exits are stopped and named, a line `PID NAME` each, on the returned spec's
   * `reportFd`. `options.proxyPort`: the loopback port of the command's own endpoint of Conch's network
   * proxy (from `listenInside`), for a backend whose commands share the host's network (Seatbelt lets
   * the command connect to that port alone).
   */
  transform(
    spec: SpawnSpec,
    rules: SandboxRules,
    options?: { tty?: boolean; reportLeftovers?: boolean; proxyPort?: number },
  ): Promise<SpawnSpec>;
  /**
   * A listener inside the network namespace the backend's commands share when the network is not the
   * host's (on a loopback port there, accepted by this process): where one command reaches Conch's
   * network proxy. Absent: each command has a namespace of its own with no way out.
   */
  listenInside?(): Promise<Server>;
  readonly host?: undefined;
}

export interface RemoteSandboxBackend extends BackendBase {
  readonly transform?: undefined;
  /** Where its commands run: the operations of the `conch-exec/1` protocol. */
  readonly host: ProcessHost;
}

/**
 * A place that runs commands for a remote backend, under rules it enforces itself (its own sandbox, or
 * the pod as the sandbox when its operator says so). Output is numbered, so that a reader that lost
 * its connection reads on from where it was, and writes carry an id, so that one sent twice is typed
 * once.
 */
export interface ProcessHost {
  /** Where its commands run, said in every result (e.g. `agent a1 at ws://10.0.0.5:7000`). */
  readonly where: string;
  /**
   * What every result of its commands says besides where they ran, once it is known (e.g. that the pod
   * is their only sandbox), or null.
   */
  readonly note?: () => string | null;
  /**
   * The sandbox its commands run in when it is not the backend's own, for results and the audit log:
   * `pod` where the pod or container is their only sandbox; null otherwise.
   */
  readonly sandboxName?: () => string | null;
  /**
   * Starts `spec` under `rules`; rejects with `SANDBOX_UNAVAILABLE` when the other side cannot enforce
   * them (fail closed: nothing runs).
   */
  start(request: HostStartRequest): Promise<HostProcess>;
  /**
   * A process started earlier under `id` (by a conchd that has since restarted), found again with its
   * output from where it was; null when the host no longer has it.
   */
  attach(id: string): Promise<HostProcess | null>;
  /** The host's processes (running, or exited with output not yet acknowledged), with their workspace. */
  list(): Promise<readonly { readonly id: string; readonly running: boolean; readonly workspace: string }[]>;
}

export interface HostStartRequest {
  /** The process's id on the host, unique for the host's life: the caller keeps it to attach again. */
  readonly id: string;
  readonly spec: SpawnSpec;
  readonly rules: SandboxRules;
  /** The session's workspace (canonical): what `rules` were resolved for; `spec.cwd` only starts there. */
  readonly workspace: string;
  /** A terminal (PTY) session, else pipes. */
  readonly tty: boolean;
  /** A terminal's size. */
  readonly size?: { readonly cols: number; readonly rows: number };
}

/** One numbered piece of a process's output. */
export interface HostOutputChunk {
  readonly seq: number;
  readonly stream: "stdout" | "stderr";
  readonly data: Uint8Array;
}

export interface HostExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The other side saw its sandbox refuse something the command did. */
  readonly sandboxDenied: boolean;
}

export interface HostRead {
  readonly chunks: readonly HostOutputChunk[];
  /** The `fromSeq` to read on from. */
  readonly nextSeq: number;
  /** Bytes the host's bounded buffer dropped before they were read, said as such to the model. */
  readonly droppedBytes: number;
  /** Set once the process has exited and every chunk before its exit was read. */
  readonly exit: HostExit | null;
}

/** A command a `ProcessHost` started. */
export interface HostProcess {
  readonly id: string;
  /** Output from `fromSeq` on; waits up to `waitMs` (0 by default) for the first chunk or the exit. */
  read(fromSeq: number, options?: { readonly waitMs?: number }): Promise<HostRead>;
  /** Writes to its input; the same `writeId` twice writes once. */
  write(data: Uint8Array, writeId: string): Promise<void>;
  signal(signal: NodeJS.Signals): Promise<void>;
  resize(cols: number, rows: number): Promise<void>;
  /** Ends the process and everything it started; resolves with how it ended. */
  terminate(): Promise<HostExit>;
  /** The caller has kept everything up to `seq` (its audit log has it): the host may forget it. */
  ack(seq: number): Promise<void>;
}
