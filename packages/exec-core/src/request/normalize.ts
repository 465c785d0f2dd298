import { statSync } from "node:fs";
import { resolve } from "node:path";
import {
  ENV_INHERIT_POLICIES,
  type EnvInheritPolicy,
  type ExecRequest,
  expectedReceived,
} from "@conch/protocol";
import { buildEnv } from "../env/build-env.js";
import { ExecError } from "../errors.js";

export const DEFAULT_KILL_GRACE_MS = 500;
export const DEFAULT_DRAIN_TIMEOUT_MS = 2000;
export const DEFAULT_MAX_OUTPUT_BYTES: number = 1024 * 1024;
/** The longest delay a Node timer can hold; larger ones fire at once. */
const MAX_MS = 2_147_483_647;
const MAX_OUTPUT_BYTES = 1024 ** 3;

const REQUEST_FIELDS: ReadonlySet<string> = new Set([
  "argv",
  "cwd",
  "env",
  "timeoutMs",
  "killGraceMs",
  "drainTimeoutMs",
  "maxOutputBytes",
]);
const ENV_FIELDS: ReadonlySet<string> = new Set(["inherit", "exclude", "allow", "set"]);

/** A request checked field by field, with defaults applied and the child's environment built. */
export interface NormalizedRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number | undefined;
  killGraceMs: number;
  drainTimeoutMs: number;
  maxOutputBytes: number;
}

function invalid(field: string, expected: string, value: unknown): ExecError {
  return new ExecError("INVALID_REQUEST", `invalid request: ${expectedReceived(field, expected, value)}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkKeys(record: Record<string, unknown>, allowed: ReadonlySet<string>, prefix: string): void {
  for (const key of Object.keys(record)) {
    if (!allowed.has(key)) {
      throw new ExecError(
        "INVALID_REQUEST",
        `invalid request: ${prefix}${key}: unknown field (expected one of ${[...allowed].join(", ")})`,
      );
    }
  }
}

function integerField(
  record: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
  unit: string,
): number | undefined {
  const value = record[field];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(field, `an integer from ${min} to ${max} (${unit})`, value);
  }
  return value;
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw invalid(field, "an array of strings", value);
  value.forEach((item, index) => {
    if (typeof item !== "string") throw invalid(`${field}[${index}]`, "a string", item);
  });
  return value as string[];
}

function normalizeEnv(value: unknown): ExecRequest["env"] {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw invalid("env", "an object", value);
  checkKeys(value, ENV_FIELDS, "env.");
  const { inherit, exclude, allow, set } = value;
  if (inherit !== undefined && !(ENV_INHERIT_POLICIES as readonly unknown[]).includes(inherit)) {
    throw invalid("env.inherit", `one of ${ENV_INHERIT_POLICIES.map((p) => `"${p}"`).join(", ")}`, inherit);
  }
  const policy: NonNullable<ExecRequest["env"]> = {};
  if (inherit !== undefined) policy.inherit = inherit as EnvInheritPolicy;
  if (exclude !== undefined) policy.exclude = stringList(exclude, "env.exclude");
  if (allow !== undefined) policy.allow = stringList(allow, "env.allow");
  if (set !== undefined) {
    if (!isRecord(set)) throw invalid("env.set", "an object of strings", set);
    for (const [name, item] of Object.entries(set)) {
      if (typeof item !== "string") throw invalid(`env.set.${name}`, "a string", item);
    }
    policy.set = set as Record<string, string>;
  }
  return policy;
}

/**
 * Checks every field before anything is spawned; the error names the field, what was expected and what
 * was received. The same rules as `ExecRequestSchema` in @conch/protocol/schemas, without loading zod on the
 * start-up path of the CLI.
 */
export function normalizeRequest(
  request: unknown,
  parentEnv?: Record<string, string | undefined>,
): NormalizedRequest {
  if (!isRecord(request)) throw invalid("request", "an object", request);
  checkKeys(request, REQUEST_FIELDS, "");
  const argv = stringList(request.argv, "argv");
  if (argv.length === 0) throw invalid("argv", "a non-empty array of strings", argv);
  if (argv[0] === "") throw invalid("argv[0]", "a program name or path", argv[0]);
  argv.forEach((arg, index) => {
    if (arg.includes("\0")) throw invalid(`argv[${index}]`, "a string without NUL bytes", arg);
  });
  const cwdValue = request.cwd;
  if (typeof cwdValue !== "string" || cwdValue === "") throw invalid("cwd", "a directory path", cwdValue);
  const cwd = resolve(cwdValue);
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ExecError("CWD_NOT_FOUND", `invalid request: cwd: no such directory: ${cwd}`);
  }
  const env = normalizeEnv(request.env);
  return {
    argv: [...argv],
    cwd,
    env: buildEnv(env, parentEnv),
    timeoutMs: integerField(request, "timeoutMs", 1, MAX_MS, "milliseconds"),
    killGraceMs: integerField(request, "killGraceMs", 0, MAX_MS, "milliseconds") ?? DEFAULT_KILL_GRACE_MS,
    drainTimeoutMs:
      integerField(request, "drainTimeoutMs", 0, MAX_MS, "milliseconds") ?? DEFAULT_DRAIN_TIMEOUT_MS,
    maxOutputBytes:
      integerField(request, "maxOutputBytes", 2, MAX_OUTPUT_BYTES, "bytes") ?? DEFAULT_MAX_OUTPUT_BYTES,
  };
}
