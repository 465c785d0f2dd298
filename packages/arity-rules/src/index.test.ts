import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/arity-rules public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ARITY_RULES_ERROR_CODES",
      "ArityRulesError",
      "DANGEROUS_KINDS",
      "DANGEROUS_REASONS",
      "DEFAULT_WRAPPERS",
      "NEVER_WRAPPERS",
      "OPAQUE_REASONS",
      "UNREAD_REASONS",
      "analyze",
      "approvalPrefix",
      "createArityTable",
      "dangerousCommandMatch",
      "externalPaths",
      "isArityRulesError",
      "isHarmlessRedirect",
      "isKnownSafeCommand",
      "isLiteralToken",
      "parseArityToml",
      "reachableCommands",
      "setWasmLocation",
      "shellScript",
    ]);
  });
});
