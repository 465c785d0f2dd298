import { Buffer } from "node:buffer";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatShellCommandResult } from "../model-text/shell-command-result.js";
import { createSpillStore } from "../spill/spill-store.js";
import { cleanTerminalText, TerminalTextFilter } from "../text/terminal-text.js";
import { cutText } from "../text/truncate.js";
import { OutputCollector } from "./output-collector.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "conch-collector-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

// Deterministic pseudo-random numbers, so a failure names a reproducible case.
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

const PIECES = [
  "a",
  "line\n",
  "é",
  "€",
  "😀",
  "\n",
  "xyz",
  "\r\n",
  "\r",
  "\x1b[1;31m",
  "\x1b]52;c;eA==\x07",
  "\u202e",
  "\x9b0m",
];

function randomText(random: () => number, words: number): string {
  let text = "";
  for (let i = 0; i < words; i++) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

async function collect(text: string, maxTokens: number, random: () => number) {
  const collector = new OutputCollector({ maxTokens, spill: createSpillStore({ dir: root }), label: "t" });
  const bytes = Buffer.from(text, "utf8");
  // Chunks split anywhere, even inside a character, as pipes do.
  for (let at = 0; at < bytes.length; ) {
    const n = 1 + Math.floor(random() * 300);
    await collector.push(bytes.subarray(at, at + n));
    at += n;
  }
  return collector.finish((output) => output.needsCut(maxTokens));
}

describe("OutputCollector", () => {
  it("gives the same cleaned text, line count and truncation as the whole output, whatever the chunking", async () => {
    const random = rng(7);
    for (let i = 0; i < 200; i++) {
      const raw = randomText(random, Math.floor(random() * 3000));
      const { text, removed } = cleanTerminalText(raw);
      const maxTokens = 1 + Math.floor(random() * 400);
      const { output, spill, rawBytes, removedControls } = await collect(raw, maxTokens, random);
      expect([rawBytes, removedControls], `case ${i}`).toEqual([Buffer.byteLength(raw), removed]);
      expect(output.cut(maxTokens), `case ${i}`).toEqual(cutText(text, maxTokens));
      const prefixed = output.withPrefix("command timed out after 5 milliseconds\n");
      expect(prefixed.cut(maxTokens, -1)).toEqual(
        cutText(`command timed out after 5 milliseconds\n${text}`, maxTokens, -1),
      );
      expect(
        formatShellCommandResult({ exitCode: 0, durationMs: 5, output, maxTokens, timedOut: true }),
      ).toEqual(
        formatShellCommandResult({ exitCode: 0, durationMs: 5, output: text, maxTokens, timedOut: true }),
      );
      // The spill file holds the text the model reads a cut of, so the lines the cut names are its own.
      if (cutText(text, maxTokens).omission !== null) {
        expect(spill).not.toBeNull();
        expect(await readFile(spill?.path as string, "utf8")).toBe(text);
      } else {
        expect(spill).toBeNull();
      }
    }
  });

  it("gives the same text when most chunks are plain ASCII, which skip decoding and cleaning", async () => {
    // A line longer than the filter holds goes out in parts, so a later `\r` or erase acts on what the
    // chunks left held: the reference is the same chunks through the decoder and the filter's `write`.
    const random = rng(11);
    const plain = ["line\n", "xyz", "\t", "a".repeat(5000), "b".repeat(20_000), "\n"];
    const rare = ["é", "\r", "\r\n", "\x1b[2K", "\x1b]0;t\x07", "\x7f", "\b", "€", "\x1b"];
    for (let i = 0; i < 60; i++) {
      let raw = "";
      const pieces = Math.floor(random() * 120);
      for (let n = 0; n < pieces; n++) {
        const pool = random() < 0.85 ? plain : rare;
        raw += pool[Math.floor(random() * pool.length)];
      }
      const bytes = Buffer.from(raw, "utf8");
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; ) {
        // From one byte to tens of kilobytes, split anywhere, even inside a character.
        const n = 1 + Math.floor(random() * random() * random() * 40_000);
        chunks.push(bytes.subarray(at, at + n));
        at += n;
      }
      const decoder = new StringDecoder("utf8");
      const filter = new TerminalTextFilter();
      let text = "";
      for (const chunk of chunks) text += filter.write(decoder.write(chunk));
      text += filter.write(decoder.end()) + filter.end();
      const removed = filter.takeRemoved();

      const maxTokens = 1 + Math.floor(random() * 2000);
      const collector = new OutputCollector({
        maxTokens,
        spill: createSpillStore({ dir: root }),
        label: "t",
      });
      for (const chunk of chunks) await collector.push(chunk);
      const { output, spill, removedControls } = await collector.finish((out) => out.needsCut(maxTokens));
      expect(removedControls, `case ${i}`).toBe(removed);
      expect(output.cut(maxTokens), `case ${i}`).toEqual(cutText(text, maxTokens));
      if (spill !== null) expect(await readFile(spill.path, "utf8"), `case ${i}`).toBe(text);
    }
  });

  it("with transientChunks keeps copies only: chunks read through one reused buffer give the same", async () => {
    const random = rng(13);
    const pieces = ["line\n", "xyz", "a".repeat(5000), "b".repeat(20_000), "\n", "é", "\r", "\x1b[2K", "€"];
    for (let i = 0; i < 40; i++) {
      let raw = "";
      const count = Math.floor(random() * 200);
      for (let n = 0; n < count; n++) raw += pieces[Math.floor(random() * pieces.length)];
      // Now and then binary: saved as written; else a long plain end, read in large chunks.
      if (i % 10 === 9) raw += "\0binary";
      else if (i % 3 === 0) raw += `${"c".repeat(60_000)}\nend\n`;
      const bytes = Buffer.from(raw, "utf8");
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; ) {
        const n = i % 3 === 0 ? 20_000 : 1 + Math.floor(random() * random() * 30_000);
        chunks.push(bytes.subarray(at, at + n));
        at += n;
      }
      const maxTokens = 1 + Math.floor(random() * 2000);
      const results = [];
      for (const transientChunks of [false, true]) {
        const collector = new OutputCollector({
          maxTokens,
          spill: createSpillStore({ dir: join(root, String(transientChunks)) }),
          label: "t",
          transientChunks,
        });
        const reused = Buffer.alloc(30_000);
        for (const chunk of chunks) {
          const view = transientChunks ? reused.subarray(0, chunk.copy(reused)) : chunk;
          await collector.push(view);
          // What a read into the same buffer does to it next.
          if (transientChunks) reused.fill(0x5a);
        }
        const result = await collector.finish((out, binary) => binary || out.needsCut(maxTokens));
        results.push({
          cut: result.output.cut(maxTokens),
          removed: result.removedControls,
          binary: result.binary,
          spill: result.spill === null ? null : await readFile(result.spill.path, "latin1"),
        });
      }
      expect(results[1], `case ${i}`).toEqual(results[0]);
    }
  });

  it("replaces invalid UTF-8 with U+FFFD, and a raw 0x9b byte is not a CSI", async () => {
    const collector = new OutputCollector({ maxTokens: 100, spill: null, label: "t" });
    await collector.push(Buffer.from([0x61, 0xff, 0x9b, 0x33, 0x31, 0x6d, 0x62, 0xe2]));
    await collector.push(Buffer.from([0x82]));
    const { output, rawBytes, removedControls } = await collector.finish(() => false);
    expect([output.text(), rawBytes, removedControls]).toEqual(["a\ufffd\ufffd31mb\ufffd", 9, 0]);
  });

  it("streams a 5 MB output to the spill file and keeps only head and tail in memory", async () => {
    const collector = new OutputCollector({
      maxTokens: 100,
      spill: createSpillStore({ dir: root }),
      label: "t",
    });
    const lines: string[] = [];
    for (let i = 0; i < 300_000; i++) lines.push(`${i}\n`);
    const all = Buffer.from(lines.join(""));
    for (let at = 0; at < all.length; at += 65536) await collector.push(all.subarray(at, at + 65536));
    const { output, spill } = await collector.finish(() => true);
    expect(output.head.length).toBe(464);
    expect(output.tail.length).toBe(400);
    expect(output.lineCount()).toBe(300_000);
    expect((await readFile(spill?.path as string)).equals(all)).toBe(true);
  });

  it("discards the spill file when the text will not point to it, and notes binary output", async () => {
    const collector = new OutputCollector({
      maxTokens: 10,
      spill: createSpillStore({ dir: root }),
      label: "t",
    });
    await collector.push(Buffer.from([0x41, 0x00, 0x42]));
    await collector.push(Buffer.alloc(1000, 0x43));
    const result = await collector.finish(() => false);
    expect(result.binary).toBe(true);
    expect(result.spill).toBeNull();
    expect(await readdir(root)).toEqual([]);
  });

  it("saves binary output as written, even when text was being saved before its first NUL showed", async () => {
    const collector = new OutputCollector({
      maxTokens: 10,
      spill: createSpillStore({ dir: root }),
      label: "t",
    });
    const text = Buffer.from("\u001b[1mbold\u001b[0m and a long line of text\n".repeat(10));
    await collector.push(text);
    // Past the budget: the text went to a spill file.
    expect(await readdir(root)).toHaveLength(1);
    const binary = Buffer.concat([Buffer.from([0x00, 0xff]), Buffer.alloc(10_000, 0x42)]);
    await collector.push(binary);
    const result = await collector.finish((_, isBinary) => isBinary);
    expect(result.binary).toBe(true);
    expect((await readFile(result.spill?.path as string)).equals(Buffer.concat([text, binary]))).toBe(true);
    expect(await readdir(root)).toEqual([basename(result.spill?.path as string)]);
  });
});

describe("OutputCollector, sample only (nobody reads a model text)", () => {
  it("keeps the cleaned first and last bytes for a denial check, never the middle, and spills nothing", async () => {
    const store = createSpillStore({ dir: join(root, "spill") });
    const collector = new OutputCollector({ maxTokens: 100, spill: store, label: "run", sampleOnly: true });
    void collector.push(Buffer.from("\x1b[31mstart\x1b[0m\n"));
    for (let i = 0; i < 2000; i++) void collector.push(Buffer.from(`middle line ${i}\n`));
    void collector.push(Buffer.from("touch: cannot touch 'x': Read-only file system\n"));
    const sample = collector.sampleText();
    expect(sample.startsWith("start\nmiddle line 0\n")).toBe(true);
    expect(sample.endsWith("touch: cannot touch 'x': Read-only file system\n")).toBe(true);
    expect(sample).not.toContain("middle line 1000\n");
    expect(sample).not.toContain("\x1b");
    const result = await collector.finish(() => true);
    expect(result.spill).toBeNull();
    expect(result.rawBytes).toBeGreaterThan(30_000);
    await expect(readdir(join(root, "spill"))).rejects.toThrow();
  });

  it("with transientChunks the sample is the same when every chunk's memory is reused", () => {
    const sample = (transientChunks: boolean): string => {
      const collector = new OutputCollector({
        maxTokens: 100,
        spill: null,
        label: "run",
        sampleOnly: true,
        transientChunks,
      });
      const reused = Buffer.alloc(64);
      for (let i = 0; i < 3000; i++) {
        const line = Buffer.from(`line ${i}\n`);
        void collector.push(transientChunks ? reused.subarray(0, line.copy(reused)) : line);
        reused.fill(0x5a);
      }
      return collector.sampleText();
    };
    expect(sample(true)).toBe(sample(false));
    expect(sample(true).endsWith("line 2999\n")).toBe(true);
  });

  it("a short output is whole", () => {
    const collector = new OutputCollector({ maxTokens: 100, spill: null, label: "run", sampleOnly: true });
    void collector.push(Buffer.from("a\r"));
    void collector.push(Buffer.from("b\n"));
    expect(collector.sampleText()).toBe("b\n");
  });
});
