import { ExecPolicyError } from "./errors.js";

/**
 * What is wrong with one rule, with the line when the thrower knows it. Internal: the file readers turn
 * it into an ExecPolicyError naming the file and line, so it never leaves the package.
 */
export class RuleProblem extends Error {
  readonly line: number | null;

  constructor(message: string, line: number | null = null) {
    super(message);
    this.name = "RuleProblem";
    this.line = line;
  }
}

/** Runs `check`, attributing a RuleProblem without a line to `line`. */
export function atLine<T>(line: number, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof RuleProblem && error.line === null) throw new RuleProblem(error.message, line);
    throw error;
  }
}

export function invalidRules(
  path: string,
  line: number | null,
  message: string,
  cause?: unknown,
): ExecPolicyError {
  const where = line === null ? path : `${path}:${line}`;
  return new ExecPolicyError(
    "INVALID_RULES",
    `${where}: ${message}`,
    cause === undefined ? undefined : { cause },
  );
}
