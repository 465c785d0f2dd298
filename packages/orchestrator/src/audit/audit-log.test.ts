import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AuditEvent, createAuditLog, recentAuditEntries } from "./audit-log.js";

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "conch-audit-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const decision: AuditEvent = {
  type: "decision",
  tool: "shell_command",
  script: "touch x",
  cwd: "/w",
  approvalPolicy: "untrusted",
  requirement: "needs-approval",
  decision: "approved_for_session",
  decidedBy: "user",
  sandbox: "workspace-write",
};

const execution: AuditEvent = {
  type: "execution",
  tool: "shell",
  argv: ["ls", "-la"],
  cwd: "/w",
  sandbox: "workspace-write",
  exitCode: 0,
  durationMs: 12.4,
  timedOut: false,
  canceled: false,
  denied: false,
};

describe("createAuditLog", () => {
  it("records session input whole and escaped, with its length and sha256, or the signal", async () => {
    const path = join(root, "audit.jsonl");
    const log = createAuditLog({ path, now: () => T0 });
    log.record({
      type: "input",
      tool: "write_stdin",
      sessionId: 4242,
      running: true,
      text: "ls\u001b[2J\r\n",
    });
    log.record({
      type: "input",
      tool: "terminal_write",
      sessionId: 7,
      running: false,
      text: `é${" ".repeat(250)}; echo payload`,
    });
    const huge = `${"a".repeat(40_000)}${"b".repeat(30_000)}${"c".repeat(40_000)}`;
    log.record({ type: "input", tool: "write_stdin", sessionId: 7, running: true, text: huge });
    log.record({ type: "input", tool: "terminal_signal", sessionId: 7, running: true, signal: "SIGTERM" });
    await log.flush();
    const head = '{"time":"2025-01-02T03:04:05.678Z","type":"input",';
    const sha = (value: string) => createHash("sha256").update(value).digest("hex");
    const lines = (await readFile(path, "utf8")).split("\n");
    expect(lines.slice(0, 2).join("\n")).toBe(
      `${head}"tool":"write_stdin","sessionId":4242,"running":true,"by":"model","bytes":8,"sha256":"${sha("ls\u001b[2J\r\n")}",` +
        // JSON doubles the backslash of each `\u{HEX}` escape.
        '"text":"ls\\\\u{1b}[2J\\\\u{0d}\\\\u{0a}"}\n' +
        `${head}"tool":"terminal_write","sessionId":7,"running":false,"by":"model","bytes":266,` +
        `"sha256":"${sha(`é${" ".repeat(250)}; echo payload`)}","text":"é${" ".repeat(250)}; echo payload"}`,
    );
    // A payload padded far past anything typed keeps its head and tail, and the digest of all of it.
    const big = JSON.parse(lines[2] as string) as { bytes: number; sha256: string; text: string };
    expect(big.bytes).toBe(110_000);
    expect(big.sha256).toBe(sha(huge));
    expect(big.text).toBe(`${"a".repeat(32_768)}… (44464 characters not kept) …${"c".repeat(32_768)}`);
    expect(lines[3]).toBe(
      `${head}"tool":"terminal_signal","sessionId":7,"running":true,"by":"model","signal":"SIGTERM"}`,
    );
  });

  it("defaults to $XDG_STATE_HOME/conch/audit.jsonl, then ~/.local/state/conch/audit.jsonl", () => {
    expect(createAuditLog({ env: { XDG_STATE_HOME: "/x" } }).path).toBe("/x/conch/audit.jsonl");
    expect(createAuditLog({ env: { HOME: "/home/u" } }).path).toBe("/home/u/.local/state/conch/audit.jsonl");
  });

  it("appends exact JSON lines, 0600, creating a 0700 directory", async () => {
    const path = join(root, "state", "conch", "audit.jsonl");
    const log = createAuditLog({ path, now: () => T0 });
    log.record(decision);
    log.record(execution);
    await log.flush();
    expect(await readFile(path, "utf8")).toBe(
      '{"time":"2025-01-02T03:04:05.678Z","type":"decision","tool":"shell_command","script":"touch x",' +
        '"cwd":"/w","approvalPolicy":"untrusted","requirement":"needs-approval",' +
        '"decision":"approved_for_session","decidedBy":"user","sandbox":"workspace-write"}\n' +
        '{"time":"2025-01-02T03:04:05.678Z","type":"execution","tool":"shell","argv":["ls","-la"],' +
        '"cwd":"/w","sandbox":"workspace-write","exitCode":0,"durationMs":12,"timedOut":false,' +
        '"canceled":false,"denied":false}\n',
    );
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, "state", "conch"))).mode & 0o777).toBe(0o700);
  });

  it("appends to an existing file", async () => {
    const path = join(root, "audit.jsonl");
    await writeFile(path, "earlier\n");
    const log = createAuditLog({ path, now: () => T0 });
    log.record(execution);
    await log.flush();
    const lines = (await readFile(path, "utf8")).split("\n");
    expect(lines[0]).toBe("earlier");
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ type: "execution", argv: ["ls", "-la"] });
    expect(lines).toHaveLength(3);
  });

  it("writes only whitelisted fields, whatever the caller attaches", async () => {
    const path = join(root, "audit.jsonl");
    const log = createAuditLog({ path, now: () => T0 });
    const leaky = {
      ...execution,
      output: "SECRET OUTPUT",
      env: { TOKEN: "SECRET ENV" },
      argv: ["echo", "hi"],
      cwd: { toString: () => "SECRET" },
      exitCode: "0",
      timedOut: "yes",
    } as unknown as AuditEvent;
    log.record(leaky);
    await log.flush();
    const text = await readFile(path, "utf8");
    expect(text).not.toContain("SECRET");
    expect(JSON.parse(text)).toEqual({
      time: "2025-01-02T03:04:05.678Z",
      type: "execution",
      tool: "shell",
      argv: ["echo", "hi"],
      cwd: null,
      sandbox: "workspace-write",
      exitCode: null,
      durationMs: 12,
      timedOut: false,
      canceled: false,
      denied: false,
    });
  });

  it("keeps 100 parallel appends as 100 intact lines in call order", async () => {
    const path = join(root, "audit.jsonl");
    const log = createAuditLog({ path, now: () => T0 });
    const scripts = Array.from({ length: 100 }, (_, i) => `echo ${i} ${"x".repeat(i * 50)}`);
    await Promise.all(scripts.map(async (script) => log.record({ ...decision, script })));
    await log.flush();
    const lines = (await readFile(path, "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => (JSON.parse(line) as { script: string }).script)).toEqual(scripts);
  });

  it("never throws on a failed write and reports it once per outage", async () => {
    const errors: Error[] = [];
    const blocked = join(root, "blocked");
    await writeFile(blocked, "");
    const path = join(blocked, "audit.jsonl");
    const log = createAuditLog({ path, now: () => T0, onError: (error) => errors.push(error) });
    log.record(decision);
    await log.flush();
    log.record(execution);
    await log.flush();
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(["EEXIST"]);

    await rm(blocked);
    log.record(execution);
    await log.flush();
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ type: "execution" });
    expect(errors).toHaveLength(1);
  });

  it("survives an onError that throws", async () => {
    const log = createAuditLog({
      path: join(root, "missing-file-as-dir", "x", "audit.jsonl"),
      onError: () => {
        throw new Error("handler broke");
      },
    });
    await writeFile(join(root, "missing-file-as-dir"), "");
    log.record(decision);
    await expect(log.flush()).resolves.toBeUndefined();
  });
});

describe("following the log", () => {
  it("subscribers get each entry as written; client, person input, a closed session and a run's spill", async () => {
    const path = join(root, "audit.jsonl");
    const log = createAuditLog({ path, now: () => T0 });
    const seen: unknown[] = [];
    const stop = log.subscribe((entry) => seen.push(entry));
    log.subscribe(() => {
      throw new Error("a listener's failure");
    });
    log.record({ ...execution, client: "claude-code", sessionId: 4242, spill: "/s/out.txt" });
    log.record({
      type: "input",
      tool: "console",
      sessionId: 4242,
      running: true,
      by: "person",
      client: null,
      text: "echo hi\n",
    });
    log.record({
      type: "session-closed",
      tool: "console",
      sessionId: 4242,
      command: "bash -i",
      reason: "closed",
      by: "person",
    });
    stop();
    log.record(decision);
    await log.flush();
    const written = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(written).toHaveLength(4);
    expect(seen).toEqual(written.slice(0, 3));
    expect(written[0]).toMatchObject({ client: "claude-code", sessionId: 4242, spill: "/s/out.txt" });
    expect(written[1]).toMatchObject({ tool: "console", by: "person", text: "echo hi\\u{0a}" });
    expect(written[1]).not.toHaveProperty("client");
    expect(written[2]).toEqual({
      time: "2025-01-02T03:04:05.678Z",
      type: "session-closed",
      tool: "console",
      sessionId: 4242,
      command: "bash -i",
      reason: "closed",
      by: "person",
    });
  });

  it("recentAuditEntries reads the last entries of the file, skipping what is not a JSON object", async () => {
    const path = join(root, "audit.jsonl");
    expect(await recentAuditEntries(path, 10)).toEqual([]);
    const lines = Array.from({ length: 30 }, (_, index) => JSON.stringify({ type: "execution", n: index }));
    await writeFile(path, `${lines.slice(0, 20).join("\n")}\nnot json\n[1]\n${lines.slice(20).join("\n")}\n`);
    expect((await recentAuditEntries(path, 5)).map((entry) => entry.n)).toEqual([25, 26, 27, 28, 29]);
    expect(await recentAuditEntries(path, 100)).toHaveLength(30);
    // Longer than the window read: only whole lines from its end, the one cut at its start skipped.
    const big = Array.from({ length: 20_000 }, (_, index) =>
      JSON.stringify({ n: index, pad: "x".repeat(80) }),
    );
    await writeFile(path, `${big.join("\n")}\n`);
    const recent = await recentAuditEntries(path, 1_000_000);
    expect(recent.at(-1)).toMatchObject({ n: 19_999 });
    expect(recent.length).toBeGreaterThan(5_000);
    expect(recent.length).toBeLessThan(20_000);
    expect(
      recent.every((entry, index) => index === 0 || entry.n === (recent[index - 1]?.n as number) + 1),
    ).toBe(true);
  });
});
