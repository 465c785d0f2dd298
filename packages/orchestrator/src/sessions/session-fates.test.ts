import { SessionStore } from "@conch/unified-exec";
import { afterEach, describe, expect, it } from "vitest";
import { SessionFates } from "./session-fates.js";

const stores: SessionStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.terminateAll()));
});

function storeWithFates(graceMs: number, now: () => number): { store: SessionStore; fates: SessionFates } {
  // Room for two sessions, none protected: the third start prunes the least recently used.
  const store = new SessionStore({ maxSessions: 2, protectedRecent: 0 });
  stores.push(store);
  return { store, fates: new SessionFates(store, graceMs, now) };
}

const spec = (script: string) => ({ argv: ["sh", "-c", script], command: script, cwd: "/", tty: false });

describe("SessionFates", () => {
  it("tells an exited session from a pruned or closed one, for the grace period", async () => {
    let now = 0;
    const { store, fates } = storeWithFates(600_000, () => now);
    const exited = await store.start(spec("sleep 1; exit 5"), 250);
    await store.write(exited.sessionId, "", 5000);
    const running = await store.start(spec("sleep 60"), 250);
    const finished = await store.start(spec("exit 2"), 250);
    expect(finished.running).toBe(false);
    const pruning = await store.start(spec("sleep 60"), 250);
    // Full: the older of the two live ones goes, and its tree is killed.
    const third = await store.start(spec("sleep 60"), 250);
    expect([pruning.pruned, third.pruned]).toEqual([null, running.sessionId]);
    fates.pruned(running.sessionId);
    await store.close(pruning.sessionId);
    fates.closed(pruning.sessionId, null);

    expect(fates.describe(exited.sessionId)).toBe(
      `session ${exited.sessionId} exited with code 5; its final output was returned by an earlier call`,
    );
    expect(fates.describe(running.sessionId)).toBe(
      `Unknown process id ${running.sessionId} (it was pruned: the 64-session store was full; its process was killed)`,
    );
    expect(fates.describe(pruning.sessionId)).toBe(`Unknown process id ${pruning.sessionId} (it was closed)`);
    const unused = [4242, 4243, 4244].find(
      (id) => ![exited, running, finished, pruning, third].some((r) => r.sessionId === id),
    );
    expect(fates.describe(unused as number)).toBe(`Unknown process id ${unused} (no session had that id)`);

    now += 600_001;
    expect(fates.describe(exited.sessionId)).toBe(
      `Unknown process id ${exited.sessionId} (its session ended more than 10 minutes ago)`,
    );
  });

  it("turns the store's UNKNOWN_SESSION into the words, and leaves other errors alone", async () => {
    const { store, fates } = storeWithFates(60_000, Date.now);
    const error = await store.write(4242, "", 250).catch((thrown: unknown) => thrown);
    expect(fates.explain(4242, error)).toMatchObject({
      code: "UNKNOWN_SESSION",
      message: "Unknown process id 4242 (no session had that id)",
      cause: error,
    });
    const other = new Error("boom");
    expect(fates.explain(4242, other)).toBe(other);
  });
});
