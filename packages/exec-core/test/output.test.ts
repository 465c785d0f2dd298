import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type OutputDelta, run } from "../src/index.js";
import { useTempDir } from "./helpers.js";

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

describe("output capture", () => {
  it("keeps 1 GiB of output bounded, with the exact head, tail and omitted count", async () => {
    const result = await run({
      argv: ["sh", "-c", `printf HEAD; head -c ${GIB} /dev/zero | tr '\\0' a; printf TAIL`],
      cwd: "/",
    });
    const total = GIB + 8;
    expect(result.exitCode).toBe(0);
    expect(result.stdoutBytes).toBe(total);
    expect(result.truncated).toBe(true);
    const half = MIB / 2;
    const omitted = total - MIB;
    const expected = `HEAD${"a".repeat(half - 4)}\n... ${omitted} bytes omitted ...\n${"a".repeat(half - 4)}TAIL`;
    expect(result.stdout.length).toBe(expected.length);
    expect(result.stdout === expected).toBe(true);
    expect(result.output === expected).toBe(true);
    expect(result.stderr).toBe("");
  });

  it("preserves the arrival order of stdout and stderr in the aggregate", async () => {
    const script = "for i in 1 2 3 4 5; do echo out$i; sleep 0.1; echo err$i >&2; sleep 0.1; done";
    const result = await run({ argv: ["sh", "-c", script], cwd: "/" });
    const lines = [1, 2, 3, 4, 5].flatMap((i) => [`out${i}`, `err${i}`]);
    expect(result.output).toBe(`${lines.join("\n")}\n`);
    expect(result.stdout).toBe("out1\nout2\nout3\nout4\nout5\n");
    expect(result.stderr).toBe("err1\nerr2\nerr3\nerr4\nerr5\n");
  });

  it("streams deltas that add up to the whole output", async () => {
    const deltas: OutputDelta[] = [];
    const result = await run(
      { argv: ["sh", "-c", "seq 1 20000; echo done >&2"], cwd: "/" },
      {
        onOutput: (delta) => {
          deltas.push(delta);
        },
      },
    );
    const joined = (stream: string): string =>
      Buffer.concat(deltas.filter((d) => d.stream === stream).map((d) => d.data)).toString();
    expect(joined("stdout")).toBe(result.stdout);
    expect(joined("stderr")).toBe("done\n");
    expect(result.stdoutBytes).toBe(Buffer.byteLength(result.stdout));
  });

  it("summarises binary output instead of dumping it", async () => {
    const result = await run({ argv: ["sh", "-c", "head -c 5000 /dev/zero; echo text >&2"], cwd: "/" });
    expect(result.binary).toBe(true);
    expect(result.stdout).toBe("[binary output: 5000 bytes]");
    expect(result.stderr).toBe("text\n");
    expect(result.output).toBe("[binary output: 5005 bytes]");
  });

  it("honours maxOutputBytes", async () => {
    const result = await run({ argv: ["sh", "-c", "printf 0123456789"], cwd: "/", maxOutputBytes: 4 });
    expect(result.stdout).toBe("01\n... 6 bytes omitted ...\n89");
    expect(result.truncated).toBe(true);
  });

  it("propagates an error thrown by onOutput after killing the tree", async () => {
    const boom = new Error("consumer failed");
    await expect(
      run(
        { argv: ["sh", "-c", "echo hi; sleep 300"], cwd: "/" },
        {
          onOutput: () => {
            throw boom;
          },
        },
      ),
    ).rejects.toBe(boom);
  });
});

describe("backpressure", () => {
  const tempDir = useTempDir();

  it("pauses the command while the promise onOutput returned is pending", async () => {
    const done = join(tempDir(), "done");
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let received = 0;
    const pending = run(
      { argv: ["sh", "-c", `head -c 4000000 /dev/zero | tr '\\0' a; touch ${done}`], cwd: "/" },
      {
        onOutput: ({ data }) => {
          received += data.length;
          return gate;
        },
      },
    );
    // With the stream paused the pipe fills up and the writer blocks long before 4 MB.
    await sleep(300);
    expect(existsSync(done)).toBe(false);
    expect(received).toBeLessThan(4_000_000);
    release();
    const result = await pending;
    expect(existsSync(done)).toBe(true);
    expect(received).toBe(4_000_000);
    expect(result.stdoutBytes).toBe(4_000_000);
  });

  it("ignores what onOutput returns unless it is a promise (process.stdout.write returns a boolean)", async () => {
    const seen: string[] = [];
    const result = await run(
      { argv: ["sh", "-c", "echo out; echo err >&2"], cwd: "/" },
      {
        onOutput: ({ stream, data }) => {
          seen.push(`${stream}:${data.toString().trim()}`);
          // biome-ignore lint/suspicious/noThenProperty: a `then` that is not a function is no promise
          return seen.length === 1 ? true : { then: "not a function" };
        },
      },
    );
    expect(result.exitCode).toBe(0);
    expect(seen.sort()).toEqual(["stderr:err", "stdout:out"]);
  });
});
