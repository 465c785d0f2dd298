import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SpawnSpec } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";
import { rules } from "./sandbox-helpers.js";

const backend = createLinuxBackend();
const SPAWN_SPECS = new URL("./fixtures/spawn-specs.mjs", import.meta.url).pathname;
// What the command sees: its descriptors (ls's own directory descriptor among them), then a write to
// the one a calling shell left open.
const PROBE = "ls -l /proc/self/fd; echo leaked >&200";

interface Result {
  code: number;
  output: string;
}

/** The descriptors `ls -l /proc/self/fd` listed, each with what it points to. */
function descriptors(output: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of output.matchAll(/ (\d+) -> ([^\r\n]+)/g))
    found[match[1] as string] = match[2] as string;
  return found;
}

describeWith("bwrap", "descriptors the caller inherited never reach the sandboxed command", () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync("/var/tmp/conch-fds-");
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /**
   * Starts Node from `bash -c 'exec 200>>FILE; exec 201</dev/null; node spawn-specs.mjs'`, as an
   * IDE or a shell that keeps descriptors open would, and runs `runs` from it.
   */
  function fromLeakyParent(file: string, runs: { name: string; pty: boolean; spec: SpawnSpec }[]) {
    const specs = join(base, `${file}.json`);
    writeFileSync(
      specs,
      JSON.stringify(
        runs.map(({ spec, ...run }) => ({
          ...run,
          spec: { ...spec, extraFds: spec.extraFds.map((data) => Buffer.from(data).toString("base64")) },
        })),
      ),
    );
    const target = join(base, file);
    writeFileSync(target, "");
    const out = execFileSync(
      "bash",
      [
        "-c",
        'exec 200>>"$1"; exec 201</dev/null; exec "$2" "$3" "$4"',
        "bash",
        target,
        process.execPath,
        SPAWN_SPECS,
        specs,
      ],
      { encoding: "utf8" },
    );
    return { results: JSON.parse(out) as Record<string, Result>, written: readFileSync(target, "utf8") };
  }

  const transform = (tty: boolean, argv = ["bash", "-c", PROBE]): Promise<SpawnSpec> =>
    backend.transform({ argv, cwd: base, env: { PATH: process.env.PATH ?? "" }, extraFds: [] }, rules({}), {
      tty,
    });

  it("through pipes (exec-core) and through a PTY (unified-exec): exactly 0, 1, 2 and ls's own", async () => {
    const { results, written } = fromLeakyParent("leak", [
      { name: "pipes", pty: false, spec: await transform(false) },
      { name: "pty", pty: true, spec: await transform(true) },
      // bwrap's reaper, pid 1 beside the command, whose descriptors /proc/1/fd would reopen.
      { name: "reaper", pty: false, spec: await transform(false, ["ls", "/proc/1/fd"]) },
    ]);
    const { reaper, ...commands } = results;
    expect(reaper?.code).toBe(0);
    expect(reaper?.output.split("\n")).not.toEqual(expect.arrayContaining(["200"]));
    expect(reaper?.output.split("\n")).not.toEqual(expect.arrayContaining(["201"]));
    for (const [name, result] of Object.entries(commands)) {
      const fds = descriptors(result.output);
      expect(Object.keys(fds).sort(), name).toEqual(["0", "1", "2", "3"]);
      expect(fds["3"], name).toMatch(/^\/proc\/\d+\/fd$/);
      expect(result.output, name).toMatch(/bash: line 1: 200: Bad file descriptor\r?\n$/);
      expect(result.code, name).toBe(1);
    }
    expect(descriptors(results.pty?.output ?? "")["0"]).toMatch(/^\/dev\/pts\/\d+$/);
    expect(written).toBe("");
  });

  it("while without the closer they would (the leak this guards against is real here)", async () => {
    const spec = await transform(false);
    // bwrap's own `--`, after its seccomp descriptor (a root caller's unshare has one before bwrap).
    const command = spec.argv.indexOf("--", spec.argv.indexOf("--seccomp")) + 1;
    expect(spec.argv.slice(command, command + 3)).toEqual([expect.stringMatching(/\/bash$/), "-p", "-c"]);
    const unclosed = { ...spec, argv: [...spec.argv.slice(0, command), ...spec.argv.slice(command + 5)] };
    const { results, written } = fromLeakyParent("control", [
      { name: "unclosed", pty: false, spec: unclosed },
    ]);
    expect(Object.keys(descriptors(results.unclosed?.output ?? ""))).toEqual(
      expect.arrayContaining(["200", "201"]),
    );
    expect(written).toBe("leaked\n");
  });
});
