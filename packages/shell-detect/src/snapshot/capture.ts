import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { userInfo } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { invalidRequestError, ShellDetectError } from "../errors.js";
import type { Shell } from "../shell-type.js";
import { captureScript } from "./capture-scripts.js";
import { type CaptureRecords, parseCaptureOutput } from "./records.js";
import { type KeepVariable, PROBE_OUTPUT, PROBE_VARIABLE, renderSnapshot } from "./render.js";
import { runShell, type ShellRunner } from "./run-shell.js";
import {
  isSnapshotShellType,
  type ShellSnapshot,
  type SnapshotShellType,
  unsupportedSnapshotReason,
} from "./shell-snapshot.js";
import { snapshotExecArgs } from "./snapshot-exec-args.js";
import { startupFiles, statSource } from "./sources.js";
import {
  createWorkDir,
  installSnapshot,
  prepareDir,
  readCaptureFile,
  snapshotPath,
  writeNewFile,
} from "./store.js";

const DEFAULT_CAPTURE_TIMEOUT_MS = 10_000;
const MAX_MS = 2_147_483_647;
const OPTION_NAMES: ReadonlySet<string> = new Set(["dir", "env", "keep", "timeoutMs", "workDir", "run"]);

export interface CaptureShellSnapshotOptions {
  /** Where the snapshot is written: an absolute path, created (0700) if missing. */
  readonly dir: string;
  /** The environment the login shell starts with: the user's real one, HOME included. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Which exported variables the snapshot may carry: pass the environment policy, so a profile's
   * `export OPENAI_API_KEY=…` reaches no command unless the policy allows it, and reject every name
   * the caller sets itself (TERM, PAGER, LANG, TMPDIR…), which the snapshot would otherwise override.
   */
  readonly keep: KeepVariable;
  /** The login shell's whole process group is killed at this deadline. Default 10000. */
  readonly timeoutMs?: number;
  /**
   * Where a capture's work files go, in a private directory of their own, deleted after: the raw
   * capture holds every exported variable before `keep` filters it, so put it where no sandboxed
   * command can look (default: `dir`).
   */
  readonly workDir?: string;
  /**
   * How the shell is run (the capture and the check that the snapshot loads): by default on the host.
   * Startup files can run programs a sandboxed command could have written (a PATH entry in the
   * workspace, a dotfile symlinked into it): pass a runner that sandboxes it.
   */
  readonly run?: ShellRunner;
}

export type CaptureShellSnapshotResult =
  | { readonly ok: true; readonly snapshot: ShellSnapshot }
  | { readonly ok: false; readonly reason: string };

interface CaptureOptions {
  readonly dir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly keep: KeepVariable;
  readonly timeoutMs: number;
  readonly workDir: string;
  readonly run: ShellRunner;
}

/**
 * Runs the user's shell once, outside any sandbox, as a login and interactive shell, which is what a
 * terminal loads: login for the PATH and version managers set up in ~/.profile, ~/.bash_profile or
 * ~/.zprofile; interactive because ~/.bashrc (Debian's returns at once without `i` in `$-`) and
 * ~/.zshrc, where nvm, pyenv, conda and oh-my-zsh install themselves, are read only then. stdin is
 * /dev/null and whatever the startup files print is discarded; the state they leave is written to a
 * snapshot file in `dir`.
 *
 * A capture that fails resolves `{ ok: false, reason }`, a sentence saying what to fix; it rejects
 * only for bad arguments (INVALID_REQUEST) or with what `keep` throws.
 */
export async function captureShellSnapshot(
  shell: Shell,
  options: CaptureShellSnapshotOptions,
): Promise<CaptureShellSnapshotResult> {
  const own = normalizeOptions(shell, options);
  const { type, path: shellPath } = shell;
  if (!isSnapshotShellType(type)) {
    return failure(unsupportedSnapshotReason(type));
  }
  if (process.platform === "win32") {
    return failure("shell snapshots need a POSIX system; this is Windows");
  }
  if (shellPath.includes("=")) {
    return failure(
      `cannot snapshot ${JSON.stringify(shellPath)}: a shell path with "=" cannot be run through env`,
    );
  }
  const capturedAt = Date.now();
  const home = own.env.HOME || homeOfUser();
  const before = startupFiles(type, home, zdotdirs(own.env.ZDOTDIR), own.env.ENV).map(statSource);
  const dirProblem = await prepareDir(own.dir);
  if (dirProblem !== undefined) return failure(dirProblem);
  let work: string;
  try {
    work = await createWorkDir(own.workDir);
  } catch (error) {
    return failure(`cannot write in the snapshot directory ${JSON.stringify(own.dir)}: ${message(error)}`);
  }
  try {
    const cwd = isDirectory(home) ? home : "/";
    const captured = await runCapture(type, shellPath, work, cwd, own);
    if (!captured.ok) return captured;
    const { records } = captured;
    const content = Buffer.from(renderSnapshot(type, shellPath, records, own.keep), "latin1");
    const trial = join(work, type === "zsh" ? ".zshenv" : "snapshot.sh");
    await writeNewFile(trial, content);
    const loadProblem = await checkSnapshotLoads({ type, path: shellPath }, trial, cwd, own);
    if (loadProblem !== undefined) return failure(loadProblem);
    const hash = createHash("sha256")
      .update(shellPath)
      .update("\0")
      .update(content)
      .digest("hex")
      .slice(0, 16);
    const path = snapshotPath(own.dir, type, hash);
    await installSnapshot(trial, path, type, own.dir);
    const seen = new Map(before.map((source) => [source.path, source]));
    const capturedEnv = records.env.find(({ name }) => name === "ENV")?.value;
    const envFile = capturedEnv === undefined ? own.env.ENV : utf8(capturedEnv);
    const zdotdir = records.zdotdir === undefined ? undefined : utf8(records.zdotdir);
    const sources = startupFiles(type, home, zdotdirs(own.env.ZDOTDIR, zdotdir), envFile).map(
      (file) => seen.get(file) ?? statSource(file),
    );
    const exportedPath = records.env.find(({ name }) => name === "PATH");
    const pathVariable =
      exportedPath === undefined || !own.keep("PATH", utf8(exportedPath.value))
        ? null
        : utf8(exportedPath.value);
    const historyFile = records.histfile === undefined ? null : resolve(cwd, utf8(records.histfile));
    const exportedPaths: Record<string, string> = {};
    for (const { name, value } of records.env) {
      if (value.startsWith("/")) exportedPaths[name] = utf8(value);
    }
    return {
      ok: true,
      snapshot: {
        shell: { type, path: shellPath },
        path,
        capturedAt,
        sources,
        pathVariable,
        historyFile,
        exportedPaths,
      },
    };
  } catch (error) {
    // A file system error is the capture's to report; anything else (a keep that throws) the caller's.
    if (typeof (error as NodeJS.ErrnoException).code !== "string") throw error;
    return failure(`cannot write the snapshot in ${JSON.stringify(own.dir)}: ${message(error)}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function runCapture(
  type: SnapshotShellType,
  shellPath: string,
  work: string,
  cwd: string,
  options: CaptureOptions,
): Promise<
  { readonly ok: true; readonly records: CaptureRecords } | { readonly ok: false; readonly reason: string }
> {
  const outPath = join(work, "capture");
  await writeNewFile(outPath, "");
  const argv = [shellPath, "-l", "-i", "-c", captureScript(type, outPath)];
  const run = await options.run(argv, {
    cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    output: false,
    writable: work,
  });
  const hint = `run "${shellPath} -l -i -c true" in a terminal to see what the startup files do`;
  switch (run.outcome) {
    case "failed":
      return failure(`cannot start the login shell ${shellPath}: ${run.error.message}`);
    case "timed-out":
      return failure(
        `the login shell did not finish within ${options.timeoutMs} ms (its process group was killed): ` +
          `a startup file hangs or waits for input; ${hint}`,
      );
  }
  const output = await readCaptureFile(outPath);
  if (output === undefined) return failure("the capture is larger than 64 MiB");
  const records = parseCaptureOutput(output);
  if (records !== undefined) return { ok: true, records };
  const ended =
    run.signal !== null
      ? `was killed by ${run.signal}`
      : run.code !== 0
        ? `exited with code ${run.code}`
        : "";
  if (output.length === 0) {
    return failure(
      ended === ""
        ? `the login shell exited without running the capture script: a startup file replaces the shell ` +
            `with another program (exec) or exits; ${hint}`
        : `the login shell ${ended} before the capture script ran: a startup file exits or fails; ${hint}`,
    );
  }
  return failure(
    ended === ""
      ? "the capture script's output is incomplete or invalid"
      : `the login shell ${ended} before the capture finished; ${hint}`,
  );
}

/**
 * Runs `:` through the exact argv commands will get, with the probe variable set: the snapshot must
 * print its probe line and nothing else. This catches a snapshot that does not parse (its error would
 * otherwise start every command's output) and a zsh whose /etc/zshenv sets ZDOTDIR, so that the
 * snapshot would never be read.
 */
async function checkSnapshotLoads(
  shell: { readonly type: SnapshotShellType; readonly path: string },
  trial: string,
  cwd: string,
  options: CaptureOptions,
): Promise<string | undefined> {
  const argv = snapshotExecArgs(
    {
      shell,
      path: trial,
      capturedAt: 0,
      sources: [],
      pathVariable: null,
      historyFile: null,
      exportedPaths: {},
    },
    ":",
  );
  const env = { ...options.env, [PROBE_VARIABLE]: "1" };
  const run = await options.run(argv, {
    cwd,
    env,
    timeoutMs: options.timeoutMs,
    output: true,
    writable: dirname(trial),
  });
  const where = `a non-login ${shell.path}`;
  switch (run.outcome) {
    case "failed":
      return `cannot run ${argv[0]} to check the snapshot: ${run.error.message}`;
    case "timed-out":
      return `the snapshot did not load within ${options.timeoutMs} ms in ${where}`;
  }
  const { code, stdout, stderr } = run;
  if (code === 0 && stdout === "" && stderr === PROBE_OUTPUT) return undefined;
  const printed = `${stderr.replace(PROBE_OUTPUT, "")}${stdout}`
    .split("\n")
    .find((line) => line.trim() !== "");
  if (printed !== undefined) return `the snapshot does not load cleanly in ${where}: ${printed.trim()}`;
  if (!stderr.includes(PROBE_OUTPUT)) {
    const zsh = shell.type === "zsh" ? " (does /etc/zshenv or /etc/zsh/zshenv set ZDOTDIR?)" : "";
    return `${where} did not load the snapshot${zsh}`;
  }
  return `the snapshot check in ${where} ended with ${run.signal ?? `code ${code}`}`;
}

function normalizeOptions(shell: Shell, options: CaptureShellSnapshotOptions): CaptureOptions {
  if (typeof shell !== "object" || shell === null || typeof shell.type !== "string") {
    throw invalidRequestError("shell", "a Shell ({ type, path })", shell);
  }
  if (typeof shell.path !== "string" || !isAbsolute(shell.path)) {
    throw invalidRequestError("shell.path", "an absolute path", shell.path);
  }
  if (typeof options !== "object" || options === null) {
    throw invalidRequestError("options", "an object", options);
  }
  const own: Partial<CaptureShellSnapshotOptions> = Object.assign(Object.create(null), options);
  for (const key of Object.keys(own)) {
    if (!OPTION_NAMES.has(key)) {
      throw new ShellDetectError(
        "INVALID_REQUEST",
        `invalid request: options.${key}: unknown option (expected one of ${[...OPTION_NAMES].join(", ")})`,
      );
    }
  }
  const { dir, env, keep, timeoutMs = DEFAULT_CAPTURE_TIMEOUT_MS, workDir = dir, run = runShell } = own;
  if (typeof dir !== "string" || !isAbsolute(dir)) {
    throw invalidRequestError("options.dir", "an absolute path", dir);
  }
  if (typeof env !== "object" || env === null || Array.isArray(env)) {
    throw invalidRequestError("options.env", "an object of strings", env);
  }
  const strings: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (typeof value !== "string") throw invalidRequestError(`options.env.${name}`, "a string", value);
    strings[name] = value;
  }
  if (typeof keep !== "function") {
    throw invalidRequestError("options.keep", "a function (name, value) => boolean", keep);
  }
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_MS) {
    throw invalidRequestError(
      "options.timeoutMs",
      `an integer from 1 to ${MAX_MS} (milliseconds)`,
      timeoutMs,
    );
  }
  if (typeof workDir !== "string" || !isAbsolute(workDir)) {
    throw invalidRequestError("options.workDir", "an absolute path", workDir);
  }
  if (typeof run !== "function") {
    throw invalidRequestError("options.run", "a function (argv, options) => Promise<ShellRun>", run);
  }
  return { dir, env: strings, keep, timeoutMs, workDir, run };
}

function zdotdirs(...dirs: readonly (string | undefined)[]): string[] {
  return dirs.filter((dir): dir is string => dir !== undefined && isAbsolute(dir));
}

function homeOfUser(): string {
  try {
    return userInfo().homedir;
  } catch {
    return "/";
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function failure(reason: string): { readonly ok: false; readonly reason: string } {
  return { ok: false, reason };
}

function utf8(binary: string): string {
  return Buffer.from(binary, "latin1").toString("utf8");
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
