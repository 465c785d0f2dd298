// Bad input over real stdio, written as raw JSON-RPC lines (an SDK client cannot send most of it):
// malformed JSON, unknown methods and tools, wrong argument types, a 10 MB argument, 1,000 bad calls in
// a row. Each gets a JSON-RPC error or an isError result naming what was wrong; conchd keeps serving,
// its memory stays bounded, and it exits 0 when its stdin closes.
//
// conchd runs with its heap capped (V8's --max-old-space-size): memory that grew with the calls would
// end it out of memory, whatever this machine's garbage collector chooses to keep meanwhile. RSS is
// not the measure: how much garbage V8 lets pile up before collecting it depends on the machine.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN, makeWorkspace, type Workspace } from "./harness.js";

type Message = {
  id?: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

/** conchd's heap cap: about twice what it holds with a thousand calls in flight. */
const HEAP_MB = 48;

let ws: Workspace;
let child: ChildProcessWithoutNullStreams;
let exited: Promise<number | null>;
const waiting = new Map<number | string | null, (message: Message) => void>();
let received: Message[];
let stderr: string;
let lines: Interface;

beforeEach(async () => {
  ws = makeWorkspace();
  received = [];
  child = spawn(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, BIN, "--cwd", ws.cwd, "--sandbox", "danger-full-access"],
    {
      cwd: ws.cwd,
      env: ws.env,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    const message = JSON.parse(line) as Message;
    received.push(message);
    const id = message.id ?? null;
    waiting.get(id)?.(message);
    waiting.delete(id);
  });
  await request(0, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
});
afterEach(async () => {
  child.stdin.end();
  expect(await exited).toBe(0);
  ws.remove();
});

function reply(id: number | string | null): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to ${String(id)}`)), 30_000);
    waiting.set(id, (message) => {
      clearTimeout(timer);
      resolve(message);
    });
  });
}

function request(id: number, method: string, params: unknown): Promise<Message> {
  const answer = reply(id);
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  return answer;
}

const call = (id: number, name: string, args: unknown) =>
  request(id, "tools/call", { name, arguments: args });
const text = (message: Message) =>
  (message.result?.content as { text: string }[] | undefined)?.[0]?.text ?? "";

describe("conchd and bad input", () => {
  it("malformed JSON gets a parse error, and the next request is answered", async () => {
    const parse = reply(null);
    child.stdin.write("{this is not json\n");
    expect((await parse).error?.code).toBe(-32700);
    const ok = await call(1, "shell_command", { command: "echo still-here" });
    expect(text(ok)).toContain("still-here");
  });

  it("an unknown method, an unknown tool and wrong argument types name what was wrong", async () => {
    expect((await request(1, "no/such/method", {})).error?.code).toBe(-32601);
    const unknown = await call(2, "rm_rf", {});
    const unknownText = unknown.error?.message ?? text(unknown);
    expect(unknownText).toContain("rm_rf");
    const wrong = await call(3, "shell_command", { command: 42, timeout_ms: "soon" });
    expect(wrong.result?.isError).toBe(true);
    expect(text(wrong)).toContain("command");
    const missing = await call(4, "shell_command", {});
    expect(missing.result?.isError).toBe(true);
    expect(text(missing)).toContain("command");
    const notObject = await request(5, "tools/call", { name: "shell_command", arguments: "echo hi" });
    expect(notObject.error !== undefined || notObject.result?.isError === true).toBe(true);
  });

  it("a 10 MB argument is refused without a crash, and conchd keeps serving", async () => {
    const huge = "x".repeat(10 * 1024 * 1024);
    const answer = await Promise.race([
      call(1, "shell_command", { command: `echo ${huge}` }).then((message) => ({ message })),
      exited.then((code) => ({ exited: code })),
    ]);
    expect("message" in answer).toBe(true);
    const message = (answer as { message: Message }).message;
    expect(message.error?.code).toBe(-32600);
    expect(message.error?.message).toMatch(/the message is \d+ bytes; conchd takes at most 4194304 bytes/);
    expect(text(await call(2, "shell_command", { command: "echo after-huge" }))).toContain("after-huge");
  });

  it("10,000 malformed calls, a thousand at a time: all answered, in a heap that cannot grow", async () => {
    await call(1, "shell_command", { command: "true" });
    for (let round = 0; round < 10; round++) {
      const answers: Promise<Message>[] = [];
      // The first round's answers find nobody reading for a while: they queue in conchd.
      if (round === 0) lines.pause();
      for (let i = 0; i < 1000; i++) {
        const id = 1000 + round * 1000 + i;
        answers.push(call(id, "shell_command", { command: ["not", "a", "string"], workdir: i }));
      }
      if (round === 0) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        lines.resume();
      }
      const all = await Promise.race([
        Promise.all(answers),
        exited.then((code) => {
          throw new Error(`conchd exited (${String(code)}) in round ${round}: out of memory?`);
        }),
      ]);
      expect(all.every((message) => message.result?.isError === true)).toBe(true);
      expect(text(all[999] as Message)).toContain("command");
    }
    // Bursts of answers are no leak, and nothing on stderr says there is one.
    expect(stderr).not.toMatch(/Warning/);
    // Still serving; it exits 0 when its stdin closes (afterEach).
    expect(text(await call(2, "shell_command", { command: "echo after-ten-thousand" }))).toContain(
      "after-ten-thousand",
    );
  });
});
