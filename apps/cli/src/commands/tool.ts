import type { ToolCallResult } from "@conch/orchestrator";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { exitCodeForSignal, exitCodeForToolResult } from "../exit-codes.js";
import { TOOL_HELP } from "../help.js";
import { outputClosed } from "../output/closed-output.js";
import { jsonLine } from "../output/json-line.js";
import { commandDirectory } from "./execute.js";
import { openRuntime, POLICY_SPECS, policyOptions } from "./policy-options.js";

const LIST_SPECS = {
  profile: { type: "string" },
  cwd: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean" },
  approval: { type: "string" },
  sandbox: { type: "string" },
} as const;

const CALL_SPECS = { ...LIST_SPECS, ...POLICY_SPECS } as const;
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

async function list(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, LIST_SPECS, "tool list", false);
  if (options.help) {
    process.stdout.write(TOOL_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`, "tool list");
  const policy = policyOptions({ ...options, approver: "none" }, "tool list");
  const cwd = commandDirectory(options.cwd, "tool list");
  // What an MCP client of conchd (or `conch mcp`) gets under the same config and flags: the tools are
  // built by the same runtime, for the policy in force, with the MCP server's call limit. Nothing runs.
  const { runtime, close } = await openRuntime(cwd, policy);
  let profile: string;
  let tools: { name: string; description: string; input_schema: unknown }[];
  try {
    profile = runtime.profile;
    // Loaded here only: the MCP server's modules are not needed to run a call.
    const { CALL_LIMIT_MS } = await import("@conch/mcp");
    const set = await runtime.toolSet({ callLimitMs: CALL_LIMIT_MS });
    tools = set.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.jsonSchema,
    }));
  } finally {
    await close();
  }
  if (options.json) {
    process.stdout.write(jsonLine({ profile, tools }));
    return 0;
  }
  const blocks = tools.map(
    (tool) =>
      `${tool.name}\n  ${tool.description}\n\n${indent(JSON.stringify(tool.input_schema, null, 2))}\n`,
  );
  process.stdout.write(
    `profile ${profile}: ${tools.length} tool${tools.length === 1 ? "" : "s"}\n\n${blocks.join("\n")}`,
  );
  return 0;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}

async function call(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, CALL_SPECS, "tool call", false);
  if (options.help) {
    process.stdout.write(TOOL_HELP);
    return 0;
  }
  const [name, json = "{}", ...extra] = positionals;
  if (name === undefined) throw new UsageError("missing the tool NAME (see 'conch tool list')", "tool call");
  if (extra.length > 0) {
    throw new UsageError(
      `expected NAME and one JSON-ARGS argument, received ${positionals.length} arguments; quote the JSON`,
      "tool call",
    );
  }
  const policy = policyOptions(options, "tool call");
  const cwd = commandDirectory(options.cwd, "tool call");
  const { runtime, close } = await openRuntime(cwd, policy, { oneCommand: true });
  try {
    const set = await runtime.toolSet();
    const controller = new AbortController();
    let received: NodeJS.Signals | undefined;
    const abort = (signal: NodeJS.Signals): void => {
      received ??= signal;
      controller.abort();
    };
    for (const signal of STOP_SIGNALS) process.on(signal, abort);
    let result: ToolCallResult;
    try {
      result = await set.call(name, json, { signal: AbortSignal.any([controller.signal, outputClosed]) });
    } finally {
      for (const signal of STOP_SIGNALS) process.off(signal, abort);
    }
    if (options.json) {
      process.stdout.write(jsonLine({ tool: name, text: result.text, result: result.result }));
    } else {
      process.stdout.write(`${result.text}\n`);
    }
    // Interrupted: the text says what the call got to; the exit status says why it stopped, as run's does.
    return received === undefined ? exitCodeForToolResult(result.result) : exitCodeForSignal(received);
  } finally {
    // Nothing outlives one call: a session it started (exec_command, terminal_open) ends with it.
    await runtime.orchestrator.terminateSessions();
    await close();
  }
}

export async function toolCommand(args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "list") return list(rest);
  if (sub === "call") return call(rest);
  if (sub === "--help" || sub === "-h") {
    process.stdout.write(TOOL_HELP);
    return 0;
  }
  throw new UsageError(
    sub === undefined
      ? "missing list or call"
      : `unknown subcommand ${JSON.stringify(sub)} (expected list or call)`,
    "tool",
  );
}
