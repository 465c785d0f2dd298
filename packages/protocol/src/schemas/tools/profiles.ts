import type { z } from "zod";
import type { ToolProfileName } from "../../tools/profiles.js";
import { ArgvShellSchema } from "./argv.js";
import { BashSchema } from "./bash.js";
import {
  ExecCommandSchema,
  ListSessionsSchema,
  ShellCommandSchema,
  ShellSchema,
  WriteStdinSchema,
} from "./codex.js";
import {
  TerminalCloseSchema,
  TerminalListSchema,
  TerminalOpenSchema,
  TerminalReadSchema,
  TerminalSignalSchema,
  TerminalWriteSchema,
} from "./terminal.js";

/** Each tool surface of DESIGN.md §3: profile → tool name → input schema. `codex` is the default. */
export const TOOL_PROFILES = {
  codex: {
    shell_command: ShellCommandSchema,
    exec_command: ExecCommandSchema,
    write_stdin: WriteStdinSchema,
    shell: ShellSchema,
    list_sessions: ListSessionsSchema,
  },
  bash: {
    bash: BashSchema,
  },
  terminal: {
    terminal_open: TerminalOpenSchema,
    terminal_write: TerminalWriteSchema,
    terminal_read: TerminalReadSchema,
    terminal_signal: TerminalSignalSchema,
    terminal_close: TerminalCloseSchema,
    terminal_list: TerminalListSchema,
  },
  argv: {
    shell: ArgvShellSchema,
  },
} as const satisfies Record<ToolProfileName, Record<string, z.ZodObject>>;
