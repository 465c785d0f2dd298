import { statSync } from "node:fs";
import { resolve } from "node:path";
import { CONFIG_SANDBOX_MODES, type ConfigSandboxMode } from "@conch/orchestrator";
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  TOOL_PROFILE_NAMES,
  type ToolProfileName,
} from "@conch/protocol";
import { UsageError } from "./errors.js";

/** What conchd was asked to do: print something and exit, or serve. */
export type DaemonArgs =
  | { readonly action: "help" }
  | { readonly action: "version" }
  | { readonly action: "serve"; readonly options: ServeOptions };

/** How to serve: each field left out falls back to the config (`~/.config/conch/config.toml`, project). */
export interface ServeOptions {
  readonly cwd: string;
  readonly profile?: ToolProfileName;
  readonly approvalPolicy?: ApprovalPolicy;
  readonly sandbox?: ConfigSandboxMode;
}

const VALUE_OPTIONS = ["cwd", "profile", "approval", "sandbox"] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];

function oneOf<T extends string>(option: string, choices: readonly T[], value: string): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `--${option}: expected one of ${choices.join(", ")}, received ${JSON.stringify(value)}`,
  );
}

function directory(value: string): string {
  const cwd = resolve(value);
  if (statSync(cwd, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new UsageError(`--cwd: no such directory: ${cwd}`);
  }
  return cwd;
}

/**
 * conchd's arguments (without node and the script). `--name value` and `--name=value`; `-h` is `--help`;
 * anything else is a UsageError naming the argument as it was given. `--help` and `--version` win over
 * everything after them, as they do in most tools, but a mistake before them is still reported.
 */
export function parseDaemonArgs(args: readonly string[]): DaemonArgs {
  const values: Partial<Record<ValueOption, string>> = Object.create(null);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--help" || arg === "-h") return { action: "help" };
    if (arg === "--version") return { action: "version" };
    if (!arg.startsWith("-") || arg === "-") {
      throw new UsageError(`unexpected argument ${JSON.stringify(arg)} (conchd takes only options)`);
    }
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    if (!arg.startsWith("--") || !(VALUE_OPTIONS as readonly string[]).includes(name)) {
      throw new UsageError(`unknown option ${equals === -1 ? arg : arg.slice(0, equals)}`);
    }
    let value: string | undefined;
    if (equals === -1) {
      value = args[i + 1];
      i++;
    } else {
      value = arg.slice(equals + 1);
    }
    if (value === undefined || value === "") {
      throw new UsageError(`--${name}: expected a value${value === undefined ? "" : ', received ""'}`);
    }
    values[name as ValueOption] = value;
  }
  const options: ServeOptions = {
    cwd: directory(values.cwd ?? process.cwd()),
    ...(values.profile === undefined
      ? {}
      : { profile: oneOf("profile", TOOL_PROFILE_NAMES, values.profile) }),
    ...(values.approval === undefined
      ? {}
      : { approvalPolicy: oneOf("approval", APPROVAL_POLICIES, values.approval) }),
    ...(values.sandbox === undefined
      ? {}
      : { sandbox: oneOf("sandbox", CONFIG_SANDBOX_MODES, values.sandbox) }),
  };
  return { action: "serve", options };
}
