import { isAbsolute } from "node:path";
import { expectedReceived, receivedValue, SANDBOX_MODES } from "@conch/protocol";
import { SandboxError } from "../errors.js";
import type { SandboxPolicy } from "../types.js";

const WORKSPACE_WRITE_FIELDS: readonly string[] = ["mode", "writableRoots", "networkAccess"];

function invalid(field: string, expected: string, value: unknown): SandboxError {
  return new SandboxError(
    "INVALID_SANDBOX_POLICY",
    `invalid sandbox policy: ${expectedReceived(field, expected, value)}`,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The policy checked field by field and copied onto a null prototype. Unknown fields are rejected: a
 * misspelt `writable_roots` silently granting nothing (or `networkAccess` on read-only silently
 * ignored) would hide a configuration mistake.
 */
export function validatePolicy(policy: unknown): SandboxPolicy {
  if (!isRecord(policy)) throw invalid("policy", "an object", policy);
  const mode = policy.mode;
  if (typeof mode !== "string" || !(SANDBOX_MODES as readonly string[]).includes(mode)) {
    throw invalid("mode", `one of ${SANDBOX_MODES.join(", ")}`, mode);
  }
  const allowed = mode === "workspace-write" ? WORKSPACE_WRITE_FIELDS : ["mode"];
  for (const key of Object.keys(policy)) {
    if (!allowed.includes(key)) {
      throw new SandboxError(
        "INVALID_SANDBOX_POLICY",
        `invalid sandbox policy: ${key}: unknown field for mode ${mode} (expected one of ${allowed.join(", ")})`,
      );
    }
  }
  if (mode !== "workspace-write") return Object.assign(Object.create(null), { mode }) as SandboxPolicy;

  const copy = Object.create(null) as {
    mode: "workspace-write";
    writableRoots?: string[];
    networkAccess?: boolean;
  };
  copy.mode = "workspace-write";
  const roots = policy.writableRoots;
  if (roots !== undefined) {
    if (!Array.isArray(roots)) throw invalid("writableRoots", "an array of paths", roots);
    roots.forEach((root: unknown, index) => {
      if (typeof root !== "string" || root === "" || root.includes("\0")) {
        throw invalid(`writableRoots[${index}]`, "a non-empty path", root);
      }
    });
    copy.writableRoots = [...(roots as string[])];
  }
  const network = policy.networkAccess;
  if (network !== undefined) {
    if (typeof network !== "boolean") throw invalid("networkAccess", "a boolean", network);
    copy.networkAccess = network;
  }
  return copy;
}

function optionError(message: string): SandboxError {
  return new SandboxError("INVALID_SANDBOX_POLICY", `invalid sandbox options: ${message}`);
}

export function patternList(options: Record<string, unknown>, field: string): string[] {
  const value = options[field] ?? [];
  if (!Array.isArray(value))
    throw optionError(`${field}: expected an array of paths, received ${receivedValue(value)}`);
  return value.map((item: unknown, index) => {
    if (typeof item !== "string" || item === "" || item.includes("\0")) {
      throw optionError(`${field}[${index}]: expected a non-empty path, received ${receivedValue(item)}`);
    }
    return item;
  });
}

/** The workspace options checked: an absolute cwd, an environment of strings, lists of paths. */
export function validateResolveOptions(options: unknown): {
  cwd: string;
  env: Record<string, string | undefined>;
  tmpDir: string | undefined;
  denyRead: string[];
  allowRead: string[];
  protect: string[];
  allowHomeRoot: boolean;
} {
  if (!isRecord(options)) throw optionError(`expected an object, received ${receivedValue(options)}`);
  const cwd = options.cwd;
  if (typeof cwd !== "string" || !isAbsolute(cwd)) {
    throw optionError(`cwd: expected an absolute path, received ${receivedValue(cwd)}`);
  }
  const env = options.env ?? process.env;
  if (!isRecord(env)) throw optionError(`env: expected an object, received ${receivedValue(env)}`);
  const tmpDir = options.tmpDir;
  if (tmpDir !== undefined && (typeof tmpDir !== "string" || !isAbsolute(tmpDir))) {
    throw optionError(`tmpDir: expected an absolute path, received ${receivedValue(tmpDir)}`);
  }
  const protect = patternList(options, "protect");
  const badProtect = protect.find((path) => !isAbsolute(path));
  if (badProtect !== undefined) {
    throw optionError(`protect: expected absolute paths, received ${receivedValue(badProtect)}`);
  }
  const allowHomeRoot = options.allowHomeRoot ?? false;
  if (typeof allowHomeRoot !== "boolean") {
    throw optionError(`allowHomeRoot: expected a boolean, received ${receivedValue(allowHomeRoot)}`);
  }
  return {
    cwd,
    env: env as Record<string, string | undefined>,
    allowHomeRoot,
    tmpDir,
    denyRead: patternList(options, "denyRead"),
    allowRead: patternList(options, "allowRead"),
    protect,
  };
}
