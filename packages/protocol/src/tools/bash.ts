/** The `bash` profile's single tool (OpenCode's shape), parsed: a script and a short description. */
export interface BashParams {
  command: string;
  description: string;
  workdir?: string | undefined;
  timeout_ms: number;
  login?: boolean | undefined;
}
