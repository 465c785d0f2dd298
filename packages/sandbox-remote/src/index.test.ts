import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/sandbox-remote public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "REMOTE_ERROR_CODES",
      "RemoteError",
      "createAgentBackend",
      "isRemoteError",
      "newProcessId",
      "sandboxIntent",
      "signBinding",
    ]);
  });
});
