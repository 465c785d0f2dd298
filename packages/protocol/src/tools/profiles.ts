/** The tool surfaces of DESIGN.md §3; `codex` is the default. @conch/protocol/schemas has their tools. */
export const TOOL_PROFILE_NAMES = ["codex", "bash", "terminal", "argv"] as const;
export type ToolProfileName = (typeof TOOL_PROFILE_NAMES)[number];
