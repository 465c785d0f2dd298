// One process per case of the shell-snapshot rows: its HOME (given by run.mjs) is the profile the
// commands see, so the empty profile, this machine's profile with a snapshot, and the same profile as a
// login shell per command are measured each with its own environment. Prints the median in ms.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "@conch/orchestrator";

const [mode, iterations = "100"] = process.argv.slice(2);
const state = mkdtempSync(join(tmpdir(), "conch-bench-snapshot-"));
const config = join(state, "config");
const cwd = join(state, "ws");
mkdirSync(join(config, "conch"), { recursive: true });
mkdirSync(cwd);
if (mode === "login") writeFileSync(join(config, "conch", "config.toml"), "shell_snapshot = false\n");
const runtime = await createRuntime({
  cwd,
  env: { ...process.env, XDG_CONFIG_HOME: config, XDG_STATE_HOME: state },
  approvalPolicy: "on-request",
});
const set = await runtime.toolSet();
const call = async () => {
  const { result } = await set.call("shell_command", { command: "true" });
  if (result.exit_code !== 0) throw new Error(`shell_command true: ${JSON.stringify(result)}`);
};
for (let i = 0; i < 5; i++) await call(); // the capture, and warm-up
const times = [];
for (let i = 0; i < Number(iterations); i++) {
  const started = performance.now();
  await call();
  times.push(performance.now() - started);
}
await runtime.close();
rmSync(state, { recursive: true, force: true });
times.sort((a, b) => a - b);
process.stdout.write(`${times[times.length >> 1]}\n`);
