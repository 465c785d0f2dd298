import { spawn } from "node:child_process";

export type ShellRun =
  | {
      readonly outcome: "exited";
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly stdout: string;
      readonly stderr: string;
    }
  | { readonly outcome: "timed-out" }
  | { readonly outcome: "failed"; readonly error: Error };

/**
 * How a capture runs a shell: by default `runShell`, on the host; a caller that sandboxes commands
 * passes one that runs it in the sandbox, where `writable` is the one directory the run may write (the
 * capture's work files).
 */
export type ShellRunner = (
  argv: readonly string[],
  options: RunShellOptions & { readonly writable: string },
) => Promise<ShellRun>;

export interface RunShellOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Collect stdout and stderr (bounded); otherwise both go to /dev/null. */
  readonly output: boolean;
}

const MAX_OUTPUT = 64 * 1024;
// After the shell exits, how long a pipe still held by something it left behind may keep us waiting.
const DRAIN_MS = 1000;

/**
 * Runs `argv` with stdin on /dev/null, in a new session and so its own process group, which is killed
 * (SIGKILL) at the deadline and again once the shell has exited: whatever a startup file started in the
 * group without detaching does not outlive the run. Programs that made their own session on purpose
 * (ssh-agent, gpg-agent) are left alone.
 */
export function runShell(argv: readonly string[], options: RunShellOptions): Promise<ShellRun> {
  const [file = "", ...args] = argv;
  return new Promise((resolve) => {
    const stdio = options.output ? "pipe" : "ignore";
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["ignore", stdio, stdio],
      });
    } catch (error) {
      resolve({ outcome: "failed", error: error as Error });
      return;
    }
    const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const sizes = { stdout: 0, stderr: 0 };
    for (const name of ["stdout", "stderr"] as const) {
      child[name]?.on("data", (chunk: Buffer) => {
        if (sizes[name] < MAX_OUTPUT) chunks[name].push(chunk.subarray(0, MAX_OUTPUT - sizes[name]));
        sizes[name] += chunk.length;
      });
    }
    let timedOut = false;
    let settled = false;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const finish = (run: ShellRun): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(run);
    };
    child.on("error", (error) => {
      killGroup();
      finish({ outcome: "failed", error });
    });
    child.on("exit", (code, signal) => {
      killGroup();
      const done = (): void =>
        finish(
          timedOut
            ? { outcome: "timed-out" }
            : {
                outcome: "exited",
                code,
                signal,
                stdout: Buffer.concat(chunks.stdout).toString("utf8"),
                stderr: Buffer.concat(chunks.stderr).toString("utf8"),
              },
        );
      if (!options.output) {
        done();
        return;
      }
      const drain = setTimeout(done, DRAIN_MS);
      child.on("close", () => {
        clearTimeout(drain);
        done();
      });
    });
  });
}
