import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import {
  type CaptureShellSnapshotResult,
  captureShellSnapshot,
  type Shell,
  type ShellSnapshot,
  snapshotExecArgs,
} from "../src/index.js";
import { describeWithShell, policyKeep, run, type TempHome, useTempHome } from "./helpers.js";
import { TRICKY_SCRIPTS } from "./tricky-scripts.js";

// POSIX sh keeps exported variables only; an interactive sh also reads the file named by $ENV.
const PROFILE = `echo profile-says-hello
echo profile-complains >&2
sleep 0.3
export FROM_PROFILE='it'"'"'s "quoted" $NOT_EXPANDED
and a second line'
export ENV="$HOME/.shrc"
`;
const SHRC = "export FROM_SHRC=1\necho shrc-says-hello\n";

function expectOk(result: CaptureShellSnapshotResult): ShellSnapshot {
  if (!result.ok) throw new Error(`capture failed: ${result.reason}`);
  return result.snapshot;
}

for (const name of ["dash", "sh"] as const) {
  describeWithShell(`shell snapshots of ${name}`, name, (shell: Shell) => {
    const tempHome = useTempHome();

    async function capture(
      files: Record<string, string>,
      keep: (name: string, value: string) => boolean = () => true,
    ): Promise<{ home: TempHome; result: CaptureShellSnapshotResult }> {
      const home = tempHome();
      for (const [file, text] of Object.entries(files)) home.write(file, text);
      return { home, result: await captureShellSnapshot(shell, { dir: home.dir, env: home.env, keep }) };
    }

    it("carries the exported variables, and none of the output", async () => {
      const { home, result } = await capture({ ".profile": PROFILE, ".shrc": SHRC });
      const snapshot = expectOk(result);
      expect(snapshot.path).toMatch(new RegExp(`^${home.dir}/${name}-[0-9a-f]{16}\\.sh$`));
      const script = 'printf "%s\\n" "$FROM_PROFILE" "$FROM_SHRC"';
      expect(run(snapshotExecArgs(snapshot, script), home.env, undefined, "pipe")).toEqual(
        run(snapshotExecArgs(snapshot, script), home.env),
      );
      const ran = run(snapshotExecArgs(snapshot, script), home.env);
      expect(ran).toEqual({
        stdout: `it's "quoted" $NOT_EXPANDED\nand a second line\n1\n`,
        stderr: "",
        status: 0,
      });
      const sources = Object.fromEntries(snapshot.sources.map(({ path, mtimeMs }) => [path, mtimeMs]));
      const shrc = join(home.home, ".shrc");
      expect(sources[shrc]).toBe(statSync(shrc).mtimeMs);
      expect(sources[join(home.home, ".profile")]).toBe(statSync(join(home.home, ".profile")).mtimeMs);
    });

    it("drops the variables keep rejects", async () => {
      const { home, result } = await capture(
        { ".profile": "export AWS_SECRET_ACCESS_KEY=hunter2 KEPT=yes\n" },
        policyKeep,
      );
      const snapshot = expectOk(result);
      expect(
        run(snapshotExecArgs(snapshot, 'echo "${AWS_SECRET_ACCESS_KEY-unset} $KEPT"'), home.env).stdout,
      ).toBe("unset yes\n");
      expect(readFileSync(snapshot.path, "utf8")).not.toContain("hunter2");
    });

    it.each(TRICKY_SCRIPTS)(`runs %j exactly as ${name} -c does`, async (script) => {
      const { home, result } = await capture({ ".profile": "export PROFILE_RAN=1\n" });
      const snapshot = expectOk(result);
      const plain = run([shell.path, "-c", script], home.env, home.home);
      expect(run(snapshotExecArgs(snapshot, script), home.env, home.home)).toEqual(plain);
    });

    it("still runs the command, quietly, when the snapshot is gone", async () => {
      const { home, result } = await capture({ ".profile": PROFILE });
      const snapshot = expectOk(result);
      rmSync(snapshot.path);
      expect(
        run(snapshotExecArgs(snapshot, 'echo "ran ${FROM_PROFILE-without the snapshot}"'), home.env),
      ).toEqual({
        stdout: "ran without the snapshot\n",
        stderr: "",
        status: 0,
      });
    });
  });
}
