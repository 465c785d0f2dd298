// Codex's `is_known_safe_command`: a command is known safe when it is on the read-only list (after
// wrappers are looked through), or when it is `bash|sh|zsh|dash -c|-lc SCRIPT` and the analyser read
// SCRIPT completely (nothing opaque), it only joins commands with `&&`, `||`, `;` and `|`, it redirects
// nothing but reads and duplications between the standard streams, and every simple command in it,
// nested scripts included, is known safe in turn. An sh or dash script must pass under both quoting
// rules it may run with (see `scriptReadings`). And the command line must be read completely, as
// `reachableCommands` reads it: no builtin outside the modelled list, no text bash evaluates, no option
// that gives a program a command. The scripts are read by the walk every reading shares (walk.ts); this
// file is its strictest visitor: anything it cannot prove stops the walk.
import { whenParserLoaded } from "../analyze/analyze.js";
import type { Analysis, Operator, Redirect } from "../types.js";
import { scriptSource } from "./embedded-scripts.js";
import { reachNow } from "./reach.js";
import { isSafeToCallWithExec } from "./safe-commands.js";
import { type SafetyOptions, wrapperTable } from "./safety-options.js";
import { shellScript } from "./shell.js";
import { SKIP, type WalkedCommand, type WalkVisitor, walk, walkRunners } from "./walk.js";
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
    const visitor = new KnownSafeVisitor(wrapperTable(options));
    if (walk(argv, visitor, walkRunners(options)) !== null || visitor.unproven) return false;
    // Depth was bounded above already (more tightly); `reachableCommands` only stops listing runners.
    const { unread } = reachNow(argv, options);
    return unread.every((part) => part.reason === "too-deep");
  });
}

const UNPROVEN = "unproven";

/** Stops the walk at the first command or script it cannot prove read-only. */
class KnownSafeVisitor implements WalkVisitor<typeof UNPROVEN> {
  /** Set when the walk left something unread: a script too large or too deep, an option's command. */
  unproven = false;
  readonly #wrappers: WrapperTable;

  constructor(wrappers: WrapperTable) {
    this.#wrappers = wrappers;
  }

  command({ argv, words, depth }: WalkedCommand): typeof UNPROVEN | typeof SKIP | null {
    const command = stripWrappers(argv, this.#wrappers);
    if (command === null) return UNPROVEN;
    if (isSafeToCallWithExec(command)) return SKIP;
    const invocation = shellScript(command);
    if (invocation === null || depth >= MAX_SCRIPT_DEPTH) return UNPROVEN;
    // The walk goes on into the script only where it reads the same shell and script as this proof:
    // the same words behind the wrappers, and a script the shell reads as written.
    const same = words.length === command.length && words.every((word, index) => word === command[index]);
    return same && scriptSource(invocation.script) === invocation.script ? null : UNPROVEN;
  }

  script(analysis: Analysis): typeof UNPROVEN | null {
    if (analysis.opaque.length > 0 || analysis.commands.length === 0) return UNPROVEN;
    if (!analysis.operators.every((operator) => SAFE_OPERATORS.has(operator))) return UNPROVEN;
    if (!analysis.redirects.every(isHarmlessRedirect)) return UNPROVEN;
    const harmless = analysis.commands.every((command) => command.redirects.every(isHarmlessRedirect));
    return harmless ? null : UNPROVEN;
  }

  unread(): void {
    this.unproven = true;
  }
}
