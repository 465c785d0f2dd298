// The shapes every part of @conch/arity-rules shares. Anything exported from index.ts is public API.

/** Why part of a script cannot be read with certainty; such a script is never auto-approved as safe. */
export const OPAQUE_REASONS = [
  "command-substitution",
  "process-substitution",
  "backticks",
  "dynamic-command-name",
  "parameter-expansion",
  "tilde-expansion",
  "ansi-c-string",
  "eval",
  "heredoc",
  "herestring",
  "subshell",
  "brace-group",
  "control-flow",
  "function-definition",
  "background",
  "assignment-prefix",
  "glob",
  "parse-error",
  "too-large",
  "too-deep",
  "unsupported-syntax",
  "zsh-syntax",
] as const;
export type OpaqueReason = (typeof OPAQUE_REASONS)[number];

export interface OpaquePart {
  reason: OpaqueReason;
  /** The source text of the construct, as written. */
  text: string;
}

/** A redirection on a simple command, e.g. `> out.txt` (write) or `< in.txt` (read). */
export interface Redirect {
  /** `read` (<), `write` (>, >|, &>, >&file), `append` (>>, &>>), `duplicate` (2>&1, >&2, <&0), `close` (>&-). */
  kind: "read" | "write" | "append" | "duplicate" | "close";
  /** The operator as written: `>`, `>>`, `<`, `&>`, `&>>`, `>&`, `<&`, `>|`, `<>`. */
  operator: string;
  /** The file descriptor written before the operator, if any (`2>`). */
  fd: number | null;
  /** The literal target (a path, or a descriptor number for `duplicate`); null when not a literal. */
  target: string | null;
  /** A target that is not a literal, as written (`/var/log/*.log`, `"$out"`): what bash expands. */
  written?: string;
}

/** One simple command of a script: its literal argv after quote removal. */
export interface SimpleCommand {
  argv: string[];
  redirects: Redirect[];
  /** The source text of the command. */
  text: string;
  /** For `bash|sh|zsh|dash -c SCRIPT` (and `-lc`), the analysis of SCRIPT. */
  nested: Analysis | null;
  /**
   * Indexes (ascending) of the argv words that are not literal: each holds its source text (`$x`,
   * `"$(pwd)"`, `*.ts`) and bash may turn it into other words. Absent when every word is literal.
   */
  dynamic?: number[];
}

/** What connects a command to the next one: `&&`, `||`, `;` (also a newline), `|`, `|&`, `&`. */
export type Operator = "&&" | "||" | ";" | "|" | "|&" | "&";

export interface Analysis {
  /** The simple commands, in source order (nested scripts are inside `SimpleCommand.nested`). */
  commands: SimpleCommand[];
  /** `operators[i]` joins `commands[i]` and `commands[i + 1]`. */
  operators: Operator[];
  /** Every redirect of every command, nested ones included, in source order. */
  redirects: Redirect[];
  /** Every opaque construct, nested ones included; empty means the script was read with certainty. */
  opaque: OpaquePart[];
}
