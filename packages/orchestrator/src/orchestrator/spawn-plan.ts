// What a command spawns as, decided before the approval: its argv (a login-shell command may run with
// the user's shell snapshot instead), and the PATH and writable roots its programs resolve against.
import { lstatSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { ProgramLookup } from "@conch/approval";
import { buildEnv, type EnvPolicy, run as execRun, inheritedVariableFilter } from "@conch/exec-core";
import {
  environmentDenyRead,
  type GitHostExposure,
  gitHostExposure,
  type PreparedSandbox,
  type SandboxPolicy,
  type SpawnSpec,
} from "@conch/sandbox-core";
import { detectShell, type Shell, type ShellRun } from "@conch/shell-detect";
import type { SnapshotNames } from "../runtime/shell-snapshots.js";
import type { CommandRequest, ShellSnapshotSource } from "./types.js";

/** What a command spawns as, decided once per call: its argv, and the PATH its programs resolve in. */
export interface SpawnPlan {
  readonly argv: readonly string[];
  /** Null for a login shell whose profile sets PATH unread by Conch. */
  readonly path: string | null;
  /** Run with git's hooks and fsmonitor off (`withHostGitGuard`): outside the sandbox by a rule. */
  readonly hostGitGuard?: boolean;
  /** With `hostGitGuard`: the repository checked before the run, pinned for every git the command starts. */
  readonly gitRepository?: GitRepositoryPin;
}

/** A repository as `gitHostExposure` found it: given to git as `GIT_DIR` and `GIT_WORK_TREE`. */
export interface GitRepositoryPin {
  readonly gitDir: string;
  readonly top: string | null;
}

export interface SpawnPlannerOptions {
  readonly cwd: string;
  readonly sandboxPolicy: SandboxPolicy;
  /** The session's sandbox, prepared once; rejects with `SANDBOX_UNAVAILABLE` when it cannot run here. */
  readonly sandbox: () => Promise<PreparedSandbox>;
  readonly env: EnvPolicy | undefined;
  readonly shellSnapshots: ShellSnapshotSource | null;
}

export class SpawnPlanner {
  readonly #options: SpawnPlannerOptions;
  #programRoots: string[] | null = null;
  #userShell: Shell | null = null;

  constructor(options: SpawnPlannerOptions) {
    this.#options = options;
  }

  /**
   * What spawns: `argv`, or for a login-shell command the same script run non-login with the user's
   * shell snapshot (the profile's effect, captured once, in the sandbox), when there is one; and the
   * PATH its programs resolve in (null when a login shell's profile may set it: not known).
   */
  async plan(request: CommandRequest): Promise<SpawnPlan> {
    const given: SpawnPlan = {
      argv: [...request.argv],
      path: request.loginShell === undefined ? this.#basePath() : null,
    };
    const snapshots = this.#options.shellSnapshots;
    if (snapshots !== null) await this.#hideWhatUserShellNames(snapshots);
    if (request.loginShell === undefined || request.script === undefined || snapshots === null) {
      return given;
    }
    // A shell the model named from the workspace is its own program, not the user's shell: no snapshot.
    if (this.#inSessionRoots(request.loginShell.path)) return given;
    const use = await snapshots.use(request.loginShell, request.script, {
      run: (argv, options) => this.#runCapture(argv, options),
      writableRoots: this.#sessionRoots(),
    });
    if (use.names !== undefined) await this.#hideWhatSnapshotNames(use.names);
    if (!use.ok) return given;
    return { argv: use.argv, path: use.pathVariable ?? this.#basePath() };
  }

  /**
   * Hides what the user's own shell (`detectShell`) names from every sandboxed command, login shell or
   * not, argv tools too: its snapshot (captured now if need be, then kept) reports the HISTFILE and the
   * credential paths (KUBECONFIG, GNUPGHOME…) the profile set, which the default deny list and the
   * environment Conch started with may not know.
   */
  async #hideWhatUserShellNames(snapshots: ShellSnapshotSource): Promise<void> {
    const mode = this.#options.sandboxPolicy.mode;
    if (mode !== "read-only" && mode !== "workspace-write") return;
    try {
      this.#userShell ??= detectShell();
    } catch {
      // No shell of the user's: no profile of theirs to learn from.
      return;
    }
    if (this.#inSessionRoots(this.#userShell.path)) return;
    const use = await snapshots.use(this.#userShell, ":", {
      run: (argv, options) => this.#runCapture(argv, options),
      writableRoots: this.#sessionRoots(),
    });
    if (use.names !== undefined) await this.#hideWhatSnapshotNames(use.names);
  }

  /**
   * Hides, from this command on, the history file a shell writes whatever the profile named it
   * (`HISTFILE=~/.local/state/zsh/hist`, or a path outside the home; a directory is no history file
   * and is left alone), and the credentials its exported paths move (`environmentDenyRead`).
   */
  async #hideWhatSnapshotNames(names: SnapshotNames): Promise<void> {
    const history = names.historyFile;
    const isDirectory = history !== undefined && lstatSync(history, { throwIfNoEntry: false })?.isDirectory();
    const patterns = environmentDenyRead({
      ...names.exportedPaths,
      HISTFILE: isDirectory === true ? undefined : history,
    });
    if (patterns.length === 0) return;
    let prepared: PreparedSandbox;
    try {
      prepared = await this.#options.sandbox();
    } catch {
      // No sandbox, no command: the spawn reports why.
      return;
    }
    prepared.workspace.denyRead(patterns);
  }

  /**
   * Whether `request`, which an allow rule runs outside the sandbox with nobody asked, would have its
   * gits run something a sandboxed command wrote (`gitHostExposure`): config in a repository the agent
   * made, a submodule's, a global config in the workspace. What a sandboxed command could have written:
   * the session's writable roots, as the sandbox finds them now, and the workspace's private `/tmp` (a
   * `.git` file may name its host path). The host git guard's keys are given on top of every file.
   */
  async hostGitExposure(request: CommandRequest): Promise<GitHostExposure> {
    const roots = new Set(this.#sessionRoots());
    try {
      const rules = (await this.#options.sandbox()).workspace.rules();
      for (const { root } of rules.writableRoots) roots.add(root);
      if (rules.tmp.kind === "private") roots.add(rules.tmp.source);
    } catch (error) {
      // Fail closed: roots that are not known now may hold anything.
      return {
        exposed: true,
        reason: `the sandbox's writable roots are not known: ${(error as Error).message}`,
      };
    }
    return gitHostExposure({
      cwd: request.cwd,
      writableRoots: [...roots],
      env: buildEnv(this.#options.env),
      // A script's words, or each argv word read as one (`bash -c "cd sub && git commit"`).
      words: request.script === undefined ? request.argv.flatMap(shellWords) : shellWords(request.script),
    });
  }

  /** Whether a login-shell command in `shell` runs with its snapshot (capturing it now if needed), or why not. */
  async snapshotStatus(shell: Shell): Promise<{ ok: true; file: string } | { ok: false; reason: string }> {
    const snapshots = this.#options.shellSnapshots;
    if (snapshots === null) return { ok: false, reason: "shell snapshots are off (shell_snapshot = false)" };
    const use = await snapshots.use(shell, ":", {
      run: (argv, options) => this.#runCapture(argv, options),
      writableRoots: this.#sessionRoots(),
    });
    return use.ok ? { ok: true, file: use.file } : { ok: false, reason: use.reason };
  }

  /**
   * Where the command's programs resolve, for the approval: the PATH it will run with, and what a
   * sandboxed command could have written (the session's writable roots). A program planted there
   * (`.venv/bin/cat`) is not the one the rules and the known-safe list mean. A login shell without a
   * snapshot gets its PATH from a profile Conch has not read: not known, so nothing leaves the sandbox.
   */
  programLookup(cwd: string, plan: SpawnPlan): ProgramLookup {
    return {
      path: plan.path ?? this.#basePath(),
      cwd,
      writableRoots: this.#sessionRoots(),
      ...(plan.path === null ? { pathKnown: false } : {}),
    };
  }

  /** The PATH a command starts with, as the environment policy builds it (`buildEnv`). */
  #basePath(): string {
    const policy = this.#options.env;
    const set = policy?.set?.PATH;
    if (set !== undefined) return set;
    const inherited = process.env.PATH;
    return inherited !== undefined && inheritedVariableFilter(policy)("PATH", inherited) ? inherited : "";
  }

  /**
   * Runs a snapshot capture (the user's login shell, and the check that the snapshot loads) in the
   * sandbox, read-only but for the capture's own work directory, with no network: startup files run
   * programs a sandboxed command could have written. No sandbox only where the policy runs none.
   */
  async #runCapture(
    argv: readonly string[],
    options: {
      cwd: string;
      env: Readonly<Record<string, string>>;
      timeoutMs: number;
      output: boolean;
      writable: string;
    },
  ): Promise<ShellRun> {
    let prepare: ((spec: SpawnSpec) => Promise<SpawnSpec>) | null;
    try {
      const prepared = await this.#options.sandbox();
      prepare =
        prepared.backend === null
          ? null
          : prepared.spawnHook({
              rules: {
                ...prepared.workspace.rules(),
                writableRoots: [{ root: realpathSync(options.writable), readOnlySubpaths: [] }],
                tmp: { kind: "empty", targets: ["/tmp"] },
                network: false,
              },
            });
    } catch (error) {
      // Fail closed: no sandbox (or a writable root that moved) means no capture, never one outside it.
      return { outcome: "failed", error: error as Error };
    }
    try {
      const result = await execRun(
        {
          argv: [...argv],
          cwd: options.cwd,
          env: { inherit: "none", set: { ...options.env } },
          timeoutMs: options.timeoutMs,
        },
        prepare === null ? {} : { prepare },
      );
      if (result.timedOut) return { outcome: "timed-out" };
      return {
        outcome: "exited",
        code: result.signal === null ? result.exitCode : null,
        signal: result.signal as NodeJS.Signals | null,
        stdout: options.output ? result.stdout : "",
        stderr: options.output ? result.stderr : "",
      };
    } catch (error) {
      return { outcome: "failed", error: error as Error };
    }
  }

  #inSessionRoots(path: string): boolean {
    let real = path;
    try {
      real = realpathSync(path);
    } catch {
      // A shell that does not exist fails when it is spawned.
    }
    return [path, real].some((candidate) =>
      this.#sessionRoots().some(
        (root) => candidate === root || candidate.startsWith(root === "/" ? "/" : `${root}/`),
      ),
    );
  }

  /** The session's writable roots, canonical: what a sandboxed command could have written. */
  #sessionRoots(): string[] {
    const { cwd, sandboxPolicy } = this.#options;
    this.#programRoots ??= [
      cwd,
      ...(sandboxPolicy.mode === "workspace-write" ? (sandboxPolicy.writableRoots ?? []) : []),
    ]
      .map((root) => resolve(cwd, root))
      .map((root) => {
        try {
          return realpathSync(root);
        } catch {
          return root;
        }
      });
    return this.#programRoots;
  }
}

/**
 * A script's words, roughly: split at blanks and shell syntax, quotes and backslashes dropped
 * (`g"i"t -c` is `git -c`). Enough for `gitHostExposure`'s look at options and assignments, where a
 * false word only asks the person.
 */
function shellWords(script: string): string[] {
  return (
    script
      .split(/[\s;&|()<>`]+/)
      // `$'cd'` and `$"cd"` are bash's quotes too.
      .map((word) => word.replace(/\$(?=["'])/g, "").replace(/["'\\]/g, ""))
      .filter((word) => word !== "")
  );
}
