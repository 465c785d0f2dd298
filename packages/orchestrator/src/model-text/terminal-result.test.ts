import { describe, expect, it } from "vitest";
import { unknownTerminalText } from "./terminal-result.js";

describe("unknownTerminalText", () => {
  it("words each fate the orchestrator tells for terminals", () => {
    const cases: [string, string][] = [
      [
        "session 1001 exited with code 3; its final output was returned by an earlier call",
        "Terminal 1001 exited with code 3 and was closed (terminal_list shows the open ones)",
      ],
      [
        "Unknown process id 1001 (it was closed by a person)",
        "Unknown terminal id 1001 (it was closed by a person; terminal_list shows the open ones)",
      ],
      [
        "Unknown process id 1001 (it was pruned: the 64-session store was full; its process was killed)",
        "Unknown terminal id 1001 (it was pruned: the 64-terminal store was full; its process was killed; " +
          "terminal_list shows the open ones)",
      ],
      [
        "Unknown process id 1001 (its session ended more than 10 minutes ago)",
        "Unknown terminal id 1001 (its terminal ended more than 10 minutes ago; terminal_list shows the open ones)",
      ],
      ["Unknown process id 1001", "Unknown terminal id 1001 (terminal_list shows the open ones)"],
    ];
    for (const [fate, text] of cases) expect(unknownTerminalText(1001, fate), fate).toBe(text);
  });
});
