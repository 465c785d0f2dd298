import { createReadStream, constants as fsConstants } from "node:fs";
import { access } from "node:fs/promises";
import { createInterface, type Interface } from "node:readline";
import { invalidResult, type ToolCallResult } from "@conch/orchestrator";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXIT_OK, exitCodeForSignal } from "../exit-codes.js";
import { REPLAY_HELP } from "../help.js";
import { outputClosed } from "../output/closed-output.js";
import { jsonLine } from "../output/json-line.js";
import { commandDirectory } from "./execute.js";
import { openRuntime, POLICY_SPECS, policyOptions } from "./policy-options.js";

const SPECS = {
  ...POLICY_SPECS,
  profile: { type: "string" },
  cwd: { type: "string" },
  help: { type: "boolean" },
} as const;

interface Call {
  readonly tool: string;
  readonly arguments: unknown;
}

/** A line as a call, or the reason it is not one. */
function parseLine(line: string, number: number): Call | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `line ${number}: not valid JSON: ${(error as Error).message}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `line ${number}: expected an object {"tool": NAME, "arguments": {...}}`;
  }
  const { tool, arguments: args, ...rest } = value as Record<string, unknown>;
  if (typeof tool !== "string" || tool === "") return `line ${number}: tool: expected a tool name (a string)`;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    return `line ${number}: unknown field ${JSON.stringify(unknown[0])} (expected only: tool, arguments)`;
  }
  return { tool, arguments: args ?? {} };
}

// The argument fields that name a session: exec_command's write_stdin uses `session_id`, the terminal
// tools `id`.
const SESSION_FIELDS = ["session_id", "id"] as const;
const REFERENCE = /^\$(?:(\d+)|last)$/;

/**
 * The call with `"$N"` (the session line N started) or `"$last"` (the last session any earlier line
 * started) in a session field replaced by that session's id, or the reason it cannot be. Ids are random,
 * so a file cannot know them; it can know which of its lines started one.
 */
function resolveReferences(
  call: Call,
  number: number,
  started: ReadonlyMap<number, number>,
  last: number | null,
): Call | string {
  if (typeof call.arguments !== "object" || call.arguments === null || Array.isArray(call.arguments)) {
    return call;
  }
  const args: Record<string, unknown> = { ...(call.arguments as Record<string, unknown>) };
  for (const field of SESSION_FIELDS) {
    const value = args[field];
    const match = typeof value === "string" ? REFERENCE.exec(value) : null;
    if (match === null) continue;
    const line = match[1] === undefined ? null : Number(match[1]);
    const id = line === null ? last : started.get(line);
    if (id === undefined || id === null) {
      return line === null
        ? `line ${number}: ${field}: "$last" names the last session an earlier line started, and none did`
        : `line ${number}: ${field}: "$${line}" names the session line ${line} started, and ${
            line >= number ? "that line is not before this one" : "it started none"
          }`;
    }
    args[field] = id;
  }
  return { tool: call.tool, arguments: args };
}

/**
 * `conch replay FILE|-`: runs JSON lines of tool calls in order in one process, so sessions persist from
 * line to line, and prints one JSON line per call. When the input ends (or on Ctrl-C), every session it
 * started is killed.
 */
export async function replayCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "replay", false);
  if (options.help) {
    process.stdout.write(REPLAY_HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? "missing the FILE to replay (- for stdin)" : "expected one FILE",
      "replay",
    );
  }
  const source = positionals[0] as string;
  const policy = policyOptions(options, "replay");
  if (source === "-" && options.approver === "tty") {
    throw new UsageError(
      "--approver tty cannot read answers from stdin while the calls come from it",
      "replay",
    );
  }
  // Reading the calls from stdin leaves nobody to answer there: deny unless told otherwise.
  const approver = options.approver === undefined && source === "-" ? "none" : policy.approver;
  const cwd = commandDirectory(options.cwd, "replay");
  if (source !== "-") {
    try {
      await access(source, fsConstants.R_OK);
    } catch (error) {
      throw new UsageError(
        `cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? error}`,
        "replay",
      );
    }
  }
  const input = source === "-" ? process.stdin : createReadStream(source);

  const { runtime, close } = await openRuntime(cwd, { ...policy, approver });
  const controller = new AbortController();
  // Nobody reads the results any more: stop, as on a signal (the sessions die below; main exits 141).
  const stopOnClosedOutput = (): void => {
    controller.abort();
    lines?.close();
  };
  outputClosed.addEventListener("abort", stopOnClosedOutput, { once: true });
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    received ??= signal;
    controller.abort();
    lines?.close();
  };
  let lines: Interface | null = null;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);
  try {
    const set = await runtime.toolSet();
    // Iterated at once: readline drops the lines it reads while nobody is listening.
    lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    let number = 0;
    // The session each line started, for "$N" and "$last" in later lines.
    const started = new Map<number, number>();
    let last: number | null = null;
    for await (const line of lines) {
      number++;
      if (line.trim() === "") continue;
      if (controller.signal.aborted) break;
      const parsed = parseLine(line, number);
      const call: Call | string =
        typeof parsed === "string" ? parsed : resolveReferences(parsed, number, started, last);
      const tool: string | null = typeof parsed === "string" ? null : parsed.tool;
      const out: ToolCallResult =
        typeof call === "string"
          ? invalidResult(tool ?? "", call)
          : await set.call(call.tool, call.arguments, { signal: controller.signal });
      const session = out.result.session_id;
      // A call that starts a command names the session it started; the others name one already started.
      const starts = set.tools.some(
        (definition) => definition.name === tool && definition.kind === "command",
      );
      if (typeof call !== "string" && typeof session === "number" && starts) {
        started.set(number, session);
        last = session;
      }
      process.stdout.write(jsonLine({ tool, text: out.text, result: out.result }));
    }
    return received === undefined ? EXIT_OK : exitCodeForSignal(received);
  } finally {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(signal, onSignal);
    outputClosed.removeEventListener("abort", stopOnClosedOutput);
    await runtime.orchestrator.terminateSessions();
    await close();
  }
}
