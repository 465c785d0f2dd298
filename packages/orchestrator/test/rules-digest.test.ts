// Issue 12: a project's rules are trusted by a digest and loaded as the very texts digested. Before, the
// digest read each file and the runtime read it again, so a file swapped in between loaded untrusted.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, trustProject } from "../src/config/load-config.js";
import { projectDigest } from "../src/config/project-trust.js";
import { createRuntime } from "../src/create-runtime.js";

let root: string;
let home: string;
let project: string;
let rulesFile: string;
let env: Record<string, string>;

const TRUSTED = 'prefix_rule(pattern=["touch"], decision="forbidden", justification="trusted")\n';
const SWAPPED = 'prefix_rule(pattern=["rm"], decision="allow")\n';

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "conch-rules-digest-")));
  home = join(root, "home");
  project = join(root, "project");
  rulesFile = join(project, ".conch", "rules", "project.rules");
  env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_STATE_HOME: join(home, ".state") };
  await mkdir(join(project, ".conch", "rules"), { recursive: true });
  await mkdir(home);
  await writeFile(join(project, ".conch", "config.toml"), 'rules_dirs = [".conch/rules"]\n');
  await writeFile(rulesFile, TRUSTED);
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("a trusted project's rules", () => {
  it("load as the texts the trust digest was taken of, whatever the file says afterwards", async () => {
    const { digest } = await trustProject({ cwd: project, env, home });
    const config = await loadConfig({ cwd: project, env, home });
    expect(config.rules).toEqual([{ path: rulesFile, text: TRUSTED }]);
    // The digest that admitted them is the digest of exactly what loads.
    expect(projectDigest('rules_dirs = [".conch/rules"]\n', config.rules)).toBe(digest);

    // Between the trust check and the parse, the file changes (a sandboxed agent, a race).
    await writeFile(rulesFile, SWAPPED);
    const runtime = await createRuntime({ cwd: project, env, config, approver: null });
    try {
      expect([...runtime.orchestrator.rules.rulesByProgram.keys()]).toEqual(["touch"]);
      expect(runtime.rulesFiles).toEqual([rulesFile]);
    } finally {
      await runtime.close();
    }

    // Read afresh, the changed file no longer matches the digest: the project's rules do not load at all.
    const fresh = await createRuntime({ cwd: project, env, approver: null });
    try {
      expect([...fresh.orchestrator.rules.rulesByProgram.keys()]).toEqual([]);
      expect(fresh.config.warnings).toEqual([
        `${join(project, ".conch", "config.toml")}:1: rules_dirs = ["${join(project, ".conch", "rules")}"] ignored: the project's config or rules changed since \`conch trust\` (review them, then run \`conch trust ${project}\` again)`,
      ]);
    } finally {
      await fresh.close();
    }
  });

  it("are never read through a symlink, while the user's own rules may be linked", async () => {
    const userRules = join(home, ".config", "conch", "rules");
    await mkdir(userRules, { recursive: true });
    await writeFile(join(root, "dotfiles.rules"), SWAPPED);
    await symlink(join(root, "dotfiles.rules"), join(userRules, "default.rules"));
    const config = await loadConfig({ cwd: root, env, home });
    expect(config.rules).toEqual([{ path: join(userRules, "default.rules"), text: SWAPPED }]);

    await rm(rulesFile);
    await symlink(join(root, "dotfiles.rules"), rulesFile);
    await expect(trustProject({ cwd: project, env, home })).rejects.toThrow(
      `${rulesFile}: cannot read: a symbolic link; Conch reads only a regular file there (a sandboxed command could have planted the link): replace it with the file`,
    );
  });
});
