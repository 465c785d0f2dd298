import { visibleText } from "@conch/approval";
import {
  CONFIG_SANDBOX_MODES,
  type ConfigSandboxMode,
  conchSandboxWorkspace,
  createRuntime,
  loadConfig,
} from "@conch/orchestrator";
import {
  createSandboxWorkspace,
  registerBackend,
  type SandboxPolicy,
  selectBackend,
} from "@conch/sandbox-core";
import { createLinuxBackend } from "@conch/sandbox-linux";
import { detectShell } from "@conch/shell-detect";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXIT_SANDBOX_UNAVAILABLE } from "../exit-codes.js";
import { SANDBOX_HELP } from "../help.js";
import { COMMON_SPECS, commandDirectory, type ExecuteOptions, executeDirect } from "./execute.js";

const SPECS = {
  ...COMMON_SPECS,
  sandbox: { type: "string" },
  // The old name, still read: every other command says --sandbox.
  policy: { type: "string" },
  network: { type: "boolean" },
  "writable-root": { type: "string", multiple: true },
  check: { type: "boolean" },
} as const;

/**
 * Whether login-shell commands get the user's snapshot, or run as login shells and why: a failed capture
 * never blocks a command, so this is where a person learns of one.
 */
async function reportShellSnapshot(cwd: string): Promise<void> {
  const runtime = await createRuntime({ cwd, approver: null });
  try {
    const shell = detectShell();
    const status = await runtime.orchestrator.shellSnapshotStatus(shell);
    process.stdout.write(
      status.ok
        ? `conch sandbox: ${shell.path}'s login environment is captured once, in the sandbox (${status.file}); commands run non-login with it\n`
        : `conch sandbox: no snapshot of ${shell.path}'s login environment, so commands run login shells: ${visibleText(status.reason)}\n`,
    );
  } finally {
    await runtime.close();
  }
}

function unavailable(reason: string, fix: string): number {
  process.stderr.write(`conch sandbox: the sandbox is unavailable: ${reason}\nfix: ${fix}\n`);
  return EXIT_SANDBOX_UNAVAILABLE;
}

export async function sandboxCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "sandbox", true);
  if (options.help) {
    process.stdout.write(SANDBOX_HELP);
    return 0;
  }
  if (process.platform === "linux") registerBackend(createLinuxBackend());
  if (options.check) {
    const backend = selectBackend({ mode: "workspace-write" });
    const availability = await backend?.available();
    if (backend === null || availability === undefined || !availability.available) {
      return unavailable(
        availability?.available === false ? availability.reason : "no backend",
        availability?.available === false ? availability.fix : "",
      );
    }
    process.stdout.write(`conch sandbox: ${backend.name} works here (namespaces and seccomp)\n`);
    await reportShellSnapshot(commandDirectory(options.cwd, "sandbox"));
    return 0;
  }
  if (options.sandbox !== undefined && options.policy !== undefined) {
    throw new UsageError("--sandbox and --policy are the same option: give one", "sandbox");
  }
  const flag = options.policy === undefined ? "--sandbox" : "--policy";
  const mode = ((options.sandbox ?? options.policy) as string | undefined) ?? "workspace-write";
  if (!(CONFIG_SANDBOX_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(
      `${flag}: expected one of ${CONFIG_SANDBOX_MODES.join(", ")}, received ${JSON.stringify(mode)}`,
      "sandbox",
    );
  }
  const roots = (options["writable-root"] as string[] | undefined) ?? [];
  if (mode !== "workspace-write" && (roots.length > 0 || options.network)) {
    throw new UsageError("--network and --writable-root apply only to --sandbox workspace-write", "sandbox");
  }
  if (positionals.length === 0) throw new UsageError("missing the command to run after --", "sandbox");
  const policy: SandboxPolicy =
    mode === "workspace-write"
      ? { mode, writableRoots: roots, networkAccess: options.network === true }
      : ({ mode } as SandboxPolicy);
  const cwd = commandDirectory(options.cwd, "sandbox");
  const backend = selectBackend(policy);
  if (backend === null) return executeDirect("sandbox", positionals, { ...(options as ExecuteOptions), cwd });
  const availability = await backend.available();
  if (!availability.available) return unavailable(availability.reason, availability.fix);
  // The same sandbox a tool call in this workspace gets: its private /tmp, Conch's own files hidden and
  // protected, the config's deny_read and allow_read.
  const config = await loadConfig({ cwd });
  const { options: workspace } = conchSandboxWorkspace(
    config,
    process.env,
    cwd,
    policy.mode as ConfigSandboxMode,
  );
  const rules = createSandboxWorkspace(policy, { ...workspace, cwd }).rules();
  return executeDirect("sandbox", positionals, { ...(options as ExecuteOptions), cwd }, (spec) =>
    backend.transform(spec, rules),
  );
}
