import { receivedValue } from "@conch/protocol";
import type { z } from "zod";

// zod's own messages ("Invalid input: expected string, received undefined") name neither the field nor
// the tool; a model fixes its call faster with `shell_command: timeout_ms: expected an integer, received 1.5`.

/** `argv[0]`, `prefix_rule[2]`, or `arguments` for the object itself. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    out += typeof part === "number" ? `[${part}]` : out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "arguments" : out;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
};

function expectation(issue: z.core.$ZodIssue, knownFields: readonly string[]): string {
  const input = (issue as { input?: unknown }).input;
  const received = `received ${receivedValue(input)}`;
  switch (issue.code) {
    case "invalid_type": {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      if (input === undefined && issue.path.length > 0) return `required: expected ${expected}`;
      return `expected ${expected}, ${received}`;
    }
    case "unrecognized_keys": {
      const keys = issue.keys.map((key) => JSON.stringify(key)).join(", ");
      const noun = issue.keys.length === 1 ? "unknown field" : "unknown fields";
      return `${noun} ${keys} (expected only: ${knownFields.join(", ")})`;
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string") {
        return min === 1
          ? `expected a non-empty string, ${received}`
          : `expected at least ${min} characters, ${received}`;
      }
      if (issue.origin === "array")
        return `expected at least ${min} item${min === 1 ? "" : "s"}, ${received}`;
      return `expected a number ${issue.inclusive ? ">=" : ">"} ${min}, ${received}`;
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return `expected at most ${max} characters`;
      if (issue.origin === "array") return `expected at most ${max} items`;
      return `expected a number ${issue.inclusive ? "<=" : "<"} ${max}, ${received}`;
    }
    case "invalid_value":
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}, ${received}`;
    // A check between fields (`justification` with `require_escalated`): its message says it all, and
    // the value it names is absent.
    case "custom":
      return issue.message;
    default:
      return `${issue.message}, ${received}`;
  }
}

/**
 * One line naming the tool, each wrong field and what it expected, e.g. `shell_command: invalid
 * arguments: timeout_ms: expected an integer, received 1.5`. One message per field, the last zod
 * reported (the tightest bound), in field order.
 */
export function describeInputError(tool: string, error: z.ZodError, knownFields: readonly string[]): string {
  const byField = new Map<string, string>();
  for (const issue of error.issues) byField.set(fieldPath(issue.path), expectation(issue, knownFields));
  const parts = [...byField].map(([field, text]) => `${field}: ${text}`);
  return `${tool}: invalid arguments: ${parts.join("; ")}`;
}

/** A call to a tool the profile does not have. */
export function unknownToolText(name: string, profile: string, tools: readonly string[]): string {
  return `unknown tool ${JSON.stringify(name)}: the ${profile} profile has ${tools.join(", ")}`;
}

/** A call whose arguments came as text that does not parse. */
export function invalidJsonText(tool: string, message: string): string {
  return `${tool}: the arguments are not valid JSON: ${message}`;
}
