import { statSync } from "node:fs";
import { resolve } from "node:path";
import { CONFIG_SANDBOX_MODES, type ConfigSandboxMode } from "@conch/orchestrator";
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  expectedReceived,
  TOOL_PROFILE_NAMES,
  type ToolProfileName,
} from "@conch/protocol";

/** How to serve: each field left out falls back to the config (`~/.config/conch/config.toml`, project). */
export interface ServeOptions {
  readonly cwd: string;
  /** The version the server reports to clients (conchd's, or conch's for `conch mcp`). */
  readonly version: string;
  readonly profile?: ToolProfileName;
  readonly approvalPolicy?: ApprovalPolicy;
  readonly sandbox?: ConfigSandboxMode;
  /** The user config file to read instead of `~/.config/conch/config.toml` (`--config`). */
  readonly configPath?: string;
}

/** The options `conchd` and `conch mcp` share, as given on the command line, before they are checked. */
export interface ServeFlags {
  readonly cwd?: string | undefined;
  readonly profile?: string | undefined;
  readonly approval?: string | undefined;
  readonly sandbox?: string | undefined;
  readonly config?: string | undefined;
}

/**
 * The one reading of the flags `conchd` and `conch mcp` share: `--cwd DIR` (an existing directory,
 * relative to where the process started; `defaultCwd()` without it), `--profile`, `--approval` and
 * `--sandbox` (one of theirs) and `--config FILE` (an existing file). A wrong one goes to `fail` with
 * a message that names the flag and what it expected (`--sandbox: expected one of read-only,
 * workspace-write, danger-full-access, received "all"`), for the app to report as its usage error.
 */
export function serveOptionsFromFlags(
  flags: ServeFlags,
  defaultCwd: () => string,
  fail: (message: string) => never,
): Omit<ServeOptions, "version"> {
  const oneOf = <T extends string>(flag: string, choices: readonly T[], value: string): T =>
    (choices as readonly string[]).includes(value)
      ? (value as T)
      : fail(expectedReceived(`--${flag}`, `one of ${choices.join(", ")}`, value));
  const cwd = resolve(flags.cwd ?? defaultCwd());
  if (statSync(cwd, { throwIfNoEntry: false })?.isDirectory() !== true) {
    fail(`--cwd: no such directory: ${cwd}`);
  }
  const config = flags.config === undefined ? undefined : resolve(flags.config);
  if (config !== undefined && statSync(config, { throwIfNoEntry: false })?.isFile() !== true) {
    fail(`--config: no such file: ${config}`);
  }
  return {
    cwd,
    ...(flags.profile === undefined ? {} : { profile: oneOf("profile", TOOL_PROFILE_NAMES, flags.profile) }),
    ...(flags.approval === undefined
      ? {}
      : { approvalPolicy: oneOf("approval", APPROVAL_POLICIES, flags.approval) }),
    ...(flags.sandbox === undefined
      ? {}
      : { sandbox: oneOf("sandbox", CONFIG_SANDBOX_MODES, flags.sandbox) }),
    ...(config === undefined ? {} : { configPath: config }),
  };
}
