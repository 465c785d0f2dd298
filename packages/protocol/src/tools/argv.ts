/** The `argv` profile's `shell` (Mini Codex shape), parsed: an argv array and nothing a shell could parse. */
export interface ArgvShellParams {
  argv: string[];
  cwd?: string | undefined;
  timeout_seconds: number;
}
