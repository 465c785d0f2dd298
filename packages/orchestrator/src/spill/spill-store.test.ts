import { Buffer } from "node:buffer";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSpillStore, DEFAULT_SPILL_RETENTION_MS } from "./spill-store.js";

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "conch-spill-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("createSpillStore", () => {
  it("defaults to $XDG_STATE_HOME/conch/spill, then ~/.local/state/conch/spill", () => {
    expect(createSpillStore({ env: { XDG_STATE_HOME: "/x" } }).dir).toBe("/x/conch/spill");
    expect(createSpillStore({ env: { HOME: "/home/u" } }).dir).toBe("/home/u/.local/state/conch/spill");
  });

  it("writes the whole output, 0600 in a new 0700 directory, under a time-sorted unique name", async () => {
    const dir = join(root, "a", "spill");
    const store = createSpillStore({ dir, now: () => T0 });
    const first = await store.write("hello\nworld\n", { label: "Shell Command!" });
    const second = await store.write(new Uint8Array([0xff, 0x00, 0x41]), { label: "shell_command" });

    expect(first).toEqual({ path: first.path, bytes: 12, fileBytes: 12, omittedBytes: 0 });
    expect(basename(first.path)).toMatch(/^20250102T030405678Z-[0-9a-f]{8}-shell-command\.txt$/);
    expect(basename(second.path)).toMatch(/^20250102T030405678Z-[0-9a-f]{8}-shell_command\.txt$/);
    expect(second.path).not.toBe(first.path);
    expect(await readFile(first.path, "utf8")).toBe("hello\nworld\n");
    expect([...(await readFile(second.path))]).toEqual([0xff, 0x00, 0x41]);
    expect((await stat(first.path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await readdir(dir)).sort()).toEqual([basename(first.path), basename(second.path)].sort());
  });

  it("names sort by time", async () => {
    let now = T0;
    const store = createSpillStore({ dir: root, now: () => now });
    const paths: string[] = [];
    for (let i = 0; i < 5; i++) {
      paths.push((await store.write(String(i))).path);
      now += 1;
    }
    expect(paths.map((p) => basename(p)).sort()).toEqual(paths.map((p) => basename(p)));
  });

  it("keeps head and tail within maxFileBytes, with the exact omitted count", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const input = Buffer.alloc(5000, "a");
    input.fill("z", 2500);
    const result = await store.write(input);
    // 40 bytes are set aside for the longest marker; the rest is half head, half tail.
    expect(result).toEqual({ path: result.path, bytes: 5000, fileBytes: 1012, omittedBytes: 4016 });
    const onDisk = await readFile(result.path, "utf8");
    expect(onDisk).toBe(`${"a".repeat(492)}\n... 4016 bytes omitted ...\n${"z".repeat(492)}`);
  });

  it("never cuts a UTF-8 character when capping", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const input = "é".repeat(3000);
    const result = await store.write(input);
    const onDisk = await readFile(result.path, "utf8");
    expect(onDisk).not.toContain("\ufffd");
    expect(result.fileBytes).toBe(Buffer.byteLength(onDisk));
    expect(result.fileBytes).toBeLessThanOrEqual(1024);
    expect(
      result.bytes -
        result.omittedBytes +
        Buffer.byteLength(`\n... ${result.omittedBytes} bytes omitted ...\n`),
    ).toBe(result.fileBytes);
  });

  it("a 5 MB output round-trips exactly under the default cap", async () => {
    const store = createSpillStore({ dir: root });
    const input = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < input.length; i++) input[i] = i % 251;
    const result = await store.write(input, { label: "shell_command" });
    expect(result.omittedBytes).toBe(0);
    expect((await readFile(result.path)).equals(input)).toBe(true);
  });

  it("streams output chunk by chunk: the tail is the latest output, however often the ring wraps", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const file = await store.open({ label: "shell_command" });
    const lines: string[] = [];
    for (let i = 0; i < 500; i++) lines.push(`line ${i}\n`);
    for (const line of lines) await file.append(Buffer.from(line));
    const all = Buffer.from(lines.join(""));
    expect(file.bytes).toBe(all.length);
    const result = await file.finish();
    const onDisk = await readFile(result.path);
    const omitted = all.length - 984;
    expect(result).toEqual({
      path: file.path,
      bytes: all.length,
      fileBytes: onDisk.length,
      omittedBytes: omitted,
    });
    expect(onDisk.toString()).toBe(
      `${all.subarray(0, 492)}\n... ${omitted} bytes omitted ...\n${all.subarray(all.length - 492)}`,
    );
    expect(await readdir(root)).toEqual([basename(result.path)]);
  });

  it("a chunk larger than the ring keeps only its end; a short tail is kept whole", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const big = await store.open();
    await big.append(Buffer.alloc(10_000, "b"));
    await big.append(Buffer.from("END"));
    const bigResult = await big.finish();
    expect((await readFile(bigResult.path, "utf8")).endsWith(`${"b".repeat(489)}END`)).toBe(true);
    expect(bigResult.omittedBytes).toBe(10_003 - 984);

    const small = await store.open();
    await small.append(Buffer.alloc(700, "s"));
    const smallResult = await small.finish();
    expect(smallResult).toEqual({ path: small.path, bytes: 700, fileBytes: 700, omittedBytes: 0 });
    expect(await readFile(smallResult.path, "utf8")).toBe("s".repeat(700));
  });

  it("abort leaves nothing behind", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const file = await store.open();
    await file.append(Buffer.alloc(5000, "x"));
    await file.abort();
    expect(await readdir(root)).toEqual([]);
  });

  it("deletes expired spill files on write after the default 7 days, and only its own", async () => {
    let now = T0;
    const store = createSpillStore({ dir: root, now: () => now, sweepIntervalMs: 0 });
    await store.write("old");
    await writeFile(join(root, "notes.txt"), "not a spill file");
    await writeFile(join(root, ".20250101T000000000Z-00000000-x.txt.tmp"), "crashed write");

    now = T0 + DEFAULT_SPILL_RETENTION_MS;
    const edge = await store.write("exactly at retention");
    expect(await readdir(root)).toHaveLength(3);

    now += 1;
    const fresh = await store.write("fresh");
    expect((await readdir(root)).sort()).toEqual(
      [basename(edge.path), basename(fresh.path), "notes.txt"].sort(),
    );
  });

  it("sweeps at most once per interval", async () => {
    let now = T0;
    const store = createSpillStore({ dir: root, now: () => now, retentionMs: 1000, sweepIntervalMs: 60_000 });
    await store.write("a");
    now = T0 + 30_000;
    await store.write("b");
    // `a` expired 29 s ago, but the last sweep was only 30 s ago.
    expect(await readdir(root)).toHaveLength(2);
    now = T0 + 60_000;
    const c = await store.write("c");
    expect(await readdir(root)).toEqual([basename(c.path)]);
  });

  it("sweep() reports how many it deleted and tolerates a missing directory", async () => {
    let now = T0;
    const store = createSpillStore({ dir: root, retentionMs: DAY, now: () => now });
    await store.write("1");
    await store.write("2");
    now += DAY + 1;
    expect(await store.sweep()).toBe(2);
    expect(await createSpillStore({ dir: join(root, "missing") }).sweep()).toBe(0);
  });

  it("a failing sweep never fails the write", async () => {
    const store = createSpillStore({ dir: root, now: () => T0 });
    // An expired spill name that is a directory: the sweep's unlink fails.
    const trap = join(root, "20000101T000000000Z-00000000-trap.txt");
    await mkdir(join(trap, "inside"), { recursive: true });
    const result = await store.write("ok");
    expect(await readFile(result.path, "utf8")).toBe("ok");
    expect((await readdir(root)).sort()).toEqual([basename(trap), basename(result.path)].sort());
  });

  it("fails the write, leaving no temp file, when the directory cannot be created", async () => {
    await writeFile(join(root, "file"), "");
    const store = createSpillStore({ dir: join(root, "file", "spill") });
    await expect(store.write("x")).rejects.toMatchObject({ code: "ENOTDIR" });
    expect(await readdir(root)).toEqual(["file"]);
  });

  it("names the option and the value it rejects", () => {
    expect(() => createSpillStore({ maxFileBytes: 10 })).toThrow(
      new RangeError("maxFileBytes must be an integer >= 1024, received 10"),
    );
    expect(() => createSpillStore({ retentionMs: -1 })).toThrow(
      new RangeError("retentionMs must be an integer >= 0, received -1"),
    );
  });
});
