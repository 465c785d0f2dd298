import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { itWith } from "@conch/test-config";
import { afterEach, describe, expect, it } from "vitest";
import { type ExecError, isExecError, run, type SpawnSpec } from "../src/index.js";
import { useTempDir } from "./helpers.js";

const tempDir = useTempDir();

async function rejection(promise: Promise<unknown>): Promise<ExecError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isExecError(error)) throw new Error(`expected an ExecError, got ${String(error)}`);
  return error;
}

describe("exit status", () => {
  it("reports the exit code, both streams and the command", async () => {
    const result = await run({ argv: ["sh", "-c", "echo out; echo err >&2; exit 3"], cwd: tempDir() });
    expect(result).toMatchObject({
      command: ["sh", "-c", "echo out; echo err >&2; exit 3"],
      cwd: tempDir(),
      exitCode: 3,
      signal: null,
      stdout: "out\n",
      stderr: "err\n",
      timedOut: false,
      canceled: false,
      truncated: false,
      binary: false,
    });
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it("reports death by signal as 128+N with the signal's name", async () => {
    const result = await run({ argv: ["sh", "-c", "kill -KILL $$"], cwd: "/" });
    expect(result.exitCode).toBe(137);
    expect(result.signal).toBe("SIGKILL");
  });

  itWith("linux", "runs in the requested directory with stdin at /dev/null", async () => {
    const result = await run({ argv: ["sh", "-c", "pwd; cat; readlink /proc/self/fd/0"], cwd: tempDir() });
    expect(result.stdout).toBe(`${tempDir()}\n/dev/null\n`);
  });

  itWith("linux", "starts the command in a session and process group of its own", async () => {
    const result = await run({ argv: ["sh", "-c", "echo $$; cat /proc/$$/stat"], cwd: "/" });
    const [pid, stat = ""] = result.stdout.split("\n");
    const [, , pgid, sid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    expect(pgid).toBe(pid);
    expect(sid).toBe(pid);
  });
});

describe("environment", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  });

  it("does not pass secrets by default, but passes an explicit override", async () => {
    process.env.MY_API_KEY = "hunter2";
    process.env.CONCH_TEST_PLAIN = "visible";
    const script = 'echo "${MY_API_KEY-unset} ${CONCH_TEST_PLAIN-unset}"';
    const plain = await run({ argv: ["sh", "-c", script], cwd: "/" });
    expect(plain.stdout).toBe("unset visible\n");
    const overridden = await run({
      argv: ["sh", "-c", script],
      cwd: "/",
      env: { set: { MY_API_KEY: "given" } },
    });
    expect(overridden.stdout).toBe("given visible\n");
  });

  it("pins the variables that keep tools non-interactive", async () => {
    const result = await run({
      argv: ["sh", "-c", 'echo "$TERM $PAGER $GIT_PAGER $LC_ALL $GIT_TERMINAL_PROMPT $CONCH [$GIT_ASKPASS]"'],
      cwd: "/",
      env: { inherit: "none" },
    });
    expect(result.stdout).toBe("dumb cat cat C.UTF-8 0 1 []\n");
  });
});

describe("bad requests are rejected before anything runs", () => {
  const cases: [string, (marker: string) => unknown, string][] = [
    [
      "empty argv",
      () => ({ argv: [], cwd: "/" }),
      "invalid request: argv: expected a non-empty array of strings, received an empty array",
    ],
    [
      "a non-string argument",
      (marker) => ({ argv: ["touch", marker, 42], cwd: "/" }),
      "invalid request: argv[2]: expected a string, received 42",
    ],
    [
      "a missing cwd",
      (marker) => ({ argv: ["touch", marker] }),
      "invalid request: cwd: expected a directory path, received nothing",
    ],
    [
      "a negative timeout",
      (marker) => ({ argv: ["touch", marker], cwd: "/", timeoutMs: -5 }),
      "invalid request: timeoutMs: expected an integer from 1 to 2147483647 (milliseconds), received -5",
    ],
    [
      "an unknown field",
      (marker) => ({ argv: ["touch", marker], cwd: "/", shell: true }),
      "invalid request: shell: unknown field (expected one of argv, cwd, env, timeoutMs, killGraceMs, drainTimeoutMs, maxOutputBytes)",
    ],
    [
      "a non-string env override",
      (marker) => ({ argv: ["touch", marker], cwd: "/", env: { set: { A: 1 } } }),
      "invalid request: env.set.A: expected a string, received 1",
    ],
  ];
  for (const [name, build, message] of cases) {
    it(`rejects ${name}`, async () => {
      const marker = join(tempDir(), "ran");
      const error = await rejection(run(build(marker) as never));
      expect(error.code).toBe("INVALID_REQUEST");
      expect(error.message).toBe(message);
      expect(existsSync(marker)).toBe(false);
    });
  }

  it("rejects a cwd that does not exist", async () => {
    const missing = join(tempDir(), "missing");
    const error = await rejection(run({ argv: ["true"], cwd: missing }));
    expect(error.code).toBe("CWD_NOT_FOUND");
    expect(error.message).toBe(`invalid request: cwd: no such directory: ${missing}`);
  });

  it("reports a program that does not exist", async () => {
    const error = await rejection(run({ argv: ["conch-no-such-program"], cwd: "/" }));
    expect(error.code).toBe("SPAWN_FAILED");
    expect(error.message).toBe('cannot start "conch-no-such-program": no such program');
  });

  it("says when a script's interpreter is missing", async () => {
    const script = join(tempDir(), "script");
    writeFileSync(script, "#!/no/such/interpreter\necho hi\n", { mode: 0o755 });
    const error = await rejection(run({ argv: [script], cwd: "/" }));
    expect(error.code).toBe("SPAWN_FAILED");
    expect(error.message).toBe(
      `cannot start ${JSON.stringify(script)}: its interpreter (the #! line) was not found`,
    );
  });

  it("does not start anything when the signal is already aborted", async () => {
    const marker = join(tempDir(), "ran");
    const result = await run({ argv: ["touch", marker], cwd: "/" }, { signal: AbortSignal.abort() });
    expect(result.canceled).toBe(true);
    expect(result.exitCode).toBe(130);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("prepare", () => {
  it("spawns what prepare returns, feeding extra descriptors, and reports the requested command", async () => {
    const result = await run(
      { argv: ["echo", "unused"], cwd: "/" },
      {
        prepare: async (spec) => ({
          ...spec,
          argv: ["sh", "-c", 'cat <&3; echo " $CONCH_PREPARED"; cat <&4'],
          env: { ...spec.env, CONCH_PREPARED: "yes" },
          extraFds: [Buffer.from("three"), Buffer.from("four\n")],
        }),
      },
    );
    expect(result.stdout).toBe("three yes\nfour\n");
    expect(result.command).toEqual(["echo", "unused"]);
    expect(result.exitCode).toBe(0);
  });

  it("rejects with prepare's error and starts nothing", async () => {
    const marker = join(tempDir(), "ran");
    const refusal = new Error("sandbox unavailable");
    await expect(
      run({ argv: ["touch", marker], cwd: "/" }, { prepare: () => Promise.reject(refusal) }),
    ).rejects.toBe(refusal);
    expect(existsSync(marker)).toBe(false);
  });

  it("reports a missing or unrunnable program as a direct spawn would, before the wrapper hides it", async () => {
    let prepared = 0;
    const prepare = async (spec: SpawnSpec): Promise<SpawnSpec> => {
      prepared++;
      return { ...spec, argv: ["sh", "-c", 'exec "$@"', "sh", ...spec.argv] };
    };
    await expect(run({ argv: ["conch-no-such-program"], cwd: "/" }, { prepare })).rejects.toMatchObject({
      code: "SPAWN_FAILED",
      message: 'cannot start "conch-no-such-program": no such program',
      cause: { code: "ENOENT" },
    });
    await expect(run({ argv: ["/etc/passwd"], cwd: "/" }, { prepare })).rejects.toMatchObject({
      code: "SPAWN_FAILED",
      message: 'cannot start "/etc/passwd": permission denied',
      cause: { code: "EACCES" },
    });
    expect(prepared).toBe(0);
    const found = await run({ argv: ["./bin/sh", "-c", "echo found"], cwd: "/" }, { prepare });
    expect([found.stdout, prepared]).toEqual(["found\n", 1]);
  });
});
