import { Buffer } from "node:buffer";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatCount } from "../text/counts.js";
import { createSpillStore, DEFAULT_SPILL_RETENTION_MS } from "./spill-store.js";
import type { SpillGap } from "./spill-writer.js";

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
let root: string;

/** `n` numbered lines, `line 1\n` on. */
function numbered(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");
}

/**
 * The file holds the output's lines 1 to `keptLines` as they are, a marker line, then from `resumeLine`
 * on, `shift` lines lower; the lines between are the ones the gap names, partly when cut inside.
 */
function expectGap(output: string, file: string, gap: SpillGap): void {
  const lines = output.split("\n");
  const fileLines = file.split("\n");
  for (let line = 1; line < gap.keptLines; line++) expect(fileLines[line - 1]).toBe(lines[line - 1]);
  expect(lines[gap.keptLines - 1]?.startsWith(fileLines[gap.keptLines - 1] as string)).toBe(true);
  expect(fileLines[gap.keptLines]).toMatch(/^\[… lines? [\d,–]+ omitted here \(/);
  expect(lines[gap.resumeLine - 1]?.endsWith(fileLines[gap.resumeLine - gap.shift - 1] as string)).toBe(true);
  for (let line = gap.resumeLine + 1; line <= lines.length; line++) {
    expect(fileLines[line - gap.shift - 1], `line ${line}`).toBe(lines[line - 1]);
  }
  expect(fileLines.length).toBe(lines.length - gap.shift);
  expect(gap.firstLine).toBe(
    gap.keptLines + (file.split("\n")[gap.keptLines - 1] === lines[gap.keptLines - 1] ? 1 : 0),
  );
  expect(Buffer.byteLength(output) - gap.bytes).toBe(
    Buffer.byteLength(file) -
      Buffer.byteLength(`${fileLines[gap.keptLines]}\n`) -
      (gap.firstLine === gap.keptLines ? 1 : 0),
  );
}

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

    expect(first).toEqual({ path: first.path, bytes: 12, fileBytes: 12, omittedBytes: 0, gap: null });
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

  it("keeps head and tail within maxFileBytes, cut on lines, with a marker line saying which it lacks", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const output = numbered(500);
    const result = await store.write(output);
    const onDisk = await readFile(result.path, "utf8");
    expect(result.fileBytes).toBe(Buffer.byteLength(onDisk));
    expect(result.fileBytes).toBeLessThanOrEqual(1024);
    expect(result.bytes).toBe(Buffer.byteLength(output));
    const gap = result.gap as SpillGap;
    // About 480 bytes a side: lines 1-54 (7 to 9 bytes each) and 454-500 (9 bytes each).
    expect(gap).toEqual({
      firstLine: 55,
      lastLine: 453,
      bytes: result.omittedBytes,
      keptLines: 54,
      resumeLine: 454,
      shift: 454 - 56,
    });
    expect(onDisk.split("\n")[54]).toBe(
      `[… lines 55–453 omitted here (${formatCount(result.omittedBytes)} bytes): the file keeps the start and the end of an output this large …]`,
    );
    expectGap(output, onDisk, gap);
  });

  it("cuts a line longer than a half inside it, never inside a UTF-8 character", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const result = await store.write("é".repeat(3000));
    const onDisk = await readFile(result.path, "utf8");
    expect(onDisk).not.toContain("\ufffd");
    expect(result.fileBytes).toBe(Buffer.byteLength(onDisk));
    expect(result.fileBytes).toBeLessThanOrEqual(1024);
    const [head, marker, tail] = onDisk.split("\n") as [string, string, string];
    expect(marker).toBe(
      `[… line 1 omitted here (${formatCount(result.omittedBytes)} bytes): the file keeps the start and the end of an output this large …]`,
    );
    expect(Buffer.byteLength(head) + Buffer.byteLength(tail) + result.omittedBytes).toBe(6000);
    expect(result.gap).toEqual({
      firstLine: 1,
      lastLine: 1,
      bytes: result.omittedBytes,
      keptLines: 1,
      resumeLine: 1,
      shift: -2,
    });
  });

  it("a 5 MB output round-trips exactly under the default cap", async () => {
    const store = createSpillStore({ dir: root });
    const input = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < input.length; i++) input[i] = i % 251;
    const result = await store.write(input, { label: "shell_command" });
    expect(result).toMatchObject({ omittedBytes: 0, gap: null });
    expect((await readFile(result.path)).equals(input)).toBe(true);
  });

  it("streams output chunk by chunk: the tail is the latest output, however often the ring wraps", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const file = await store.open({ label: "shell_command" });
    const output = numbered(5000);
    const lines = output.split(/(?<=\n)/);
    for (const line of lines) {
      file.append(Buffer.from(line));
      await file.written();
    }
    expect(file.bytes).toBe(Buffer.byteLength(output));
    const result = await file.finish();
    const onDisk = await readFile(result.path, "utf8");
    expect(result).toMatchObject({
      path: file.path,
      bytes: Buffer.byteLength(output),
      fileBytes: Buffer.byteLength(onDisk),
    });
    expect(onDisk.endsWith("line 5000\n")).toBe(true);
    expectGap(output, onDisk, result.gap as SpillGap);
    expect(await readdir(root)).toEqual([basename(result.path)]);
  });

  it("writes the same file when chunks come faster than the disk takes them (queued, written together)", async () => {
    const output = Buffer.from(numbered(20_000));
    for (const maxFileBytes of [1024, 5000, 100_000, 10_000_000]) {
      const chunks: Buffer[] = [];
      let seed = maxFileBytes;
      for (let at = 0; at < output.length; ) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        const n = 1 + (seed % 3000);
        chunks.push(output.subarray(at, at + n));
        at += n;
      }
      const store = createSpillStore({ dir: root, maxFileBytes });
      const oneByOne = await store.open();
      for (const chunk of chunks) {
        oneByOne.append(chunk);
        await oneByOne.written();
      }
      const queued = await store.open();
      for (const chunk of chunks) queued.append(chunk);
      expect(queued.queuedBytes).toBeGreaterThan(0);
      const [expected, result] = await Promise.all([oneByOne.finish(), queued.finish()]);
      expect(queued.queuedBytes).toBe(0);
      expect(await readFile(result.path, "utf8"), `maxFileBytes ${maxFileBytes}`).toBe(
        await readFile(expected.path, "utf8"),
      );
      expect({ ...result, path: "" }).toEqual({ ...expected, path: "" });
    }
  });

  it("an outgrown large file is its head and at most the last 4 MiB (held in memory), nothing between", async () => {
    const maxFileBytes = 9 * 1024 * 1024;
    const store = createSpillStore({ dir: root, maxFileBytes });
    const output = numbered(1_000_000);
    const bytes = Buffer.from(output);
    const file = await store.open();
    for (let at = 0; at < bytes.length; at += 65536) file.append(bytes.subarray(at, at + 65536));
    const result = await file.finish();
    const onDisk = await readFile(result.path, "utf8");
    expect(result.fileBytes).toBe(Buffer.byteLength(onDisk));
    expect(result.fileBytes).toBeLessThanOrEqual(maxFileBytes);
    const markerAt = onDisk.indexOf("[… lines ");
    const tailAt = onDisk.indexOf("\n", markerAt) + 1;
    const head = onDisk.slice(0, markerAt);
    const tail = onDisk.slice(tailAt);
    expect(output.startsWith(head)).toBe(true);
    expect(output.endsWith(tail)).toBe(true);
    expect(tail.startsWith("line ")).toBe(true);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(Buffer.byteLength(tail)).toBeGreaterThan(4 * 1024 * 1024 - 20);
    expect(Buffer.byteLength(head)).toBeGreaterThan(maxFileBytes - 4 * 1024 * 1024 - 300);
    const keptLines = head.split("\n").length - 1;
    const resumeLine = Number(/^line (\d+)/.exec(tail)?.[1]);
    expect(result.gap).toEqual({
      firstLine: keptLines + 1,
      lastLine: resumeLine - 1,
      bytes: bytes.length - Buffer.byteLength(head) - Buffer.byteLength(tail),
      keptLines,
      resumeLine,
      shift: resumeLine - (keptLines + 2),
    });
    expect(await readdir(root)).toEqual([basename(result.path)]);
  });

  it("a chunk larger than the ring keeps only its end; a short tail is kept whole", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const big = await store.open();
    big.append(Buffer.from(numbered(2000)));
    big.append(Buffer.from("END"));
    const bigResult = await big.finish();
    const bigText = await readFile(bigResult.path, "utf8");
    expect(bigText.endsWith("line 1999\nline 2000\nEND")).toBe(true);
    expectGap(`${numbered(2000)}END`, bigText, bigResult.gap as SpillGap);

    const small = await store.open();
    small.append(Buffer.alloc(700, "s"));
    const smallResult = await small.finish();
    expect(smallResult).toEqual({ path: small.path, bytes: 700, fileBytes: 700, omittedBytes: 0, gap: null });
    expect(await readFile(smallResult.path, "utf8")).toBe("s".repeat(700));
  });

  it("is readable while written, and sync brings an outgrown file up to the latest tail", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const file = await store.open({ label: "exec_command" });
    file.append(Buffer.from(numbered(10)));
    file.append(Buffer.alloc(0));
    await file.written();
    expect(await readFile(file.path, "utf8")).toBe(numbered(10));
    expect(await file.sync()).toEqual({
      path: file.path,
      bytes: 71,
      fileBytes: 71,
      omittedBytes: 0,
      gap: null,
    });

    const output = numbered(300);
    file.append(Buffer.from(output.slice(71)));
    const first = await file.sync();
    expectGap(output, await readFile(file.path, "utf8"), first.gap as SpillGap);

    const more = numbered(600);
    file.append(Buffer.from(more.slice(output.length)));
    const second = await file.sync();
    const onDisk = await readFile(file.path, "utf8");
    expect(onDisk.endsWith("line 600\n")).toBe(true);
    expectGap(more, onDisk, second.gap as SpillGap);
    // Nothing new: the same file.
    expect(await file.sync()).toEqual(second);
    expect(await file.finish()).toEqual(second);
    expect(await readdir(root)).toEqual([basename(file.path)]);
  });

  it("a sync while output keeps coming leaves the next sync and the finish up to date", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const file = await store.open({ label: "exec_command" });
    const parts: Buffer[] = [];
    const push = (): void => {
      const line = Buffer.from(`line ${parts.length}\n`);
      parts.push(line);
      file.append(line);
    };
    for (let i = 0; i < 200; i++) push();
    let done = false;
    const first = file.sync().then(() => {
      done = true;
    });
    while (!done) {
      push();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await first;
    const output = Buffer.concat(parts).toString();
    const result = await file.finish();
    expect(result.bytes).toBe(Buffer.byteLength(output));
    expectGap(output, await readFile(file.path, "utf8"), result.gap as SpillGap);
  });

  it("syncs asked for at once run one after another: the file is what the last says", async () => {
    for (let trial = 0; trial < 20; trial++) {
      const store = createSpillStore({ dir: join(root, String(trial)), maxFileBytes: 1024 });
      const file = await store.open();
      let output = "";
      const push = (): void => {
        const line = `line ${output.length} ${"y".repeat(output.length % 40)}\n`;
        output += line;
        file.append(Buffer.from(line));
      };
      for (let i = 0; i < 100; i++) push();
      const syncs: Promise<unknown>[] = [];
      for (let i = 0; i < 30; i++) {
        syncs.push(file.sync());
        push();
        if (i % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      const result = await file.finish();
      await Promise.all(syncs);
      const onDisk = await readFile(file.path, "utf8");
      expect(Buffer.byteLength(onDisk), `trial ${trial}`).toBe(result.fileBytes);
      expect(onDisk.includes("\0")).toBe(false);
      expectGap(output, onDisk, result.gap as SpillGap);
    }
  });

  it("abort leaves nothing behind", async () => {
    const store = createSpillStore({ dir: root, maxFileBytes: 1024 });
    const file = await store.open();
    file.append(Buffer.alloc(5000, "x"));
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

  it("never sweeps a file still being written, however old", async () => {
    let now = T0;
    const store = createSpillStore({ dir: root, now: () => now, retentionMs: 1000, sweepIntervalMs: 0 });
    const live = await store.open({ label: "exec_command" });
    live.append(Buffer.from("still running\n"));
    now += 5000;
    expect(await store.sweep()).toBe(0);
    expect(await readdir(root)).toEqual([basename(live.path)]);
    // Finished, it is as old as its name says: the sweep its finish runs deletes it.
    await live.finish();
    expect(await readdir(root)).toEqual([]);
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

  it("fails the write, leaving no file, when the directory cannot be created", async () => {
    await writeFile(join(root, "file"), "");
    const store = createSpillStore({ dir: join(root, "file", "spill") });
    await expect(store.write("x")).rejects.toMatchObject({ code: "ENOTDIR" });
    expect(await readdir(root)).toEqual(["file"]);
  });

  it("names the option and the value it rejects", () => {
    expect(() => createSpillStore({ maxFileBytes: 10 })).toThrow(
      new RangeError("maxFileBytes: expected an integer >= 1024, received 10"),
    );
    expect(() => createSpillStore({ retentionMs: -1 })).toThrow(
      new RangeError("retentionMs: expected an integer >= 0, received -1"),
    );
  });
});
