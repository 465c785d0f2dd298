// Which commands the rules see for one argv: Codex's `commands_for_exec_policy`. A shell script read
// with certainty is split into its simple commands; a single command fed by a heredoc is judged by its
// literal words (Codex's "complex parsing" fallback); anything else is judged as the whole argv.
import {
  type Analysis,
  analyze,
  isHarmlessRedirect,
  isLiteralToken,
  type Operator,
  type Redirect,
  shellScript,
} from "@conch/arity-rules";

export interface ExecPolicyCommands {
  /** The commands checked against the rules, in order. */
  commands: string[][];
  /**
   * Codex's `used_complex_parsing`: the commands are only the literal words of a heredoc command, so
   * none of them may count as known safe and no prefix rule is proposed for them.
   */
  usedComplexParsing: boolean;
  /**
   * False for the words of a heredoc command, and for a script judged as a whole because it was not
   * read with certainty: neither ever counts as known safe.
   */
  mayBeKnownSafe: boolean;
  /**
   * For a script judged as a whole: the commands the analyser still found in it, nested ones included.
   * Rules that prompt for or forbid one of them apply to the script; rules that allow one do not.
   */
  innerCommands: string[][];
}

const PLAIN_OPERATORS: ReadonlySet<Operator> = new Set(["&&", "||", ";", "|"]);
// Scripts inside scripts split for the rules, counted from the top.
const MAX_NESTING = 8;

/**
 * The simple commands of a script read with certainty, joined only by `&&`, `||`, `;` and `|`, with no
 * redirection but the harmless ones `isKnownSafeCommand` accepts (reading a file, joining the standard
 * streams, discarding to /dev/null) (Codex's `parse_shell_lc_plain_commands`); a command that is itself
 * `sh -c 'SCRIPT'` is replaced by the commands of its script. Null when the script is not that plain.
 */
function plainCommands(analysis: Analysis, depth: number): string[][] | null {
  if (analysis.opaque.length > 0 || analysis.commands.length === 0) return null;
  if (!analysis.operators.every((operator) => PLAIN_OPERATORS.has(operator))) return null;
  if (!analysis.redirects.every(isHarmlessRedirect)) return null;
  const commands: string[][] = [];
  for (const command of analysis.commands) {
    if (!command.redirects.every(isHarmlessRedirect) || command.argv.length === 0) return null;
    const nested =
      command.nested !== null && depth < MAX_NESTING && shellScript(command.argv) !== null
        ? plainCommands(command.nested, depth + 1)
        : null;
    if (nested !== null) commands.push(...nested);
    else commands.push([...command.argv]);
  }
  return commands;
}

/**
 * The literal words of the one command of a script that only feeds it a heredoc (`python3 <<'PY' …`),
 * Codex's `parse_shell_lc_single_command_prefix`: null when there is another command, a nested script,
 * any other opaque construct, any file redirection, or a word that is not a literal token.
 */
function heredocCommand(analysis: Analysis): string[] | null {
  if (analysis.commands.length !== 1) return null;
  const [command] = analysis.commands as [Analysis["commands"][number]];
  if (command.nested !== null || command.argv.length === 0) return null;
  const reasons = analysis.opaque.map((part) => part.reason);
  if (
    !reasons.includes("heredoc") ||
    !reasons.every((reason) => reason === "heredoc" || reason === "herestring")
  ) {
    return null;
  }
  const fileRedirect = (redirect: Redirect): boolean => !redirect.operator.startsWith("<<");
  if (analysis.redirects.some(fileRedirect) || command.redirects.some(fileRedirect)) return null;
  return command.argv.every(isLiteralToken) ? [...command.argv] : null;
}

function allCommands(analysis: Analysis, depth: number): string[][] {
  const commands: string[][] = [];
  for (const command of analysis.commands) {
    if (command.argv.length > 0) commands.push([...command.argv]);
    if (command.nested !== null && depth < MAX_NESTING)
      commands.push(...allCommands(command.nested, depth + 1));
  }
  return commands;
}

export async function commandsForExecPolicy(argv: readonly string[]): Promise<ExecPolicyCommands> {
  const whole = { commands: [[...argv]], usedComplexParsing: false, mayBeKnownSafe: true, innerCommands: [] };
  const wrapped = shellScript(argv);
  if (wrapped === null) return whole;
  const analysis = await analyze(wrapped.script, { zsh: wrapped.shell === "zsh" });
  const plain = plainCommands(analysis, 0);
  if (plain !== null)
    return { commands: plain, usedComplexParsing: false, mayBeKnownSafe: true, innerCommands: [] };
  const heredoc = heredocCommand(analysis);
  if (heredoc !== null) {
    return { commands: [heredoc], usedComplexParsing: true, mayBeKnownSafe: false, innerCommands: [] };
  }
  return { ...whole, mayBeKnownSafe: false, innerCommands: allCommands(analysis, 0) };
}
