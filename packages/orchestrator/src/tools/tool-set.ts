import type { ToolProfileName } from "@conch/protocol";
import { expectedReceived } from "@conch/protocol";
import { detectShell, type Shell } from "@conch/shell-detect";
import { OrchestratorError } from "../errors.js";
import { describeInputError, invalidJsonText, unknownToolText } from "../model-text/input-errors.js";
import { errorResult, invalidResult } from "../model-text/model-result.js";
import { noNetworkDescription, sandboxCutsNetwork } from "../orchestrator/denial-hint.js";
import type { ToolOrchestrator } from "../orchestrator/tool-orchestrator.js";
import type { RunContext } from "../orchestrator/types.js";
import type { ToolCallResult, ToolContext, ToolDefinition } from "./types.js";

export interface ToolSetOptions {
  readonly profile: ToolProfileName;
  readonly orchestrator: ToolOrchestrator;
  /** The cap on model output tokens per call (the config's `max_output_tokens`); default 10000. */
  readonly maxOutputTokens?: number;
  /**
   * The budget of a one-shot command's text (shell_command, shell, bash; the config's
   * `one_shot_output_tokens`), at most `maxOutputTokens`; default 2000: a long output's head and tail,
   * whole lines, with its spill file to read the rest from.
   */
  readonly oneShotOutputTokens?: number;
  /** The shell scripts run in; the user's shell (passwd entry, `$SHELL`, ...) by default. */
  readonly shell?: Shell;
  /** A shell_command still running at its timeout becomes a session to poll instead of being killed. */
  readonly durableOneShot?: boolean;
  /**
   * How long one call may take (ms): a shell_command with a longer timeout returns as a session to poll
   * at this point, still killed at its own timeout. Default: no limit.
   */
  readonly callLimitMs?: number;
}

/** The tools of one profile, and the one way to call them. */
export interface ToolSet {
  readonly profile: ToolProfileName;
  readonly tools: readonly ToolDefinition[];
  /**
   * Validates `args` (an object, or its JSON text) and runs the tool through the orchestrator. Never
   * throws and never rejects: an unknown tool, bad JSON, a wrong or unknown field, a command that could
   * not start all come back as a result whose text names what was wrong.
   */
  call(name: string, args: unknown, context?: RunContext): Promise<ToolCallResult>;
}

const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
const DEFAULT_ONE_SHOT_OUTPUT_TOKENS = 2000;

async function profileTools(profile: ToolProfileName): Promise<readonly ToolDefinition[]> {
  // zod and the schemas load only when tools are wanted, so `conch run` never pays for them.
  const [tools, sessions] = await Promise.all([import("./one-shot-tools.js"), import("./session-tools.js")]);
  const list = (...defs: readonly unknown[]): readonly ToolDefinition[] => defs as readonly ToolDefinition[];
  switch (profile) {
    case "codex":
      return list(
        tools.shellCommandTool,
        sessions.execCommandTool,
        sessions.writeStdinTool,
        tools.shellTool,
        sessions.listSessionsTool,
      );
    case "bash":
      return list(tools.bashTool);
    case "argv":
      return list(tools.argvShellTool);
    case "terminal":
      return list(
        sessions.terminalOpenTool,
        sessions.terminalWriteTool,
        sessions.terminalReadTool,
        sessions.terminalSignalTool,
        sessions.terminalCloseTool,
        sessions.terminalListTool,
      );
    default:
      throw new OrchestratorError(
        "INVALID_REQUEST",
        expectedReceived("tool profile", "one of codex, bash, terminal, argv", profile),
      );
  }
}

function callLimitNote(limitMs: number): string {
  const seconds = limitMs % 1000 === 0 ? `${limitMs / 1000} s` : `${limitMs} ms`;
  return ` A command still running after ${seconds} keeps running (until its timeout_ms) and this call returns its session ID: poll it with write_stdin.`;
}

/** The tools of `profile`, bound to `orchestrator`. */
export async function createToolSet(options: ToolSetOptions): Promise<ToolSet> {
  const { profile, orchestrator } = options;
  const tools = await profileTools(profile);
  const maxOutputTokens = options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  if (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1) {
    throw new OrchestratorError(
      "INVALID_REQUEST",
      expectedReceived("maxOutputTokens", "a positive integer", maxOutputTokens),
    );
  }
  const oneShotOutputTokens = Math.min(
    options.oneShotOutputTokens ?? DEFAULT_ONE_SHOT_OUTPUT_TOKENS,
    maxOutputTokens,
  );
  if (!Number.isSafeInteger(oneShotOutputTokens) || oneShotOutputTokens < 1) {
    throw new OrchestratorError(
      "INVALID_REQUEST",
      expectedReceived("oneShotOutputTokens", "a positive integer", options.oneShotOutputTokens),
    );
  }
  let shell = options.shell;
  const limit = options.callLimitMs;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new OrchestratorError(
      "INVALID_REQUEST",
      expectedReceived("callLimitMs", "a positive integer", limit),
    );
  }
  const { sandboxPolicy, approvalPolicy } = orchestrator;
  const listed = tools.map((tool) => {
    let { description } = tool;
    // The model reads how a long shell_command comes back under a call limit.
    if (limit !== undefined && tool.name === "shell_command") description += callLimitNote(limit);
    // Where the sandbox has no network, the tools that start commands say so before anything fails.
    if (tool.kind === "command" && sandboxCutsNetwork(sandboxPolicy)) {
      const canEscalate = "sandbox_permissions" in tool.inputSchema.shape;
      description += noNetworkDescription(
        sandboxPolicy.mode,
        approvalPolicy,
        canEscalate,
        orchestrator.networkAllowlist,
      );
    }
    return description === tool.description ? tool : describedAs(tool, description);
  });
  const byName = new Map(listed.map((tool) => [tool.name, tool]));

  async function call(name: string, args: unknown, context: RunContext = {}): Promise<ToolCallResult> {
    const tool = byName.get(name);
    if (tool === undefined) {
      return invalidResult(String(name), unknownToolText(name, profile, [...byName.keys()]));
    }
    let input = args;
    if (typeof args === "string") {
      try {
        input = JSON.parse(args);
      } catch (error) {
        return invalidResult(name, invalidJsonText(name, (error as Error).message));
      }
    }
    const parsed = tool.inputSchema.safeParse(input, { reportInput: true });
    if (!parsed.success) {
      return invalidResult(name, describeInputError(name, parsed.error, Object.keys(tool.inputSchema.shape)));
    }
    const toolContext: ToolContext = {
      ...context,
      orchestrator,
      maxOutputTokens,
      oneShotOutputTokens,
      durableOneShot: options.durableOneShot === true,
      callLimitMs: options.callLimitMs ?? null,
      given: new Set(typeof input === "object" && input !== null ? Object.keys(input) : []),
      shell: () => {
        shell ??= detectShell();
        return shell;
      },
    };
    try {
      return await tool.handler(parsed.data, toolContext);
    } catch (error) {
      return errorResult(name, error, `${name}: `);
    }
  }

  return { profile, tools: listed, call };
}

/** `tool` with another description; its other properties as they are (the JSON Schema made when read). */
function describedAs<T extends { readonly description: string }>(tool: T, description: string): T {
  return Object.defineProperties({} as T, {
    ...Object.getOwnPropertyDescriptors(tool),
    description: { value: description, enumerable: true },
  });
}
