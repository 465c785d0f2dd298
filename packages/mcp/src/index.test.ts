import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/mcp public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "CALL_LIMIT_MS",
      "MCP_PATH",
      "createDaemon",
      "createMcpHttp",
      "replyError",
      "serveOnStdio",
      "serveOptionsFromFlags",
    ]);
  });
});
