// `conch run` whose stdout is a pipe (or /dev/null) hands it to the command, as a shell does: the output
// never passes through conch, so it streams at the pipe's speed. A terminal, a file or a socket stays
// conch's to write: the sandbox's rules do not reach a descriptor the command is handed. Each case asks
// the command itself what its descriptor 1 is, in the sandbox and out.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "conch-stdout-"));
  env = { ...process.env, XDG_CONFIG_HOME: join(dir, ".config"), XDG_STATE_HOME: join(dir, ".state") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What the command reports of its stdout: the inode and the kind of file it is.
const REPORT = 'stat -L -c "%i %F" /proc/self/fd/1; echo err >&2';
const SANDBOXES = ["workspace-write", "danger-full-access"] as const;

function bash(script: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync("bash", ["-c", script, "bash", process.execPath, BIN], {
    cwd: dir,
    env,
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("conch run's stdout", () => {
  it.each(SANDBOXES)("a pipe is the command's own stdout (--sandbox %s)", (sandbox) => {
    // The reader prints the inode of the pipe it reads, then what the command printed.
    const { status, stdout, stderr } = bash(
      `"$1" "$2" run --approval never --sandbox ${sandbox} -- sh -c '${REPORT}' | { read -r line; echo "$(stat -L -c %i /proc/self/fd/0) $line"; }`,
    );
    expect([status, stderr]).toEqual([0, "err\n"]);
    const [reader, command, kind] = stdout.trim().split(" ");
    expect(kind).toBe("fifo");
    expect(command).toBe(reader);
  });

  it.each(SANDBOXES)("a file is written by conch, never handed over (--sandbox %s)", (sandbox) => {
    const file = join(dir, `out-${sandbox}.txt`);
    const { status, stderr } = bash(
      `"$1" "$2" run --approval never --sandbox ${sandbox} -- sh -c '${REPORT}' > ${file}`,
    );
    expect([status, stderr]).toEqual([0, "err\n"]);
    // conch's own pipe (Node's is a socket pair), not the file.
    const [command, kind] = readFileSync(file, "utf8").trim().split(" ");
    expect(kind).toBe("socket");
    expect(Number(command)).not.toBe(statSync(file).ino);
  });

  it.each(SANDBOXES)("a terminal is written by conch, never handed over (--sandbox %s)", (sandbox) => {
    const { status, stdout } = bash(
      `script -qec ""$1" "$2" run --approval never --sandbox ${sandbox} -- readlink /proc/self/fd/1" /dev/null`,
    );
    expect(status).toBe(0);
    expect(stdout).toMatch(/^socket:\[\d+\]\r?\n$/);
  });

  it("a pipe closed by its reader ends the command and its whole tree, with 141", () => {
    const { stdout } = bash(
      `"$1" "$2" run --approval never --sandbox danger-full-access -- sh -c 'sleep 300 & echo pid=$!; yes' | head -1; echo "exit \${PIPESTATUS[0]}"`,
    );
    const [, pid] = /pid=(\d+)/.exec(stdout) ?? [];
    expect(stdout).toMatch(/\nexit 141\n$/);
    // Gone, or a zombie its new parent has yet to reap.
    let state = "gone";
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      state = stat.charAt(stat.lastIndexOf(")") + 2);
    } catch {}
    expect(["gone", "Z", "X"]).toContain(state);
  });

  it("--json: conch prints the result, and the command's output in it", () => {
    const { status, stdout } = bash(`"$1" "$2" run --json --approval never -- sh -c 'echo out' | cat`);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: "ok", stdout: "out\n" });
  });
});
