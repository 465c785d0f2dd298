// Issue 10, item 5 and its neighbours: what the person is asked about is what would run. The prompt's
// escaping of every control character is tested in ../visible-text.test.ts; these check the program.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { conch, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

function ask(tool: string, args: Record<string, unknown>, approval = "untrusted"): string {
  const run = conch(
    ws,
    ["tool", "call", "--approval", approval, "--approver", "tty", tool, JSON.stringify(args)],
    {
      input: "n\n",
    },
  );
  expect(run.status).toBe(4);
  return run.stderr;
}

describe("the approval prompt names the program that would run", () => {
  it("an argv shaped like a shell script shows its real program, not only the script", () => {
    writeFileSync(join(ws.cwd, "evil"), "#!/bin/sh\nid > pwned\n", { mode: 0o755 });
    const prompt = ask(
      "shell",
      {
        command: ["./evil", "-c", "ls -la"],
        sandbox_permissions: "require_escalated",
        justification: "list files",
      },
      "on-request",
    );
    expect(prompt).toContain("  shell:    ./evil -c\n  command:  ls -la\n");
    const python = ask("shell", { command: ["/usr/bin/python3", "-c", "git status"] });
    expect(python).toContain("  shell:    /usr/bin/python3 -c\n  command:  git status\n");
  });

  it("any other argv is shown whole, each word quoted where the shell would need it", () => {
    const prompt = ask("shell", { command: ["touch", "a b", "c;d", "$HOME"] });
    expect(prompt).toContain("  command:  touch 'a b' 'c;d' '$HOME'\n");
  });
});
