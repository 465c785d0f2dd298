// Every package README's example runs as pasted: its first TypeScript (or JavaScript) block, types
// stripped, run by Node from inside the package (so it imports the package as a consumer would, through
// its exports, from `dist`), in a temp directory with a temp home. Needs the packages built.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { firstExample, stripTypes } from "../scripts/readme.mjs";

const packages = fileURLToPath(new URL("../../packages/", import.meta.url));

const examples = readdirSync(packages)
  .filter((name) => readdirSync(join(packages, name)).includes("README.md"))
  .map((name) => {
    const readme = readFileSync(join(packages, name, "README.md"), "utf8");
    return { name, code: firstExample(readme)?.code ?? null };
  });

describe.runIf(process.platform === "linux")("package README examples", () => {
  it("every package README has an example", () => {
    expect(examples.filter((example) => example.code === null).map((example) => example.name)).toEqual([]);
  });

  it.each(examples.filter((example) => example.code !== null))(
    "$name's example runs as pasted",
    ({ name, code }) => {
      const js = stripTypes(code as string);
      const file = join(packages, name, `.readme-example-${process.pid}.mjs`);
      const scratch = mkdtempSync(join(tmpdir(), `conch-readme-${name}-`));
      const home = join(scratch, "home");
      const cwd = join(scratch, "work");
      mkdirSync(home);
      mkdirSync(cwd);
      writeFileSync(file, js);
      try {
        const result = spawnSync(process.execPath, [file], {
          cwd,
          env: {
            PATH: process.env.PATH,
            HOME: home,
            XDG_CONFIG_HOME: join(home, ".config"),
            XDG_STATE_HOME: join(home, ".local", "state"),
          },
          encoding: "utf8",
          timeout: 60_000,
        });
        expect(result.stderr, result.stdout).not.toMatch(/Error|error:/);
        expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
      } finally {
        rmSync(file, { force: true });
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );
});
