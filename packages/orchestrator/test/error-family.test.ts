// Every Conch error class, with every code it may carry, against every guard: a guard accepts its own
// class only, even where codes are shared (INVALID_REQUEST, SPAWN_FAILED, CWD_NOT_FOUND, INVALID_RULES), and
// isConchError accepts them all.
import { APPROVAL_ERROR_CODES, ApprovalError, isApprovalError } from "@conch/approval";
import { ARITY_RULES_ERROR_CODES, ArityRulesError, isArityRulesError } from "@conch/arity-rules";
import { EXEC_ERROR_CODES, ExecError, isExecError } from "@conch/exec-core";
import { EXEC_POLICY_ERROR_CODES, ExecPolicyError, isExecPolicyError } from "@conch/exec-policy";
import { type ConchError, type ConchErrorCode, isConchError } from "@conch/protocol";
import { isSandboxError, SANDBOX_ERROR_CODES, SandboxError } from "@conch/sandbox-core";
import { isShellDetectError, SHELL_DETECT_ERROR_CODES, ShellDetectError } from "@conch/shell-detect";
import { isUnifiedExecError, UNIFIED_EXEC_ERROR_CODES, UnifiedExecError } from "@conch/unified-exec";
import { describe, expect, it } from "vitest";
import { isOrchestratorError, ORCHESTRATOR_ERROR_CODES, OrchestratorError } from "../src/errors.js";

interface Member {
  readonly name: string;
  readonly codes: readonly ConchErrorCode[];
  readonly make: (code: never) => ConchError;
  readonly guard: (value: unknown) => boolean;
}

const member = <C extends ConchErrorCode>(
  name: string,
  codes: readonly C[],
  make: (code: C) => ConchError,
  guard: (value: unknown) => boolean,
): Member => ({ name, codes, make, guard });

const FAMILY: readonly Member[] = [
  member(
    "ShellDetectError",
    SHELL_DETECT_ERROR_CODES,
    (c) => new ShellDetectError(c, "x"),
    isShellDetectError,
  ),
  member("ArityRulesError", ARITY_RULES_ERROR_CODES, (c) => new ArityRulesError(c, "x"), isArityRulesError),
  member("ExecError", EXEC_ERROR_CODES, (c) => new ExecError(c, "x"), isExecError),
  member("ExecPolicyError", EXEC_POLICY_ERROR_CODES, (c) => new ExecPolicyError(c, "x"), isExecPolicyError),
  member("ApprovalError", APPROVAL_ERROR_CODES, (c) => new ApprovalError(c, "x"), isApprovalError),
  member("SandboxError", SANDBOX_ERROR_CODES, (c) => new SandboxError(c, "x"), isSandboxError),
  member(
    "UnifiedExecError",
    UNIFIED_EXEC_ERROR_CODES,
    (c) => new UnifiedExecError(c, "x"),
    isUnifiedExecError,
  ),
  member(
    "OrchestratorError",
    ORCHESTRATOR_ERROR_CODES,
    (c) => new OrchestratorError(c, "x"),
    isOrchestratorError,
  ),
];

const ERRORS = FAMILY.flatMap(({ name, codes, make }) =>
  codes.map((code) => [name, code, (make as (code: ConchErrorCode) => ConchError)(code)] as const),
);

describe("the Conch error family", () => {
  it.each(ERRORS)("a %s with %s is recognised by its own guard and by no other", (name, code, error) => {
    const accepted = FAMILY.filter(({ guard }) => guard(error)).map((other) => other.name);
    expect(accepted).toEqual([name]);
    expect([isConchError(error), error.name, error.code]).toEqual([true, name, code]);
  });

  it("shares codes across classes, which is why each guard reads its class's brand", () => {
    const owners = new Map<ConchErrorCode, string[]>();
    for (const [name, code] of ERRORS) owners.set(code, [...(owners.get(code) ?? []), name]);
    expect(Object.fromEntries([...owners].filter(([, names]) => names.length > 1))).toEqual({
      INVALID_REQUEST: ["ShellDetectError", "ExecError", "UnifiedExecError", "OrchestratorError"],
      CWD_NOT_FOUND: ["ExecError", "SandboxError"],
      SPAWN_FAILED: ["ExecError", "UnifiedExecError"],
      INVALID_RULES: ["ExecPolicyError", "ApprovalError"],
    });
  });

  it("is told from errors that only look like one", () => {
    const lookalike = Object.assign(new Error("x"), { code: "SPAWN_FAILED" });
    expect(FAMILY.filter(({ guard }) => guard(lookalike))).toEqual([]);
    expect(isConchError(lookalike)).toBe(false);
  });
});
