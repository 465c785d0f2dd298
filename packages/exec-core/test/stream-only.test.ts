import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { isExecError, run, type StreamedExecResult } from "../src/index.js";
import { useTempDir } from "./helpers.js";

const MIB = 1024 ** 2;

describe("buffer: false", () => {
  const tempDir = useTempDir();

  it("streams 256 MiB to onOutput, every byte in order, keeps none of it, and stays bounded", async () => {
    const size = 256 * MIB;
    const seen = { stdout: createHash("sha256"), stderr: createHash("sha256") };
    const bytes = { stdout: 0, stderr: 0 };
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const result: StreamedExecResult = await run(
      {
        argv: [
          "sh",
          "-c",
          `printf HEAD; head -c ${size} /dev/zero | tr '\\0' a; printf TAIL; printf err >&2`,
        ],
        cwd: "/",
      },
      {
        buffer: false,
        onOutput: ({ stream, data }) => {
          seen[stream].update(data);
          bytes[stream] += data.length;
          rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
        },
      },
    );
    const expected = createHash("sha256").update("HEAD");
    const block = Buffer.alloc(MIB, "a");
    for (let i = 0; i < size / MIB; i++) expected.update(block);
    expected.update("TAIL");

    expect(result).toMatchObject({
      buffered: false,
      stdout: "",
      stderr: "",
      output: "",
      truncated: false,
      binary: false,
      exitCode: 0,
      stdoutBytes: size + 8,
      stderrBytes: 3,
    });
    expect(bytes).toEqual({ stdout: size + 8, stderr: 3 });
    expect(seen.stdout.digest("hex")).toBe(expected.digest("hex"));
    expect(seen.stderr.digest("hex")).toBe(createHash("sha256").update("err").digest("hex"));
    // Nothing accumulates: a copy of the output alone would add 256 MiB.
    expect(rssPeak - rssBefore).toBeLessThan(128 * MIB);
  });

  it("reports nothing as binary or truncated, and leaves the counting to the caller", async () => {
    let streamed = 0;
    const result = await run(
      { argv: ["sh", "-c", "head -c 5000 /dev/zero"], cwd: "/", maxOutputBytes: 4 },
      {
        buffer: false,
        onOutput: ({ data }) => {
          streamed += data.length;
        },
      },
    );
    expect(result).toMatchObject({ buffered: false, binary: false, truncated: false, stdout: "" });
    expect([result.stdoutBytes, streamed]).toEqual([5000, 5000]);
  });

  it("without onOutput the output is counted and dropped", async () => {
    const result = await run({ argv: ["sh", "-c", "seq 1 1000"], cwd: "/" }, { buffer: false });
    expect(result).toMatchObject({ buffered: false, output: "", exitCode: 0 });
    expect(result.stdoutBytes).toBe(3893);
  });

  it("an already aborted call starts nothing and says it kept no output", async () => {
    const marker = join(tempDir(), "ran");
    const result = await run(
      { argv: ["touch", marker], cwd: "/" },
      { buffer: false, signal: AbortSignal.abort() },
    );
    expect(result).toMatchObject({ buffered: false, canceled: true, exitCode: 130, stdoutBytes: 0 });
    expect(existsSync(marker)).toBe(false);
  });

  it("buffer: true is the default, and a buffered result has no buffered flag", async () => {
    const result = await run({ argv: ["echo", "hi"], cwd: "/" }, { buffer: true });
    expect(result.stdout).toBe("hi\n");
    expect("buffered" in result).toBe(false);
  });

  it("rejects a buffer option that is not a boolean, before anything starts", async () => {
    const marker = join(tempDir(), "ran");
    const error = await run({ argv: ["touch", marker], cwd: "/" }, { buffer: "no" as never }).catch(
      (e: unknown) => e,
    );
    expect(isExecError(error) && error.code).toBe("INVALID_REQUEST");
    expect((error as Error).message).toBe('invalid options: buffer: expected true or false, received "no"');
    expect(existsSync(marker)).toBe(false);
  });
});

describe("transientChunks: stdout read into one reused buffer", () => {
  it("streams 256 MiB through one buffer, every byte in order, pausing for a consumer's promise", async () => {
    const size = 256 * MIB;
    const seen = createHash("sha256");
    const buffers = new Set<ArrayBufferLike>();
    let bytes = 0;
    let pauses = 0;
    let stderr = "";
    const result = await run(
      {
        argv: [
          "sh",
          "-c",
          `printf HEAD; head -c ${size} /dev/zero | tr '\\0' a; printf TAIL; printf err >&2`,
        ],
        cwd: "/",
      },
      {
        buffer: false,
        transientChunks: true,
        onOutput: ({ stream, data }) => {
          if (stream === "stderr") {
            stderr += Buffer.from(data).toString();
            return undefined;
          }
          seen.update(data);
          bytes += data.length;
          buffers.add(data.buffer);
          // Now and then the consumer is slow: the stream waits, and the buffer is not overwritten.
          if (bytes % 7 !== 0 && pauses < 50 && Math.random() < 0.02) {
            pauses++;
            const copy = Buffer.from(data);
            return new Promise<void>((resolve) =>
              setTimeout(() => {
                expect(Buffer.compare(copy, data)).toBe(0);
                resolve();
              }, 1),
            );
          }
          return undefined;
        },
      },
    );
    const expected = createHash("sha256").update("HEAD");
    const block = Buffer.alloc(MIB, "a");
    for (let i = 0; i < size / MIB; i++) expected.update(block);
    expected.update("TAIL");
    expect(result).toMatchObject({ exitCode: 0, stdoutBytes: size + 8, stderrBytes: 3 });
    expect(bytes).toBe(size + 8);
    expect(seen.digest("hex")).toBe(expected.digest("hex"));
    expect(stderr).toBe("err");
    expect(pauses).toBeGreaterThan(0);
    // One buffer read into, whatever the number of chunks (a chunk that came before the consumer was
    // ready may be a copy of its own).
    expect(buffers.size).toBeLessThanOrEqual(2);
  });

  it("gets what a command prints at once, however short, and its exit", async () => {
    for (let i = 0; i < 20; i++) {
      const chunks: Buffer[] = [];
      const result = await run(
        { argv: ["sh", "-c", `echo ${i}; exit 3`], cwd: "/" },
        { buffer: false, transientChunks: true, onOutput: ({ data }) => void chunks.push(Buffer.from(data)) },
      );
      expect([Buffer.concat(chunks).toString(), result.exitCode]).toEqual([`${i}\n`, 3]);
    }
  });

  it("a slow consumer gets all of a command that exited, however long the drain timeout is short", async () => {
    let got = 0;
    const result = await run(
      { argv: ["sh", "-c", "head -c 600000 /dev/zero"], cwd: "/", drainTimeoutMs: 20 },
      {
        buffer: false,
        transientChunks: true,
        onOutput: ({ data }) => {
          got += data.length;
          return new Promise((resolve) => setTimeout(resolve, 50));
        },
      },
    );
    expect([result.exitCode, got]).toEqual([0, 600000]);
  });

  it("a consumer that fails ends the run with its error, without waiting out the drain timeout", async () => {
    // A run that waited for the drain timeout would outlast the test's own timeout.
    await expect(
      run(
        { argv: ["sh", "-c", "yes"], cwd: "/", drainTimeoutMs: 600_000 },
        { buffer: false, transientChunks: true, onOutput: () => Promise.reject(new Error("consumer")) },
      ),
    ).rejects.toThrow("consumer");
  }, 30_000);

  it("another process that connects to the pair's socket never gets the output", async () => {
    // It watches TMPDIR for the pair's directory and connects as soon as the socket is there: without
    // the token, its connection was taken as the command's stdout in about a fifth of the runs.
    const dir = mkdtempSync(join(tmpdir(), "conch-pair-race-"));
    const attacker = spawn(
      process.execPath,
      [
        "-e",
        `const { watch } = require("node:fs"); const { connect } = require("node:net");
        const dir = process.argv[1];
        watch(dir, (_e, name) => {
          if (!name || !name.startsWith("conch-pair-")) return;
          const grab = (left) => {
            const socket = connect(dir + "/" + name + "/s");
            socket.on("data", (data) => process.stdout.write("STOLE " + data));
            socket.on("error", () => { if (left > 0) setImmediate(() => grab(left - 1)); });
          };
          grab(200);
        });
        process.stdout.write("ready\\n");`,
        dir,
      ],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    let said = "";
    attacker.stdout.on("data", (data) => {
      said += data;
    });
    const before = process.env.TMPDIR;
    try {
      while (!said.includes("ready")) await new Promise((resolve) => setTimeout(resolve, 10));
      process.env.TMPDIR = dir;
      for (let i = 0; i < 100; i++) {
        let out = "";
        await run(
          { argv: ["echo", `secret-${i}`], cwd: "/", drainTimeoutMs: 500 },
          {
            buffer: false,
            transientChunks: true,
            onOutput: ({ data }) => {
              out += Buffer.from(data).toString();
            },
          },
        );
        expect(out).toBe(`secret-${i}\n`);
      }
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      attacker.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
    expect(said).toBe("ready\n");
  }, 60_000);

  it("falls back to pipes when TMPDIR is too long for a socket's path", async () => {
    const base = mkdtempSync(join(tmpdir(), "conch-long-"));
    const long = join(base, "d".repeat(120 - base.length));
    mkdirSync(long);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = long;
    try {
      let text = "";
      const result = await run(
        { argv: ["sh", "-c", "seq 1 2000"], cwd: "/" },
        {
          buffer: false,
          transientChunks: true,
          onOutput: ({ data }) => {
            text += Buffer.from(data).toString();
          },
        },
      );
      expect([result.exitCode, text.split("\n").length]).toEqual([0, 2001]);
      // Nothing left behind: no socket shortened into TMPDIR's parent, no pair directory.
      expect(readdirSync(long)).toEqual([]);
      expect(readdirSync(base)).toEqual([basename(long)]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("falls back to fresh buffers when no socket can be made in TMPDIR", async () => {
    const before = process.env.TMPDIR;
    process.env.TMPDIR = "/nonexistent/conch-test";
    try {
      const buffers = new Set<ArrayBufferLike>();
      let text = "";
      const result = await run(
        { argv: ["sh", "-c", "seq 1 20000"], cwd: "/" },
        {
          buffer: false,
          transientChunks: true,
          onOutput: ({ data }) => {
            buffers.add(data.buffer);
            text += Buffer.from(data).toString();
          },
        },
      );
      expect(result.exitCode).toBe(0);
      expect(text.split("\n").length).toBe(20001);
      expect(buffers.size).toBeGreaterThan(1);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });
});

describe("stdout: a descriptor of ours", () => {
  const tempDir = useTempDir();

  it("is the command's stdout itself: nothing of it passes here, stderr still does", async () => {
    const file = join(tempDir(), "out.txt");
    const fd = openSync(file, "w");
    const chunks: string[] = [];
    try {
      const result = await run(
        { argv: ["sh", "-c", "echo out; echo err >&2; stat -L -c %i /proc/self/fd/1"], cwd: "/" },
        { stdout: fd, onOutput: ({ stream, data }) => void chunks.push(`${stream}:${data}`) },
      );
      expect([result.exitCode, result.stdout, result.stderr]).toEqual([0, "", "err\n"]);
      expect(chunks).toEqual(["stderr:err\n"]);
    } finally {
      closeSync(fd);
    }
    // The very file: its inode is what the command's descriptor 1 pointed to.
    expect(readFileSync(file, "utf8")).toBe(`out\n${statSync(file).ino}\n`);
  });

  it("must be a descriptor", async () => {
    for (const stdout of [-1, 1.5, Number.NaN]) {
      await expect(run({ argv: ["true"], cwd: "/" }, { stdout })).rejects.toThrow(
        `stdout: expected a descriptor (an integer of 0 or more) or a socket, received ${stdout}`,
      );
    }
  });
});
