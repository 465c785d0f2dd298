import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../approver.js";
import { approvalFields, sessionInputNeedsApproval } from "./approval-fields.js";

const LESS: ApprovalRequest = {
  argv: ["/bin/bash", "-lc", "less notes.txt"],
  cwd: "/work/ws",
  reason: null,
  proposedRule: null,
  justification: "read the notes",
  sandboxMode: "workspace-write",
  sandboxPermissions: "require_escalated",
  tty: true,
};

describe("approvalFields: why", () => {
  it("says what decided it, in the words the model got, rather than the policy's general ones", () => {
    const rm: ApprovalRequest = {
      ...LESS,
      argv: ["rm", "-rf", "build"],
      sandboxPermissions: "use_default",
      tty: false,
      explanation: {
        why: "`rm -rf build` is dangerous: rm with -f/--force deletes without asking and cannot be undone",
        advice: "Ask first.",
        notAsked: null,
      },
    };
    expect(approvalFields(rm, "on-request").at(-1)).toEqual({
      label: "why",
      value: "`rm -rf build` is dangerous: rm with -f/--force deletes without asking and cannot be undone",
    });
    const { explanation: _, ...plain } = rm;
    expect(approvalFields(plain, "on-request").at(-1)).toEqual({
      label: "why",
      value: "it may be dangerous, and the approval policy (on-request) asks first",
    });
  });
});

describe("approvalFields (issue 20, §5)", () => {
  it("says that an escalated terminal is one the agent types into, and that its input is asked", () => {
    expect(approvalFields(LESS, "on-request")).toEqual([
      { label: "shell", value: "/bin/bash -lc" },
      { label: "command", value: "less notes.txt" },
      { label: "model", value: "read the notes" },
      { label: "cwd", value: "/work/ws" },
      { label: "sandbox", value: "none: it would run outside the sandbox" },
      {
        label: "terminal",
        value:
          "an interactive terminal outside the sandbox that the agent types into: each thing it types but Ctrl-C is asked again, shown here first",
      },
      { label: "why", value: "the model asks to run it outside the sandbox (workspace-write)" },
    ]);
    // The same command without a terminal, or inside the sandbox, has no such row.
    expect(approvalFields({ ...LESS, tty: false }, "on-request").map((f) => f.label)).not.toContain(
      "terminal",
    );
    expect(
      approvalFields({ ...LESS, sandboxPermissions: "use_default" }, "untrusted").map((f) => f.label),
    ).not.toContain("terminal");
    // A retry outside the sandbox after a denial, and no sandbox at all, are outside it too.
    const retried = approvalFields(
      { ...LESS, sandboxPermissions: "use_default", sandboxDenial: "bwrap: denied" },
      "on-failure",
    );
    expect(retried.find((f) => f.label === "terminal")?.value).toBe(
      "an interactive terminal outside the sandbox that the agent types into: each thing it types but Ctrl-C is asked again, shown here first",
    );
    const unconfined = approvalFields(
      { ...LESS, sandboxPermissions: "use_default", sandboxMode: "danger-full-access" },
      "on-request",
    );
    expect(unconfined.find((f) => f.label === "terminal")?.value).toBe(
      "an interactive terminal outside the sandbox that the agent types into: what it types runs unasked",
    );
  });

  it("shows typed input on one line, with the session it goes to", () => {
    const fields = approvalFields(
      { ...LESS, input: { sessionId: 4242, text: "!touch /tmp/x\n" } },
      "on-request",
    );
    expect(fields.slice(0, 4)).toEqual([
      { label: "input", value: "!touch /tmp/x\\u{0a}" },
      { label: "session", value: "4242" },
      { label: "shell", value: "/bin/bash -lc" },
      { label: "command", value: "less notes.txt" },
    ]);
    expect(fields.find((f) => f.label === "why")?.value).toBe(
      "the model types this into session 4242, which runs outside the sandbox: what the program does with it (a shell's next line, less's or vi's `!`) runs on the host",
    );
    expect(fields.find((f) => f.label === "sandbox")?.value).toBe("none: it would run outside the sandbox");
  });

  it("never lets the model's words make a row of their own: their line breaks are escaped", () => {
    const fields = approvalFields(
      {
        ...LESS,
        justification: "fine\nsandbox:  workspace-write\nwhy:      read-only",
        description: "list\r\nfiles",
        cwd: "/work/a\nb",
      },
      "on-request",
    );
    expect(fields.find((f) => f.label === "model")?.value).toBe(
      "fine\\u{0a}sandbox:  workspace-write\\u{0a}why:      read-only",
    );
    expect(fields.find((f) => f.label === "purpose")?.value).toBe("list\\u{0d}\\u{0a}files");
    expect(fields.find((f) => f.label === "cwd")?.value).toBe("/work/a\\u{0a}b");
    // A script keeps its lines: every route shows them behind a gutter.
    expect(approvalFields({ ...LESS, argv: ["/bin/bash", "-lc", "cd x\nmake"] }, "on-request")[1]).toEqual({
      label: "command",
      value: "cd x\nmake",
    });
  });

  it("asks for typed input wherever a sandbox is kept, or every unread command is asked", () => {
    expect(sessionInputNeedsApproval("workspace-write", "on-request")).toBe(true);
    expect(sessionInputNeedsApproval("read-only", "never")).toBe(true);
    expect(sessionInputNeedsApproval("danger-full-access", "untrusted")).toBe(true);
    expect(sessionInputNeedsApproval("danger-full-access", "on-request")).toBe(false);
    expect(sessionInputNeedsApproval("external-sandbox", "on-failure")).toBe(false);
  });
});
