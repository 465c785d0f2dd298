// `pnpm conch ...`: runs the CLI from this checkout, building it (and what it depends on) first when a
// source changed. Turbo's output is shown only when the build fails.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const build = spawnSync(
  "pnpm",
  ["exec", "turbo", "run", "build", "--filter=@conch/cli...", "--output-logs=errors-only"],
  {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
  },
);
if (build.status !== 0) {
  process.stderr.write(`${build.stdout}${build.stderr}conch: building the CLI failed\n`);
  process.exit(build.status ?? 1);
}
// pnpm runs scripts from the workspace root; run the command where the user typed it.
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
await import("../../apps/cli/dist/bin.js");
