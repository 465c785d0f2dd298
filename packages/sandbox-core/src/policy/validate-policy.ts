import { isAbsolute } from "node:path";
import { SandboxError } from "../errors.js";
import type { SandboxMode, SandboxPolicy } from "../types.js";

export const SANDBOX_MODES: readonly SandboxMode[] = [
  "read-only",
  "workspace-write",
  "danger-full-access",
  "external-sandbox",
];

const WORKSPACE_WRITE_FIELDS: readonly string[] = ["mode", "writableRoots", "networkAccess"];

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `an array of ${value.length}`;
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

function invalid(field: string, expected: string, value: unknown): SandboxError {
  return new SandboxError(
    "INVALID_SANDBOX_POLICY",
    `invalid sandbox policy: ${field}: expected ${expected}, received ${describeValue(value)}`,
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
  const mode = policy["mode"];
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
  const roots = policy["writableRoots"];
  if (roots !== undefined) {
    if (!Array.isArray(roots)) throw invalid("writableRoots", "an array of paths", roots);
    roots.forEach((root: unknown, index) => {
      if (typeof root !== "string" || root === "" || root.includes("\0")) {
        throw invalid(`writableRoots[${index}]`, "a non-empty path", root);
      }
    });
    copy.writableRoots = [...(roots as string[])];
  }
  const network = policy["networkAccess"];
  if (network !== undefined) {
    if (typeof network !== "boolean") throw invalid("networkAccess", "a boolean", network);
    copy.networkAccess = network;
  }
  return copy;
}

/** The resolve options checked: an absolute cwd, an environment of strings. */
export function validateResolveOptions(options: unknown): {
  cwd: string;
  env: Record<string, string | undefined>;
} {
  if (!isRecord(options)) {
    throw new SandboxError(
      "INVALID_SANDBOX_POLICY",
      `invalid sandbox options: expected an object, received ${describeValue(options)}`,
    );
  }
  const cwd = options["cwd"];
  if (typeof cwd !== "string" || !isAbsolute(cwd)) {
    throw new SandboxError(
      "INVALID_SANDBOX_POLICY",
      `invalid sandbox options: cwd: expected an absolute path, received ${describeValue(cwd)}`,
    );
  }
  const env = options["env"] ?? process.env;
  if (!isRecord(env)) {
    throw new SandboxError(
      "INVALID_SANDBOX_POLICY",
      `invalid sandbox options: env: expected an object, received ${describeValue(env)}`,
    );
  }
  return { cwd, env: env as Record<string, string | undefined> };
}
