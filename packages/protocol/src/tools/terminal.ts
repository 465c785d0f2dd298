// The `terminal` profile (DeepSeek harness shape), parsed: explicit open/write/read/signal/close/list over
// the same session store as exec_command, so `id` is a session id from 1000–99999.

export const TERMINAL_SIGNALS = ["INT", "TERM", "KILL", "HUP"] as const;
export type TerminalSignal = (typeof TERMINAL_SIGNALS)[number];

export interface TerminalOpenParams {
  command: string;
  cwd?: string | undefined;
  tty: boolean;
}

export interface TerminalWriteParams {
  id: number;
  input: string;
}

export interface TerminalReadParams {
  id: number;
  wait_ms: number;
}

export interface TerminalSignalParams {
  id: number;
  signal: TerminalSignal;
}

export interface TerminalCloseParams {
  id: number;
}

/** terminal_list takes no arguments. */
export type TerminalListParams = Record<string, never>;
