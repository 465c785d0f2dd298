import { type LocatedExamples, type PendingExamples, parseExample } from "./examples.js";
import {
  type ExecPolicyBuilder,
  expandPattern,
  normalizePattern,
  parseJustification,
  parseRuleDecision,
  parseRuleSandbox,
} from "./exec-policy.js";
import { parseHostExecutablePath, validateHostExecutableName } from "./host-executable.js";
import { normalizeNetworkHost, parseNetworkDecision, parseNetworkProtocol } from "./network.js";
import { atLine, RuleProblem } from "./problem.js";
import {
  parseStarlarkCalls,
  type StarlarkCall,
  StarlarkSyntaxError,
  type StarlarkValue,
  starlarkTypeName,
} from "./starlark.js";
import type { PatternToken } from "./types.js";

// Parameters in Codex's declaration order, which is also the order positional arguments bind in;
// prefix_rule's `sandbox` is Conch's own, after Codex's.
const SIGNATURES = {
  prefix_rule: {
    params: ["pattern", "decision", "match", "not_match", "justification", "sandbox"],
    required: ["pattern"],
  },
  network_rule: {
    params: ["host", "protocol", "decision", "justification"],
    required: ["host", "protocol", "decision"],
  },
  host_executable: { params: ["name", "paths"], required: ["name", "paths"] },
} as const;

type FunctionName = keyof typeof SIGNATURES;

function bindArguments(call: StarlarkCall): { name: FunctionName; args: Map<string, StarlarkValue> } {
  if (!Object.hasOwn(SIGNATURES, call.name)) {
    throw new RuleProblem(
      `unknown function \`${call.name}\` (a rules file may call prefix_rule, host_executable and network_rule)`,
      call.line,
    );
  }
  const name = call.name as FunctionName;
  const { params, required } = SIGNATURES[name];
  const args = new Map<string, StarlarkValue>();
  let positional = 0;
  for (const arg of call.args) {
    let param: string;
    if (arg.name === null) {
      const next = params[positional++];
      if (next === undefined) {
        throw new RuleProblem(`${name}() takes at most ${params.length} positional arguments`, arg.line);
      }
      param = next;
    } else {
      if (!(params as readonly string[]).includes(arg.name)) {
        throw new RuleProblem(`${name}() got an unexpected keyword argument \`${arg.name}\``, arg.line);
      }
      param = arg.name;
    }
    if (args.has(param))
      throw new RuleProblem(`${name}() got multiple values for argument \`${param}\``, arg.line);
    // An explicit None reads as the argument left out.
    if (arg.value.kind !== "none") args.set(param, arg.value);
  }
  for (const param of required) {
    if (!args.has(param))
      throw new RuleProblem(`${name}() missing required argument \`${param}\``, call.line);
  }
  return { name, args };
}

function typeError(fn: string, param: string, expected: string, value: StarlarkValue): RuleProblem {
  return new RuleProblem(
    `${fn}() argument \`${param}\` must be ${expected} (got ${starlarkTypeName(value)})`,
    value.line,
  );
}

function stringArg(fn: string, args: Map<string, StarlarkValue>, param: string): string | null {
  const value = args.get(param);
  if (value === undefined) return null;
  if (value.kind !== "string") throw typeError(fn, param, "a string", value);
  return value.value;
}

function listArg(
  fn: string,
  args: Map<string, StarlarkValue>,
  param: string,
): readonly StarlarkValue[] | null {
  const value = args.get(param);
  if (value === undefined) return null;
  if (value.kind !== "list") throw typeError(fn, param, "a list", value);
  return value.items;
}

function patternToken(value: StarlarkValue): PatternToken {
  if (value.kind === "string") return value.value;
  if (value.kind !== "list") {
    throw new RuleProblem(
      `invalid pattern element: pattern element must be a string or list of strings (got ${starlarkTypeName(value)})`,
      value.line,
    );
  }
  return value.items.map((item) => {
    if (item.kind !== "string") {
      throw new RuleProblem(
        `invalid pattern element: pattern alternative must be a string (got ${starlarkTypeName(item)})`,
        item.line,
      );
    }
    return item.value;
  });
}

function example(value: StarlarkValue): string[] {
  if (value.kind === "string") return atLine(value.line, () => parseExample(value.value));
  if (value.kind !== "list") {
    throw new RuleProblem(
      `invalid example: example must be a string or list of strings (got ${starlarkTypeName(value)})`,
      value.line,
    );
  }
  const tokens = value.items.map((item) => {
    if (item.kind !== "string") {
      throw new RuleProblem(
        `invalid example: example tokens must be strings (got ${starlarkTypeName(item)})`,
        item.line,
      );
    }
    return item.value;
  });
  return atLine(value.line, () => parseExample(tokens));
}

function prefixRule(
  call: StarlarkCall,
  args: Map<string, StarlarkValue>,
  builder: ExecPolicyBuilder,
  path: string,
): PendingExamples {
  const fn = "prefix_rule";
  const decisionValue = args.get("decision");
  const decision = atLine(decisionValue?.line ?? call.line, () =>
    parseRuleDecision(stringArg(fn, args, "decision")),
  );
  const justificationValue = args.get("justification");
  const justification = atLine(justificationValue?.line ?? call.line, () =>
    parseJustification(stringArg(fn, args, "justification")),
  );
  const patternValues = listArg(fn, args, "pattern") ?? [];
  const pattern = atLine(args.get("pattern")?.line ?? call.line, () =>
    normalizePattern(patternValues.map(patternToken)),
  );
  const matches = (listArg(fn, args, "match") ?? []).map(example);
  const notMatches = (listArg(fn, args, "not_match") ?? []).map(example);
  const sandboxValue = args.get("sandbox");
  const sandbox = atLine(sandboxValue?.line ?? call.line, () =>
    parseRuleSandbox(stringArg(fn, args, "sandbox"), decision),
  );
  const rules = expandPattern(pattern, decision, justification, sandbox, { path, line: call.line });
  for (const rule of rules) builder.addRule(rule);
  return { rules, pattern, matches, notMatches };
}

function hostExecutable(args: Map<string, StarlarkValue>, builder: ExecPolicyBuilder): void {
  const fn = "host_executable";
  const nameValue = args.get("name") as StarlarkValue;
  const name = stringArg(fn, args, "name") as string;
  atLine(nameValue.line, () => validateHostExecutableName(name));
  const paths = (listArg(fn, args, "paths") ?? []).map((value) => {
    if (value.kind !== "string") {
      throw new RuleProblem(
        `invalid rule: host_executable paths must be strings (got ${starlarkTypeName(value)})`,
        value.line,
      );
    }
    return atLine(value.line, () => parseHostExecutablePath(name, value.value));
  });
  builder.setHostExecutable(name, paths);
}

function networkRule(call: StarlarkCall, args: Map<string, StarlarkValue>, builder: ExecPolicyBuilder): void {
  const fn = "network_rule";
  const lineOf = (param: string): number => args.get(param)?.line ?? call.line;
  const protocol = atLine(lineOf("protocol"), () =>
    parseNetworkProtocol(stringArg(fn, args, "protocol") as string),
  );
  const decision = atLine(lineOf("decision"), () =>
    parseNetworkDecision(stringArg(fn, args, "decision") as string),
  );
  const justification = atLine(lineOf("justification"), () =>
    parseJustification(stringArg(fn, args, "justification")),
  );
  const host = atLine(lineOf("host"), () => normalizeNetworkHost(stringArg(fn, args, "host") as string));
  builder.addNetworkRule({ host, protocol, decision, justification });
}

/**
 * Reads a Codex `.rules` file into the builder and returns the examples still to check (Codex checks
 * them once the whole file is read, so a later `host_executable()` counts). Each rule keeps `path` and
 * the line of its `prefix_rule(` call. Throws RuleProblem.
 */
export function readRulesFile(text: string, builder: ExecPolicyBuilder, path: string): LocatedExamples[] {
  let calls: StarlarkCall[];
  try {
    calls = parseStarlarkCalls(text);
  } catch (error) {
    if (error instanceof StarlarkSyntaxError) throw new RuleProblem(error.message, error.line);
    throw error;
  }
  const pending: LocatedExamples[] = [];
  for (const call of calls) {
    atLine(call.line, () => {
      const { name, args } = bindArguments(call);
      if (name === "prefix_rule")
        pending.push({ ...prefixRule(call, args, builder, path), line: call.line, label: null });
      else if (name === "host_executable") hostExecutable(args, builder);
      else networkRule(call, args, builder);
    });
  }
  return pending;
}
