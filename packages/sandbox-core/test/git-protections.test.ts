// What git's own config names stays read-only: every form git's parser accepts, every scope it reads,
// and every link on the way. Real git, real files; the answer is the rules a backend would enforce.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveSandboxPolicy } from "../src/index.js";

// Outside /tmp, which is itself a writable root of the sandbox.
const BASE_PARENT = existsSync("/var/tmp") ? "/var/tmp" : realpathSync(".");
let base: string;
let cwd: string;
let home: string;
let count = 0;

function git(dir: string, ...args: string[]): void {
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args],
    {
      cwd: dir,
      stdio: "ignore",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
    },
  );
}

// What of a git dir stays read-only: its control paths (config, hooks, ...), shown here as one entry.
const CONTROL = [
  "config",
  "config.worktree",
  "hooks",
  "commondir",
  "gitdir",
  "objects/info/alternates",
  "objects/info/http-alternates",
  "remotes",
  "branches",
];
const ctl = (gitDir: string): string => `${gitDir} (control paths)`;

/**
 * The read-only paths inside the workspace, each git dir's control paths as one `ctl(gitDir)` entry,
 * or null when the whole workspace is read-only.
 */
function readOnly(extraEnv: Record<string, string> = {}): string[] | null {
  const rules = resolveSandboxPolicy(
    { mode: "workspace-write" },
    { cwd, env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", ...extraEnv } },
  );
  const root = rules.writableRoots.find((entry) => entry.root === cwd);
  if (root === undefined) return null;
  const shown = root.readOnlySubpaths.map((path) => {
    const name = CONTROL.find((candidate) => path.endsWith(`/${candidate}`));
    const gitDir = name === undefined ? null : path.slice(0, -name.length - 1);
    return gitDir !== null && /\.git($|\/)/.test(gitDir) ? ctl(gitDir) : path;
  });
  return [...new Set(shown)];
}

function appendConfig(text: string): void {
  writeFileSync(join(cwd, ".git", "config"), `${text}\n`, { flag: "a" });
}

const at = (...parts: string[]): string => join(cwd, ...parts);

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(BASE_PARENT, "conch-git-protections-")));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));
beforeEach(() => {
  count += 1;
  cwd = join(base, `ws${count}`);
  home = join(base, `home${count}`);
  mkdirSync(home, { recursive: true });
  mkdirSync(join(cwd, "hooks"), { recursive: true });
  git(cwd, "init", "-q");
});

describe("gitProtections: core.hooksPath in every form git's parser reads", () => {
  it.each([
    ["the key on the section's header line", "[core] hooksPath=hooks"],
    ["a trailing comment", "[core]\n\thooksPath = hooks ; the team's hooks"],
    ["a trailing # comment", "[core]\n\thooksPath = hooks # the team's hooks"],
    ["partial quoting", '[core]\n\thooksPath = "ho"oks'],
    ["a backslash continuation", "[core]\n\thooksPath = ho\\\noks"],
    ["an escaped tab-free quoted value", '[core]\n\thooksPath = "hooks"'],
    ["a subsection-style spelling", "[CORE]\n\tHOOKSPATH = hooks"],
  ])("%s", (_label, text) => {
    appendConfig(text);
    expect(readOnly()).toEqual([ctl(at(".git")), at("hooks")]);
  });

  it("a hooksPath in config.worktree (extensions.worktreeConfig)", () => {
    git(cwd, "config", "extensions.worktreeConfig", "true");
    writeFileSync(at(".git", "config.worktree"), "[core]\n\thooksPath = hooks\n");
    expect(readOnly()).toEqual([ctl(at(".git")), at("hooks")]);
  });

  it("a relative hooksPath in the person's global config is relative to this work tree", () => {
    writeFileSync(join(home, ".gitconfig"), "[core]\n\thooksPath = hooks\n");
    expect(readOnly()).toEqual([ctl(at(".git")), at("hooks")]);
  });

  it("the same in XDG_CONFIG_HOME's git/config, and in GIT_CONFIG_GLOBAL", () => {
    mkdirSync(join(home, "xdg", "git"), { recursive: true });
    writeFileSync(join(home, "xdg", "git", "config"), "[core]\n\thooksPath = hooks\n");
    expect(readOnly({ XDG_CONFIG_HOME: join(home, "xdg") })).toEqual([ctl(at(".git")), at("hooks")]);
    writeFileSync(join(home, "other.gitconfig"), "[core]\n\thooksPath = hooks\n");
    expect(readOnly({ GIT_CONFIG_GLOBAL: join(home, "other.gitconfig") })).toEqual([
      ctl(at(".git")),
      at("hooks"),
    ]);
  });

  it("a hooksPath in the environment's GIT_CONFIG_COUNT pairs", () => {
    expect(
      readOnly({ GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.hooksPath", GIT_CONFIG_VALUE_0: "hooks" }),
    ).toEqual([ctl(at(".git")), at("hooks")]);
  });

  it("a hooks dir that does not exist yet, right in the workspace, makes the workspace read-only", () => {
    writeFileSync(join(home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
    expect(readOnly()).toBeNull();
  });

  it("one that does not exist yet deeper down keeps its deepest existing directory read-only", () => {
    mkdirSync(at("tools"));
    appendConfig("[core]\n\thooksPath = tools/git/hooks");
    expect(readOnly()).toEqual([ctl(at(".git")), at("tools")]);
  });

  it("a relative global hooksPath outside any repository names nothing", () => {
    rmSync(at(".git"), { recursive: true });
    writeFileSync(join(home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
    expect(readOnly()).toEqual([]);
  });
});

describe("gitProtections: included config", () => {
  it("include.path and includeIf.*.path, whatever the condition says now", () => {
    writeFileSync(at("a.inc"), "[user]\n");
    writeFileSync(at("b.inc"), "[user]\n");
    writeFileSync(at("c.inc"), "[user]\n");
    appendConfig('[include]\n\tpath = ../a.inc\n[includeIf "onbranch:feature"]\n\tpath = ../b.inc');
    appendConfig('[includeIf "gitdir:/nowhere/"]\n\tpath = ../c.inc');
    expect(readOnly()).toEqual([ctl(at(".git")), at("a.inc"), at("b.inc"), at("c.inc")]);
  });

  it("an include the person's global config names in the workspace, and what it names in turn", () => {
    writeFileSync(at("team.inc"), "[core]\n\thooksPath = hooks\n");
    writeFileSync(join(home, ".gitconfig"), `[include]\n\tpath = ${at("team.inc")}\n`);
    expect(readOnly()).toEqual([ctl(at(".git")), at("hooks"), at("team.inc")]);
  });
});

describe("gitProtections: every link on the way", () => {
  it("a hooks dir reached through a link in a subdirectory keeps the link's directory read-only", () => {
    mkdirSync(at("tools"));
    mkdirSync(at("real-hooks"));
    symlinkSync("../real-hooks", at("tools", "hooks"));
    appendConfig("[core]\n\thooksPath = tools/hooks");
    expect(readOnly()).toEqual([ctl(at(".git")), at("real-hooks"), at("tools")]);
  });

  it("a hooks dir that is a link right in the workspace makes the workspace read-only", () => {
    symlinkSync("hooks", at("hooks-link"));
    appendConfig("[core]\n\thooksPath = hooks-link");
    expect(readOnly()).toBeNull();
  });

  it("an include that is a link", () => {
    mkdirSync(at("conf"));
    writeFileSync(at("shared.inc"), "[user]\n");
    symlinkSync("../shared.inc", at("conf", "team.inc"));
    appendConfig("[include]\n\tpath = ../conf/team.inc");
    expect(readOnly()).toEqual([ctl(at(".git")), at("conf"), at("shared.inc")]);
  });

  it("a .git that is a link right in the workspace makes the workspace read-only", () => {
    execFileSync("mv", [at(".git"), at("store.git")]);
    symlinkSync("store.git", at(".git"));
    expect(readOnly()).toBeNull();
  });

  it("a hook that is a link to a tracked script keeps the script read-only", () => {
    mkdirSync(at("scripts"));
    writeFileSync(at("scripts", "pre-commit.sh"), "#!/bin/sh\n");
    symlinkSync("../../scripts/pre-commit.sh", at(".git", "hooks", "pre-commit"));
    expect(readOnly()).toEqual([ctl(at(".git")), at("scripts", "pre-commit.sh")]);
  });

  it("a hook with another name (a hard link) in the workspace makes the workspace read-only", () => {
    mkdirSync(at("scripts"));
    writeFileSync(at("scripts", "pre-commit.sh"), "#!/bin/sh\n");
    linkSync(at("scripts", "pre-commit.sh"), at(".git", "hooks", "pre-commit"));
    expect(readOnly()).toBeNull();
  });

  it("a .git file whose gitdir is reached through a link keeps the link's directory read-only", () => {
    mkdirSync(at("store", "real"), { recursive: true });
    execFileSync("mv", [at(".git"), at("store", "real", "repo.git")]);
    mkdirSync(at("via"));
    symlinkSync("../store/real", at("via", "link"));
    writeFileSync(at(".git"), `gitdir: via/link/repo.git\n`);
    git(cwd, "config", "core.bare", "false");
    expect(readOnly()).toEqual([at(".git"), ctl(at("store", "real", "repo.git")), at("via")]);
  });

  it("a link outside the workspace to a hooks dir inside it protects the target only", () => {
    const outside = join(base, `out${count}`);
    mkdirSync(outside);
    symlinkSync(at("hooks"), join(outside, "hooks"));
    appendConfig(`[core]\n\thooksPath = ${join(outside, "hooks")}`);
    expect(readOnly()).toEqual([ctl(at(".git")), at("hooks")]);
  });
});

describe("gitProtections: the repository's worktrees and submodules", () => {
  it("a linked worktree inside the workspace: its relative hooksPath is relative to its own top", () => {
    git(cwd, "commit", "-q", "--allow-empty", "-m", "init");
    appendConfig("[core]\n\thooksPath = .husky/_");
    git(cwd, "worktree", "add", "-q", at("wt", "feat"));
    mkdirSync(at(".husky", "_"), { recursive: true });
    mkdirSync(at("wt", "feat", ".husky", "_"), { recursive: true });
    expect(readOnly()).toEqual([
      ctl(at(".git")),
      ctl(at(".git", "worktrees", "feat")),
      at(".husky", "_"),
      at("wt", "feat", ".git"),
      at("wt", "feat", ".husky", "_"),
    ]);
  });

  it("a submodule: what its own config (under .git/modules) names in its work tree", () => {
    const lib = join(base, `lib${count}`);
    mkdirSync(lib);
    git(lib, "init", "-q");
    git(lib, "commit", "-q", "--allow-empty", "-m", "init");
    git(cwd, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib");
    mkdirSync(at("lib", "hooks"));
    git(at("lib"), "config", "core.hooksPath", "hooks");
    expect(readOnly()).toEqual([
      ctl(at(".git")),
      ctl(at(".git", "modules", "lib")),
      at("lib", ".git"),
      at("lib", "hooks"),
    ]);
  });
});

describe("gitProtections: programs config names", () => {
  it.each([
    ["core.fsmonitor", "[core]\n\tfsmonitor = tools/fsmonitor.sh"],
    ["an alias", '[alias]\n\tst = "!sh tools/fsmonitor.sh status"'],
    ["a diff driver's textconv", '[diff "bin"]\n\ttextconv = ./tools/fsmonitor.sh'],
    ["a filter's clean", '[filter "lfs"]\n\tclean = tools/fsmonitor.sh %f'],
    ["core.sshCommand", "[core]\n\tsshCommand = tools/fsmonitor.sh -v"],
    ["credential.helper", "[credential]\n\thelper = store --file=tools/fsmonitor.sh"],
    ["gpg.program", "[gpg]\n\tprogram = ./tools/fsmonitor.sh"],
    ["core.pager", "[core]\n\tpager = tools/fsmonitor.sh | less"],
    ["diff.external", "[diff]\n\texternal = tools/fsmonitor.sh"],
  ])("%s naming a workspace file", (_label, text) => {
    mkdirSync(at("tools"));
    writeFileSync(at("tools", "fsmonitor.sh"), "#!/bin/sh\n");
    appendConfig(text);
    expect(readOnly()).toEqual([ctl(at(".git")), at("tools", "fsmonitor.sh")]);
  });

  it.each([
    [
      "core.attributesFile (it picks filter and diff drivers)",
      "[core]\n\tattributesFile = tools/attributes",
      "attributes",
    ],
    [
      "init.templateDir (copied into every new repository, hooks included)",
      "[init]\n\ttemplateDir = tools/template",
      "template",
    ],
    [
      "a remote's uploadpack",
      '[remote "origin"]\n\turl = ../up\n\tuploadpack = tools/upload-pack',
      "upload-pack",
    ],
    ["an ext:: URL's command", '[remote "x"]\n\turl = "ext::sh tools/transport %S"', "transport"],
  ])("%s", (_label, text, name) => {
    mkdirSync(at("tools", name), { recursive: true });
    appendConfig(text);
    expect(readOnly()).toEqual([ctl(at(".git")), at("tools", name)]);
  });

  it("a word of a command that names nothing that exists makes no workspace read-only", () => {
    appendConfig('[alias]\n\tl = "!git log --format=%h/%s"\n[core]\n\tfsmonitor = true');
    expect(readOnly()).toEqual([ctl(at(".git"))]);
  });

  it("a submodule's path is its checkout, which stays writable", () => {
    mkdirSync(at("lib"));
    writeFileSync(at(".gitmodules"), "");
    appendConfig('[submodule "lib"]\n\tpath = lib\n\turl = ./lib');
    expect(readOnly()).toEqual([ctl(at(".git"))]);
  });
});

describe("gitProtections: git itself", () => {
  it("a git that cannot read the config makes the workspace read-only (fail closed)", () => {
    writeFileSync(join(home, ".gitconfig"), "[core\n\thooksPath = hooks\n");
    expect(readOnly()).toBeNull();
  });

  it("a git planted on PATH inside the workspace is never the one that runs", () => {
    mkdirSync(at("bin"));
    const marker = join(base, `planted-git-ran-${count}`);
    writeFileSync(at("bin", "git"), `#!/bin/sh\ntouch ${marker}\nexit 1\n`);
    chmodSync(at("bin", "git"), 0o755);
    appendConfig("[core]\n\thooksPath = hooks");
    expect(readOnly({ PATH: `${at("bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` })).toEqual([
      ctl(at(".git")),
      at("hooks"),
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)("a repository owned by another user is read all the same", () => {
    execFileSync("chown", ["-R", "65534:65534", cwd]);
    appendConfig("[core]\n\thooksPath = hooks");
    expect(readOnly()).toEqual([ctl(at(".git")), at("hooks")]);
  });
});
