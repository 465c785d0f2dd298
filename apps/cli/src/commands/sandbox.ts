import {
  CONFIG_SANDBOX_MODES,
  type ConfigSandboxMode,
  conchSandboxWorkspace,
  createRuntime,
  loadConfig,
  platformSandboxRegistry,
  sandboxChoiceLines,
} from "@conch/orchestrator";
import { expectedReceived, visibleText } from "@conch/protocol";
import { type PrepareSandboxOptions, prepareSandbox, type SandboxPolicy } from "@conch/sandbox-core";
import { detectShell } from "@conch/shell-detect";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { SANDBOX_HELP } from "../help.js";
import { COMMON_SPECS, commandDirectory, executeDirect } from "./execute.js";

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

/**
 * The same sandbox a tool call in this workspace gets: its private /tmp, Conch's own files hidden and
 * protected, the config's deny_read and allow_read. Nothing of the config is read where no sandbox runs.
 */
async function workspaceOptions(cwd: string, mode: SandboxPolicy["mode"]): Promise<PrepareSandboxOptions> {
  if (mode === "danger-full-access" || mode === "external-sandbox") return {};
  return conchSandboxWorkspace(await loadConfig({ cwd }), process.env, cwd, mode as ConfigSandboxMode)
    .options;
}

/**
 * `conch sandbox --check` under config `remote`: where commands run, whether the agent answers this
 * conchd and what it can enforce there; nothing runs here. Exit status 3 (SANDBOX_UNAVAILABLE) with the
 * reason and the fix when the agent cannot be used.
 */
async function checkRemote(cwd: string, config: Awaited<ReturnType<typeof loadConfig>>): Promise<number> {
  const runtime = await createRuntime({ cwd, config, approver: null });
  try {
    const sandbox = await runtime.sandbox();
    const host = sandbox.host;
    if (host === null) throw new Error("config remote: the runtime has no remote backend");
    process.stdout.write(
      `conch sandbox: commands run on the ${host.where} (remote = "${config.remote?.engine}" in the user config); none run here
`,
    );
    const capabilities = await (
      host as { capabilities?: () => Promise<Record<string, boolean>> }
    ).capabilities?.();
    if (capabilities !== undefined) {
      const can = Object.entries(capabilities)
        .filter(([, value]) => value)
        .map(([name]) => name);
      process.stdout.write(`conch sandbox: the ${host.where} answers this conchd and has ${can.join(", ") || "nothing"}
`);
    }
    return 0;
  } finally {
    await runtime.close();
  }
}

/** What each backend is made of, for `conch sandbox --check`. */
const MECHANISMS: Readonly<Record<string, string>> = {
  bwrap: "namespaces and seccomp",
  landlock: "Landlock and seccomp",
  seatbelt: "a Seatbelt profile through /usr/bin/sandbox-exec",
};

export async function sandboxCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "sandbox", true);
  if (options.help) {
    process.stdout.write(SANDBOX_HELP);
    return 0;
  }
  // This command's own registry, as a runtime has its own: on Linux bwrap, then Landlock where bwrap
  // cannot make its namespaces (config sandbox_backend); on macOS Seatbelt; none elsewhere (fail closed).
  const cwd = commandDirectory(options.cwd, "sandbox");
  const config = await loadConfig({ cwd });
  const { sandboxBackend, limits } = config;
  const registry = platformSandboxRegistry({ backend: sandboxBackend, limits });
  if (options.check && config.remote !== null) return checkRemote(cwd, config);
  if (options.check) {
    const policy: SandboxPolicy = { mode: "workspace-write" };
    for (const line of await sandboxChoiceLines(registry, policy, sandboxBackend, limits)) {
      process.stdout.write(`conch sandbox: ${line}\n`);
    }
    const { tmpUnbounded } = conchSandboxWorkspace(
      await loadConfig({ cwd }),
      process.env,
      cwd,
      "workspace-write",
    );
    if (tmpUnbounded !== null) {
      process.stdout.write(
        `conch sandbox: limits: this workspace's /tmp is NOT bounded by tmp_mb: ${tmpUnbounded}\n`,
      );
    }
    // Throws SANDBOX_UNAVAILABLE with the reason and the fix (exit status 3) when it cannot run here.
    const sandbox = await prepareSandbox(policy, cwd, registry, await workspaceOptions(cwd, policy.mode));
    process.stdout.write(
      `conch sandbox: ${sandbox.name} works here (${MECHANISMS[sandbox.name] ?? sandbox.name})\n`,
    );
    await reportShellSnapshot(cwd);
    return 0;
  }
  if (options.sandbox !== undefined && options.policy !== undefined) {
    throw new UsageError("--sandbox and --policy are the same option: give one", "sandbox");
  }
  const flag = options.policy === undefined ? "--sandbox" : "--policy";
  const requested = options.sandbox ?? options.policy ?? "workspace-write";
  const mode = CONFIG_SANDBOX_MODES.find((known) => known === requested);
  if (mode === undefined) {
    throw new UsageError(
      expectedReceived(`${flag}`, `one of ${CONFIG_SANDBOX_MODES.join(", ")}`, requested),
      "sandbox",
    );
  }
  const roots = options["writable-root"] ?? [];
  if (mode !== "workspace-write" && (roots.length > 0 || options.network)) {
    throw new UsageError("--network and --writable-root apply only to --sandbox workspace-write", "sandbox");
  }
  if (positionals.length === 0) throw new UsageError("missing the command to run after --", "sandbox");
  const policy: SandboxPolicy =
    mode === "workspace-write"
      ? { mode, writableRoots: roots, networkAccess: options.network === true }
      : { mode };
  const sandbox = await prepareSandbox(policy, cwd, registry, await workspaceOptions(cwd, policy.mode));
  const prepare = sandbox.spawnHook();
  return executeDirect("sandbox", positionals, { ...options, cwd }, prepare === null ? undefined : prepare);
}
