// Codex's `is_known_safe_command`: a command is known safe when it is on the read-only list (after
// wrappers are looked through), or when it is `bash|sh|zsh|dash -c|-lc SCRIPT` and the analyser read
// SCRIPT completely (nothing opaque), it only joins commands with `&&`, `||`, `;` and `|`, it redirects
// nothing but reads and duplications between the standard streams, and every simple command in it,
// nested scripts included, is known safe in turn. An sh or dash script must pass under both quoting
// rules it may run with (see `scriptReadings`). And the command line must be read completely, as
// `reachableCommands` reads it: no builtin outside the modelled list, no text bash evaluates, no option
// that gives a program a command.
import { whenParserLoaded } from "../analyze/analyze.js";
import type { Analysis, Operator, Redirect } from "../types.js";
import { AnalysisBudget } from "./budget.js";
import { reachNow } from "./dangerous.js";
import { isSafeToCallWithExec } from "./safe-commands.js";
import { type SafetyOptions, wrapperTable } from "./safety-options.js";
import { scriptReadings, shellScript } from "./shell.js";
import { stripWrappers, type WrapperTable } from "./wrappers.js";

// Scripts inside scripts, counted from the argv given; deeper ones are not proven safe.
const MAX_SCRIPT_DEPTH = 8;

const SAFE_OPERATORS: ReadonlySet<Operator> = new Set(["&&", "||", ";", "|"]);

const STANDARD_STREAM = /^[012]$/;

/**
 * `< file` (reading, not from a device), `> /dev/null` and `2>/dev/null` (discarding), and `2>&1`,
 * `>&2`, `<&0` (one standard stream onto another). Anything else may write, truncate, connect, or reach
 * a descriptor the process inherited.
 */
export function isHarmlessRedirect(redirect: Redirect): boolean {
  const fdIsStandard = redirect.fd === null || (redirect.fd >= 0 && redirect.fd <= 2);
  // bash opens /dev/tcp/HOST/PORT and /dev/udp/... itself, as network connections; other devices may
  // have side effects on open. Only /dev/null is a device worth allowing.
  if (redirect.kind === "read") {
    return (
      redirect.operator === "<" &&
      redirect.target !== null &&
      (!redirect.target.startsWith("/dev/") || redirect.target === "/dev/null")
    );
  }
  // Discarding output changes nothing: `2>/dev/null` is everyday read-only work.
  if (redirect.kind === "write" || redirect.kind === "append") {
    return (
      fdIsStandard &&
      (redirect.operator === ">" || redirect.operator === ">>") &&
      redirect.target === "/dev/null"
    );
  }
  if (redirect.kind === "duplicate") {
    return (
      fdIsStandard &&
      (redirect.operator === ">&" || redirect.operator === "<&") &&
      redirect.target !== null &&
      STANDARD_STREAM.test(redirect.target)
    );
  }
  return false;
}

/**
 * True when argv only reads: a program on Codex's known-safe list used without its writing or
 * program-running options, possibly behind wrappers such as `timeout` (`options.wrappers`), or a
 * `bash -lc` script made only of such commands. Never runs anything; a script is read by `analyze()`.
 */
export function isKnownSafeCommand(argv: readonly string[], options?: SafetyOptions): Promise<boolean> {
  return whenParserLoaded(() => {
    const context = { wrappers: wrapperTable(options), budget: new AnalysisBudget() };
    if (!isSafeArgv(argv, null, context, 0)) return false;
    // Depth was bounded above already (more tightly); `reachableCommands` only stops listing runners.
    const { unread } = reachNow(argv, options);
    return unread.every((part) => part.reason === "too-deep");
  });
}

interface Context {
  readonly wrappers: WrapperTable;
  readonly budget: AnalysisBudget;
}

function isSafeArgv(
  argv: readonly string[],
  nested: Analysis | null,
  context: Context,
  depth: number,
): boolean {
  const command = stripWrappers(argv, context.wrappers);
  if (command === null) return false;
  if (isSafeToCallWithExec(command)) return true;
  const invocation = shellScript(command);
  if (invocation === null || depth >= MAX_SCRIPT_DEPTH) return false;
  const readings = scriptReadings(invocation.shell, invocation.script);
  for (const [index, reading] of readings.entries()) {
    // The analyser's own reading of a nested script is reused only when no wrapper was removed, so it is
    // certainly the reading of this script.
    const analysis =
      index === 0 && nested !== null && command === argv
        ? nested
        : context.budget.analyze(reading, invocation.shell === "zsh");
    if (analysis === null || !isSafeAnalysis(analysis, context, depth + 1)) return false;
  }
  return true;
}

function isSafeAnalysis(analysis: Analysis, context: Context, depth: number): boolean {
  if (analysis.opaque.length > 0 || analysis.commands.length === 0) return false;
  if (!analysis.operators.every((operator) => SAFE_OPERATORS.has(operator))) return false;
  if (!analysis.redirects.every(isHarmlessRedirect)) return false;
  for (const command of analysis.commands) {
    if (!command.redirects.every(isHarmlessRedirect)) return false;
    if (!isSafeArgv(command.argv, command.nested, context, depth)) return false;
  }
  return true;
}
