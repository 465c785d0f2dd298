import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import {
  buildEnv,
  type ExecError,
  isExecError,
  RUN_MARKER_VAR,
  type SpawnSpec,
  spawnProcess,
} from "../src/index.js";
import { isAlive, printedPids, useTempDir } from "./helpers.js";

const env = buildEnv();

/** Everything the child printed, once both pipes are closed. */
function outputOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let open = 2;
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream?.once("close", () => {
        if (--open === 0) resolve(Buffer.concat(chunks).toString());
      });
    }
  });
}

/** What the child has printed on stdout so far. */
function collect(child: ChildProcess): () => string {
  let seen = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    seen += chunk.toString();
  });
  return () => seen;
}

async function spawnFailure(promise: Promise<unknown>): Promise<ExecError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isExecError(error)) throw new Error(`expected an ExecError, got ${String(error)}`);
  return error;
}

/** Session id and process group of a live process, from /proc. */
function sessionAndGroup(pid: number): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return [Number(fields[3]), Number(fields[2])];
}

describe.runIf(process.platform === "linux")("spawnProcess", () => {
  const tempDir = useTempDir();

  it("starts the child leading its own session and group, marked, with stdin closed and extra descriptors", async () => {
    const {
      process: child,
      pid,
      tree,
    } = await spawnProcess({
      argv: ["sh", "-c", `cat <&3; cat <&4; echo " $${RUN_MARKER_VAR}"; cat; echo end; sleep 300`],
      cwd: "/",
      env,
      extraFds: [Buffer.from("three "), Buffer.from("four")],
    });
    expect(child.pid).toBe(pid);
    expect(tree.rootPid).toBe(pid);
    expect(sessionAndGroup(pid)).toEqual([pid, pid]);
    const seen = collect(child);
    // `cat` of stdin returns at once: it is /dev/null.
    while (!seen().endsWith("end\n")) await sleep(10);
    await tree.terminate(100);
    expect(seen()).toMatch(new RegExp(`^three four ${process.pid}\\.\\d+\\.[a-z0-9]+\\nend\\n$`));
    expect(isAlive(pid)).toBe(false);
  });

  it("kills the whole tree, a child that left the session included", async () => {
    const { process: child, tree } = await spawnProcess({
      argv: ["sh", "-c", "echo pid=$$; setsid sh -c 'echo pid=$$; exec sleep 300' & echo pid=$!; sleep 300"],
      cwd: "/",
      env,
    });
    const seen = collect(child);
    while (printedPids(seen()).length < 3) await sleep(10);
    await tree.terminate(100);
    expect(printedPids(seen()).filter(isAlive)).toEqual([]);
  });

  it("does not change the env it is given", async () => {
    const given = { ...env };
    const { tree } = await spawnProcess({ argv: ["true"], cwd: "/", env: given });
    await tree.terminate(0);
    expect(given).toEqual(env);
  });

  it("names a missing program, a missing interpreter and a program that may not run", async () => {
    const missing = await spawnFailure(spawnProcess({ argv: ["conch-no-such-program"], cwd: "/", env }));
    expect([missing.code, missing.message, (missing.cause as NodeJS.ErrnoException).code]).toEqual([
      "SPAWN_FAILED",
      'cannot start "conch-no-such-program": no such program',
      "ENOENT",
    ]);
    const script = join(tempDir(), "script");
    writeFileSync(script, "#!/no/such/interpreter\n", { mode: 0o755 });
    const interpreter = await spawnFailure(spawnProcess({ argv: [script], cwd: "/", env }));
    expect(interpreter.message).toBe(
      `cannot start ${JSON.stringify(script)}: its interpreter (the #! line) was not found`,
    );
    const denied = await spawnFailure(spawnProcess({ argv: ["/etc/passwd"], cwd: "/", env }));
    expect([denied.message, (denied.cause as NodeJS.ErrnoException).code]).toEqual([
      'cannot start "/etc/passwd": permission denied',
      "EACCES",
    ]);
  });

  it("looks for the program before prepare wraps it, and spawns what prepare returns", async () => {
    const prepared: SpawnSpec[] = [];
    const prepare = async (spec: SpawnSpec): Promise<SpawnSpec> => {
      prepared.push(spec);
      return {
        ...spec,
        argv: ["sh", "-c", 'cat <&3; exec "$@"', "sh", ...spec.argv],
        extraFds: [Buffer.from("fd3 ")],
      };
    };
    const missing = await spawnFailure(
      spawnProcess({ argv: ["conch-no-such-program"], cwd: "/", env, prepare }),
    );
    expect(missing.message).toBe('cannot start "conch-no-such-program": no such program');
    expect(prepared).toEqual([]);
    const { process: child } = await spawnProcess({ argv: ["echo", "wrapped"], cwd: "/", env, prepare });
    expect(await outputOf(child)).toBe("fd3 wrapped\n");
    expect(prepared[0]?.env[RUN_MARKER_VAR]).toMatch(/^\d+\.\d+\./);
  });

  it("with a launcher: looks for the program first, names what the launcher throws, and tracks what it started", async () => {
    let launched = 0;
    const launch = (spec: SpawnSpec): { pid: number; child: ChildProcess } => {
      launched++;
      // Any launcher that starts the child in a session of its own, e.g. on a pseudo-terminal.
      const child = spawn(spec.argv[0] as string, spec.argv.slice(1), {
        env: spec.env,
        detached: true,
        stdio: "ignore",
      });
      return { pid: child.pid as number, child };
    };
    const missing = await spawnFailure(
      spawnProcess({ argv: ["conch-no-such-program"], cwd: "/", env }, launch),
    );
    expect(missing.message).toBe('cannot start "conch-no-such-program": no such program');
    expect(launched).toBe(0);
    const thrown = await spawnFailure(
      spawnProcess({ argv: ["true"], cwd: "/", env }, () => {
        throw new Error("forkpty(3) failed.");
      }),
    );
    expect([thrown.message, (thrown.cause as Error).message]).toEqual([
      'cannot start "true": forkpty(3) failed.',
      "forkpty(3) failed.",
    ]);
    const started = await spawnProcess({ argv: ["sleep", "300"], cwd: "/", env }, launch);
    expect(started.process.pid).toBe(started.pid);
    expect(isAlive(started.pid)).toBe(true);
    await started.tree.terminate(100);
    expect(isAlive(started.pid)).toBe(false);
  });
});
