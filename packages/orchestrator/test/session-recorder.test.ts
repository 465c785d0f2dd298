// PTY sessions recorded as asciicast v2 files, with real PTYs: what a terminal showed, in order, with its
// resizes; bounded; private; listed newest first.
import { readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { SessionStore } from "@conch/unified-exec";
import { afterEach, beforeEach, expect, it } from "vitest";
import { listRecordings, recordSessions } from "../src/sessions/session-recorder.js";

let root: string;
let store: SessionStore;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "conch-recorder-"));
  store = new SessionStore();
});
afterEach(async () => {
  await store.terminateAll();
  await rm(root, { recursive: true, force: true });
});

function cast(path: string): { header: Record<string, unknown>; events: [number, string, string][] } {
  const [head, ...lines] = readFileSync(path, "utf8").trim().split("\n");
  return {
    header: JSON.parse(head as string) as Record<string, unknown>,
    events: lines.map((line) => JSON.parse(line) as [number, string, string]),
  };
}

const spec = (argv: string[], tty: boolean) => ({
  argv,
  command: argv.join(" "),
  cwd: root,
  tty,
  env: { set: { HOME: root } },
});

describeWith(["linux", "pty"], "session recordings", () => {
  it("a PTY session's output and resizes, in order, in a private file; pipe sessions are not recorded", async () => {
    const dir = join(root, "recordings");
    recordSessions(store, { dir, maxBytes: 16 * 1024 * 1024 });
    const started = await store.start(spec(["bash", "--norc", "--noprofile", "-i"], true), 250);
    store.resize(started.sessionId, 100, 30);
    const done = await store.write(
      started.sessionId,
      "printf 'caf\\xc3\\xa9 %s\\n' {1..3000}; exit\n",
      10_000,
    );
    expect(done.running).toBe(false);
    await store.start(spec(["echo", "piped"], false), 2000);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [recording, ...others] = listRecordings(dir);
    expect(others).toEqual([]);
    expect(recording).toMatchObject({ sessionId: started.sessionId, command: "bash --norc --noprofile -i" });
    expect(recording?.name).toMatch(new RegExp(`^${started.sessionId}-\\d{8}T\\d{9}Z\\.cast$`));
    expect(statSync(recording?.path as string).mode & 0o777).toBe(0o600);
    const { header, events } = cast(recording?.path as string);
    expect(header).toMatchObject({
      version: 2,
      width: 80,
      height: 24,
      command: "bash --norc --noprofile -i",
      title: `conch session ${started.sessionId}`,
    });
    expect(typeof header.timestamp).toBe("number");
    expect(events.filter(([, kind]) => kind === "r")).toEqual([[expect.any(Number), "r", "100x30"]]);
    const times = events.map(([time]) => time);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const shown = events
      .filter(([, kind]) => kind === "o")
      .map(([, , text]) => text)
      .join("");
    // What follows a line's last carriage return is what it shows (bash turns bracketed paste off first).
    const lines = shown
      .split("\r\n")
      .map((line) => line.slice(line.lastIndexOf("\r") + 1))
      .filter((line) => line.startsWith("café "));
    expect(lines).toEqual(Array.from({ length: 3000 }, (_, index) => `café ${index + 1}`));
  });

  it("stops at its size limit and says so in its last event", async () => {
    const dir = join(root, "recordings");
    recordSessions(store, { dir, maxBytes: 64 * 1024 });
    await store.start(spec(["seq", "1", "100000"], true), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [recording] = listRecordings(dir);
    expect(recording?.bytes).toBeLessThan(64 * 1024 + 512);
    const { events } = cast(recording?.path as string);
    expect(events.at(-1)?.[2]).toBe("\r\n[conch: recording stopped at its limit of 64 KiB]\r\n");
  });
});
