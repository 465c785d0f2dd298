import { describe, expect, it, vi } from "vitest";
import * as api from "./index.js";

// Records whether anything asked for zod: the root entry must not, so that every package may import it
// at run time for free (zod costs about 50 ms and 7.5 MB).
const requested = vi.hoisted(() => new Set<string>());
vi.mock("zod", async (importOriginal) => {
  requested.add("zod");
  return importOriginal();
});

describe("@conch/protocol public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "APPROVAL_POLICIES",
      "CONCH_ERROR_CODES",
      "ConchError",
      "ENV_INHERIT_POLICIES",
      "EXEC_PROTOCOL_VERSION",
      "INTERPRETERS",
      "NETWORK_ACCESS_MODES",
      "REJECTION_KINDS",
      "REVIEW_DECISIONS",
      "SANDBOX_MODES",
      "SANDBOX_PERMISSIONS",
      "SHELLS",
      "TERMINAL_SIGNALS",
      "TOOL_CALL_STATUSES",
      "TOOL_LIMITS",
      "TOOL_PROFILE_NAMES",
      "conchErrorGuard",
      "expectedReceived",
      "isConchError",
      "receivedValue",
      "shellNames",
      "visibleText",
    ]);
  });

  it("loads no zod; the schemas entry does", async () => {
    expect([...requested]).toEqual([]);
    await import("./schemas/index.js");
    expect([...requested]).toEqual(["zod"]);
  });

  it("keeps Codex's words, strictest first", () => {
    expect(api.APPROVAL_POLICIES).toEqual(["untrusted", "on-failure", "on-request", "never"]);
    expect(api.SANDBOX_MODES).toEqual([
      "read-only",
      "workspace-write",
      "danger-full-access",
      "external-sandbox",
    ]);
    expect(api.SANDBOX_PERMISSIONS).toEqual(["use_default", "require_escalated"]);
    expect(api.ENV_INHERIT_POLICIES).toEqual(["none", "core", "all"]);
  });
});
