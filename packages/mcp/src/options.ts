import type { ConfigSandboxMode } from "@conch/orchestrator";
import type { ApprovalPolicy, ToolProfileName } from "@conch/protocol";

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
