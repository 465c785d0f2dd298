import { readFileSync } from "node:fs";
import { isConchError } from "@conch/protocol";
import { UsageError } from "./errors.js";
import { EXIT_BROKEN_PIPE, EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { MAIN_HELP } from "./help.js";
import { outputClosed, watchOutput } from "./output/closed-output.js";

type Command = (args: readonly string[]) => Promise<number>;

// Each command is loaded only when used, so `conch --help` and `conch run` load nothing they don't need.
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => (await import("./commands/run.js")).runCommand,
  exec: async () => (await import("./commands/exec.js")).execCommand,
  explain: async () => (await import("./commands/explain.js")).explainCommand,
  policy: async () => (await import("./commands/policy.js")).policyCommand,
  sandbox: async () => (await import("./commands/sandbox.js")).sandboxCommand,
  tool: async () => (await import("./commands/tool.js")).toolCommand,
  replay: async () => (await import("./commands/replay.js")).replayCommand,
  trust: async () => (await import("./commands/trust.js")).trustCommand,
  pending: async () => (await import("./commands/approvals.js")).pendingCommand,
  approve: async () => (await import("./commands/approvals.js")).approveCommand,
  deny: async () => (await import("./commands/approvals.js")).denyCommand,
  console: async () => (await import("./commands/console.js")).consoleCommand,
  record: async () => (await import("./commands/record.js")).recordCommand,
  mcp: async () => {
    const { mcpCommand } = await import("./commands/mcp.js");
    return (args) => mcpCommand(args, version());
  },
};

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return manifest.version;
}

/**
 * The one place where errors become what the user reads (exit-codes.ts says which status each gets).
 * Messages quote arguments, paths and what the model sent: shown escaped (visibleText), so that printing
 * them cannot act on the terminal.
 */
async function report(error: unknown): Promise<number> {
  // Loaded only when there is an error to report, so that a command starts without it.
  const { visibleText } = await import("@conch/protocol");
  if (error instanceof UsageError) {
    const where = error.command === "" ? "conch" : `conch ${error.command}`;
    process.stderr.write(`${where}: ${visibleText(error.message)}\nRun '${where} --help' for usage.\n`);
  } else if (isConchError(error)) {
    process.stderr.write(`conch: ${visibleText(error.message, { keepLineBreaks: true })}\n`);
  } else {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`conch: internal error: ${visibleText(detail, { keepLineBreaks: true })}\n`);
  }
  return exitCodeForError(error);
}

/** Runs conch with its arguments (without node and the script) and returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  watchOutput();
  const code = await dispatch(args);
  // Whatever the command said, a reader that went away is what the exit status reports.
  return outputClosed.aborted ? EXIT_BROKEN_PIPE : code;
}

async function dispatch(args: readonly string[]): Promise<number> {
  try {
    const [name, ...rest] = args;
    if (name === undefined || name === "--help" || name === "-h" || name === "help") {
      if (name === undefined) {
        process.stderr.write(MAIN_HELP);
        return EXIT_USAGE;
      }
      process.stdout.write(MAIN_HELP);
      return EXIT_OK;
    }
    if (name === "--version" || name === "-v") {
      process.stdout.write(`${version()}\n`);
      return EXIT_OK;
    }
    const load = COMMANDS[name];
    if (load === undefined) {
      throw new UsageError(
        `unknown command ${JSON.stringify(name)} (expected one of ${Object.keys(COMMANDS).join(", ")})`,
        "",
      );
    }
    return await (await load())(rest);
  } catch (error) {
    return await report(error);
  }
}
