import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandboxWorkspace, resolveSandboxPolicy, type SandboxError } from "../src/index.js";

// Fixtures live outside /tmp when possible: /tmp is itself a writable root and would absorb them.
const BASE_PARENT = existsSync("/var/tmp") ? "/var/tmp" : realpathSync(".");
let base: string;

function git(cwd: string, ...args: string[]): void {
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args],
    {
      cwd,
      stdio: "ignore",
    },
  );
}

function dir(...parts: string[]): string {
  const path = join(base, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

function repo(...parts: string[]): string {
  const path = dir(...parts);
  git(path, "init", "-q");
  git(path, "commit", "-q", "--allow-empty", "-m", "init");
  return path;
}

// What is hidden whatever HOME says: the system's own denied files, and the secrets in the account's
// home from passwd (this machine's, so taken from the resolver itself; each test adds its own).
const SYSTEM_HIDDEN = ["/etc/gshadow", "/etc/shadow"]
  .filter((path) => existsSync(path))
  .map((path) => ({ path, type: "file", readable: [] }));
let ACCOUNT_HIDDEN: { path: string; type: string; readable: string[] }[];
const withAlwaysHidden = (
  own: { path: string; type: string; readable: string[] }[],
  allowed: string[] = [],
) =>
  [
    ...own,
    ...ACCOUNT_HIDDEN.filter(
      (entry) =>
        !own.some((mine) => mine.path === entry.path) && !allowed.some((name) => entry.path.endsWith(name)),
    ),
  ].sort((a, b) => (a.path < b.path ? -1 : 1));
const ww = (extra: Record<string, unknown> = {}) => ({ mode: "workspace-write" as const, ...extra });
/** An empty home, so the machine's own ~/.ssh does not show up in the rules. */
let home: string;
const env = (extra: Record<string, string> = {}) => ({ HOME: home, ...extra });
const EMPTY_TMP = { kind: "empty", targets: ["/tmp"] };
// What of a git dir stays read-only: those of its control paths that exist (`GIT_DIR_CONTROL`).
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
const controlOf = (gitDir: string): string[] =>
  CONTROL.map((name) => join(gitDir, name)).filter(
    (path) => lstatSync(path, { throwIfNoEntry: false }) !== undefined,
  );
const sorted = (paths: string[]): string[] => [...paths].sort();

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(BASE_PARENT, "conch-sandbox-core-")));
  home = dir("home");
  ACCOUNT_HIDDEN = resolveSandboxPolicy(
    { mode: "read-only" },
    { cwd: base, env: { HOME: userInfo().homedir } },
  ).hidden;
  expect(ACCOUNT_HIDDEN).toEqual(expect.arrayContaining(SYSTEM_HIDDEN));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("resolveSandboxPolicy: workspace-write", () => {
  it("makes only the cwd writable, gives an empty /tmp without a tmpDir, and leaves a missing .conch alone", () => {
    const cwd = dir("plain");
    expect(resolveSandboxPolicy(ww(), { cwd, env: env() })).toEqual({
      mode: "workspace-write",
      readableRoots: ["/"],
      writableRoots: [{ root: cwd, readOnlySubpaths: [] }],
      tmp: EMPTY_TMP,
      hidden: withAlwaysHidden([]),
      network: false,
      // No .git: one that appears is read after the command.
      gitWatch: {
        roots: [cwd],
        startedAt: expect.any(Number),
        absent: [],
        gitDirs: [],
        newRepositories: [join(cwd, ".git")],
        operations: [],
        repositories: [],
      },
    });
    expect(existsSync(join(cwd, ".conch"))).toBe(false);
  });

  it("binds a private tmpDir (made 0700) at /tmp and at $TMPDIR when that is elsewhere", () => {
    const cwd = dir("private-tmp", "cwd");
    const tmpDir = join(base, "private-tmp", "state", "tmp", "ws");
    const hostTmpdir = dir("private-tmp", "host-tmpdir");
    const rules = resolveSandboxPolicy(ww(), { cwd, env: env({ TMPDIR: hostTmpdir }), tmpDir });
    expect(rules.tmp).toEqual({ kind: "private", source: tmpDir, targets: ["/tmp", hostTmpdir] });
    expect(statSync(tmpDir).mode & 0o777).toBe(0o700);
    expect(rules.writableRoots).toEqual([{ root: cwd, readOnlySubpaths: [] }]);
    // A $TMPDIR inside the workspace stays the workspace.
    const inside = dir("private-tmp", "cwd", "t");
    expect(resolveSandboxPolicy(ww(), { cwd, env: env({ TMPDIR: inside }), tmpDir }).tmp).toEqual({
      kind: "private",
      source: tmpDir,
      targets: ["/tmp"],
    });
  });

  it("protects .git, .conch and .agents that exist, and turns the network on only when asked", () => {
    const cwd = repo("protected");
    dir("protected", ".conch");
    writeFileSync(join(cwd, ".agents"), "x");
    const rules = resolveSandboxPolicy(ww({ networkAccess: true }), { cwd, env: env() });
    expect(rules.writableRoots).toEqual([
      {
        root: cwd,
        readOnlySubpaths: sorted([
          join(cwd, ".agents"),
          join(cwd, ".conch"),
          ...controlOf(join(cwd, ".git")),
        ]),
      },
    ]);
    expect(rules.network).toBe(true);
    expect(resolveSandboxPolicy(ww({ networkAccess: false }), { cwd, env: env() }).network).toBe(false);
  });

  it("finds protected paths afresh for every command: a .git made after the session started is protected", () => {
    const cwd = dir("fresh");
    const workspace = createSandboxWorkspace(ww(), { cwd, env: env() });
    expect(workspace.rules().writableRoots).toEqual([{ root: cwd, readOnlySubpaths: [] }]);
    git(cwd, "init", "-q");
    expect(workspace.rules().writableRoots).toEqual([
      { root: cwd, readOnlySubpaths: controlOf(join(cwd, ".git")).sort() },
    ]);
  });

  it("adds extra roots (relative to cwd), canonical, skipping missing ones and files", () => {
    const cwd = dir("extras", "cwd");
    const extra = dir("extras", "extra");
    symlinkSync(extra, join(base, "extras", "link"));
    writeFileSync(join(base, "extras", "file"), "x");
    const rules = resolveSandboxPolicy(ww({ writableRoots: ["../link", "../missing", "../file", extra] }), {
      cwd,
      env: env(),
    });
    expect(rules.writableRoots).toEqual([
      { root: cwd, readOnlySubpaths: [] },
      { root: extra, readOnlySubpaths: [] },
    ]);
  });

  it("refuses a root reached through a symlink that lies inside another writable root", () => {
    const cwd = dir("planted", "cwd");
    const target = dir("planted", "elsewhere");
    symlinkSync(target, join(cwd, "build"));
    expect(() => createSandboxWorkspace(ww({ writableRoots: ["build"] }), { cwd, env: env() })).toThrow(
      expect.objectContaining({
        code: "INVALID_SANDBOX_POLICY",
        message:
          `invalid sandbox policy: writableRoots[0] ${join(cwd, "build")}: reached through the symlink ` +
          `${join(cwd, "build")}, which lies in a writable root where a sandboxed command could have made it; ` +
          "name the real directory instead",
      }) as SandboxError,
    );
    // A private tmp reached through a planted symlink is refused the same way.
    symlinkSync(target, join(cwd, "state"));
    expect(() =>
      createSandboxWorkspace(ww(), { cwd, env: env(), tmpDir: join(cwd, "state", "tmp") }),
    ).toThrow(expect.objectContaining({ code: "INVALID_SANDBOX_POLICY" }) as SandboxError);
  });

  it("holds each root by identity: a root moved aside and replaced by a symlink is refused, never followed", () => {
    const parent = dir("identity");
    const cwd = dir("identity", "ws");
    const workspace = createSandboxWorkspace(ww(), { cwd, env: env() });
    expect(workspace.rules().writableRoots).toEqual([{ root: cwd, readOnlySubpaths: [] }]);
    renameSync(cwd, join(parent, "moved"));
    symlinkSync(home, cwd);
    expect(() => workspace.rules()).toThrow(
      expect.objectContaining({
        code: "WRITABLE_ROOT_CHANGED",
        message:
          `the sandbox's writable root ${cwd} is not the directory the session started with (it is now a ` +
          "symlink); nothing ran. Start a new session to use the directory that is there now.",
      }) as SandboxError,
    );
    rmSync(cwd);
    mkdirSync(cwd);
    expect(() => workspace.rules()).toThrow(
      expect.objectContaining({
        message: expect.stringContaining("(it is now another directory)"),
      }) as SandboxError,
    );
    rmSync(cwd, { recursive: true });
    expect(() => workspace.rules()).toThrow(
      expect.objectContaining({ message: expect.stringContaining("(it no longer exists)") }) as SandboxError,
    );
  });

  it("holds the private /tmp by identity too", () => {
    const cwd = dir("tmp-identity", "ws");
    const tmpDir = join(base, "tmp-identity", "tmp");
    const workspace = createSandboxWorkspace(ww(), { cwd, env: env(), tmpDir });
    workspace.rules();
    renameSync(tmpDir, `${tmpDir}.old`);
    symlinkSync(home, tmpDir);
    expect(() => workspace.rules()).toThrow(
      expect.objectContaining({
        code: "WRITABLE_ROOT_CHANGED",
        message: expect.stringContaining("private /tmp"),
      }) as SandboxError,
    );
  });

  it("canonicalises a symlinked cwd", () => {
    const real = dir("real-cwd");
    symlinkSync(real, join(base, "cwd-link"));
    expect(resolveSandboxPolicy(ww(), { cwd: join(base, "cwd-link"), env: env() }).writableRoots[0]).toEqual({
      root: real,
      readOnlySubpaths: [],
    });
  });

  it("merges nested roots into the outer one and keeps their protected paths", () => {
    const outer = dir("nested");
    const cwd = repo("nested", "inner");
    const rules = resolveSandboxPolicy(ww({ writableRoots: [outer, outer] }), { cwd, env: env() });
    expect(rules.writableRoots).toEqual([
      { root: outer, readOnlySubpaths: controlOf(join(cwd, ".git")).sort() },
    ]);
  });

  it("drops a root at or inside a protected path: protection wins", () => {
    const cwd = repo("inside-git");
    const rules = resolveSandboxPolicy(ww({ writableRoots: [".git/hooks", ".git/config"] }), {
      cwd,
      env: env(),
    });
    expect(rules.writableRoots).toEqual([
      { root: cwd, readOnlySubpaths: controlOf(join(cwd, ".git")).sort() },
    ]);
  });

  it("refuses a writable root that is or holds the home directory, unless told to accept it", () => {
    const h = dir("home-root", "home");
    for (const cwd of [h, dir("home-root")]) {
      expect(() => createSandboxWorkspace(ww(), { cwd, env: { HOME: h } })).toThrow(
        expect.objectContaining({
          code: "INVALID_SANDBOX_POLICY",
          message:
            `invalid sandbox policy: the writable root ${cwd} ${cwd === h ? "is" : "holds"} the home directory ${h}: ` +
            "a sandboxed command could create files that later run outside the sandbox (~/.bash_profile, " +
            "~/.gitconfig, ~/.config/autostart, ~/.ssh/authorized_keys). Start Conch in a project directory, or " +
            "set home_workspace = true in the user config to accept this.",
        }) as SandboxError,
      );
    }
    // The account's own home counts even when $HOME points elsewhere; read-only never writes it.
    expect(() => createSandboxWorkspace(ww(), { cwd: "/", env: { HOME: h } })).toThrow(
      "holds the home directory",
    );
    expect(createSandboxWorkspace({ mode: "read-only" }, { cwd: h, env: { HOME: h } }).mode).toBe(
      "read-only",
    );
  });

  it("keeps `protect` paths read-only inside a root, and the home's startup files when the home is writable", () => {
    const cwd = dir("home-ws");
    const state = dir("home-ws", ".local", "state", "conch");
    writeFileSync(join(cwd, ".bashrc"), "");
    dir("home-ws", ".config", "git");
    const rules = resolveSandboxPolicy(ww(), {
      cwd,
      env: { HOME: cwd },
      protect: [state, join(base, "outside")],
      allowHomeRoot: true,
    });
    expect(rules.writableRoots).toEqual([
      { root: cwd, readOnlySubpaths: [join(cwd, ".bashrc"), join(cwd, ".config", "git"), state] },
    ]);
  });

  it("follows a worktree's gitdir file: its git dirs are writable but for their control paths", () => {
    const main = repo("wt", "main");
    git(main, "worktree", "add", "-q", join(base, "wt", "feature"));
    const feature = join(base, "wt", "feature");
    const gitDir = join(main, ".git");
    const control = [...controlOf(gitDir), ...controlOf(join(gitDir, "worktrees", "feature"))];
    // The main repository is not a root itself, only inside one: its control paths stay read-only.
    const rules = resolveSandboxPolicy(ww({ writableRoots: [join(base, "wt")] }), {
      cwd: feature,
      env: env(),
    });
    expect(rules.writableRoots).toEqual([
      { root: join(base, "wt"), readOnlySubpaths: sorted([join(feature, ".git"), ...control]) },
    ]);
    // Outside every writable root, the worktree's git dirs become writable roots of their own: a commit
    // in the worktree writes objects and refs into the main repository's .git.
    expect(resolveSandboxPolicy(ww(), { cwd: feature, env: env() }).writableRoots).toEqual([
      { root: feature, readOnlySubpaths: [join(feature, ".git")] },
      { root: gitDir, readOnlySubpaths: control.sort() },
    ]);
  });

  it("resolves a relative gitdir against the .git file's directory (submodule style)", () => {
    const work = repo("rel", "work");
    const store = join(base, "rel", "store.git");
    renameSync(join(work, ".git"), store);
    writeFileSync(join(work, ".git"), "gitdir: ../store.git\n");
    expect(resolveSandboxPolicy(ww(), { cwd: work, env: env() }).writableRoots).toEqual([
      { root: work, readOnlySubpaths: [join(work, ".git")] },
      { root: store, readOnlySubpaths: controlOf(store).sort() },
    ]);
    writeFileSync(join(work, ".git"), "gitdir: ../missing.git\n");
    expect(resolveSandboxPolicy(ww(), { cwd: work, env: env() }).writableRoots).toEqual([
      { root: work, readOnlySubpaths: [join(work, ".git")] },
    ]);
  });
});

describe("resolveSandboxPolicy: hidden reads", () => {
  it("hides the default secrets that exist, by their real path, with config additions and exceptions", () => {
    const h = dir("secrets", "home");
    dir("secrets", "home", ".ssh");
    dir("secrets", "home", ".config", "gh");
    writeFileSync(join(h, ".netrc"), "machine x");
    writeFileSync(join(h, ".bash_history"), "");
    writeFileSync(join(h, ".python_history"), "");
    writeFileSync(join(h, ".cargo-credentials-not"), "");
    dir("secrets", "home", ".cargo");
    writeFileSync(join(h, ".cargo", "credentials.toml"), "");
    const realAws = dir("secrets", "aws-real");
    symlinkSync(realAws, join(h, ".aws"));
    const state = dir("secrets", "state");
    const spill = dir("secrets", "state", "spill", "ws1");
    dir("secrets", "state", "spill", "ws2");
    const cwd = dir("secrets", "ws");
    const rules = resolveSandboxPolicy(ww(), {
      cwd,
      env: { HOME: h },
      denyRead: [state, "~/missing", "relative-ignored"],
      allowRead: [spill, "~/.python_history"],
    });
    expect(rules.hidden).toEqual(
      withAlwaysHidden(
        [
          { path: join(h, ".bash_history"), type: "file", readable: [] },
          { path: join(h, ".cargo", "credentials.toml"), type: "file", readable: [] },
          { path: join(h, ".config", "gh"), type: "dir", readable: [] },
          { path: join(h, ".netrc"), type: "file", readable: [] },
          { path: join(h, ".ssh"), type: "dir", readable: [] },
          { path: realAws, type: "dir", readable: [] },
          { path: state, type: "dir", readable: [spill] },
          // allow_read's `~/` is every home's, the account's too.
        ],
        ["/.python_history"],
      ),
    );
  });

  it("never hides a writable root or what holds it", () => {
    const h = dir("hides-root", "home");
    const cwd = dir("hides-root", "home", ".ssh", "project");
    const rules = resolveSandboxPolicy(ww(), { cwd, env: { HOME: h } });
    expect(rules.hidden).toEqual(withAlwaysHidden([]));
  });

  it("finds secrets afresh for every command: one created mid-session is hidden from the next on", () => {
    const h = dir("fresh", "home");
    dir("fresh", "home", ".config");
    const cwd = dir("fresh", "ws");
    const workspace = createSandboxWorkspace(ww(), {
      cwd,
      env: { HOME: h },
      denyRead: ["~/a/b/c", "/nonexistent-dir-for-conch/*"],
    });
    expect(workspace.rules().hidden).toEqual(withAlwaysHidden([]));
    // Directly in the home (listed once), in a directory that existed before (looked up by name), by a
    // wildcard, and several levels down a config addition.
    dir("fresh", "home", ".ssh");
    dir("fresh", "home", ".config", "gcloud");
    writeFileSync(join(h, ".zsh_history"), "");
    dir("fresh", "home", "a", "b", "c");
    const real = dir("fresh", "elsewhere-kube");
    symlinkSync(real, join(h, ".kube"));
    expect(workspace.rules().hidden).toEqual(
      withAlwaysHidden([
        { path: join(h, ".config", "gcloud"), type: "dir", readable: [] },
        { path: join(h, ".ssh"), type: "dir", readable: [] },
        { path: join(h, ".zsh_history"), type: "file", readable: [] },
        { path: join(h, "a", "b", "c"), type: "dir", readable: [] },
        { path: real, type: "dir", readable: [] },
      ]),
    );
    rmSync(join(h, ".ssh"), { recursive: true });
    expect(workspace.rules().hidden.map((entry) => entry.path)).not.toContain(join(h, ".ssh"));
  });

  it("hides shell and REPL history under every usual name, and names with a newline", () => {
    const h = dir("history", "home");
    const names = [
      ".zsh_history",
      ".zhistory",
      ".histfile",
      ".history",
      ".bash_history",
      ".python_history",
      ".node_repl_history",
      ".psql_history",
      ".mysql_history",
      ".sqlite_history",
      ".irb_history",
      ".rediscli_history",
      ".Rhistory",
      ".lesshst",
      ".viminfo",
      ".dbshell",
      ".zsh_history.new",
      ".bash_history-4242.tmp",
      // A `*` matches every character of a name: a newline does not end the match.
      ".bash\n_history",
      ".zsh_history\nold",
    ];
    for (const name of names) writeFileSync(join(h, name), "");
    writeFileSync(join(h, ".cargo-credentials-not"), "");
    dir("history", "home", ".cargo");
    writeFileSync(join(h, ".cargo", "credentials\n.toml"), "");
    dir("history", "home", ".julia", "logs");
    writeFileSync(join(h, ".julia", "logs", "repl_history.jl"), "");
    for (const nested of [
      "share/fish/fish_history",
      "share/fish/work_history",
      "state/zsh/history",
      "share/zsh/history",
    ]) {
      dir("history", "home", ".local", ...nested.split("/").slice(0, -1));
      writeFileSync(join(h, ".local", nested), "");
    }
    // What the environment names: an exported HISTFILE outside the home, ZDOTDIR, the XDG dirs.
    const elsewhere = dir("history", "elsewhere");
    writeFileSync(join(elsewhere, "my-hist"), "");
    const zdotdir = dir("history", "zdotdir");
    writeFileSync(join(zdotdir, ".zsh_history"), "");
    writeFileSync(join(zdotdir, ".histfile"), "");
    writeFileSync(join(zdotdir, ".zshrc"), "");
    const state = dir("history", "xdg-state", "zsh");
    writeFileSync(join(state, "history"), "");
    writeFileSync(join(elsewhere, "psql"), "");
    writeFileSync(join(elsewhere, "node-repl"), "");
    const rules = resolveSandboxPolicy(ww(), {
      cwd: dir("history", "ws"),
      env: {
        HOME: h,
        HISTFILE: join(elsewhere, "my-hist"),
        PSQL_HISTORY: join(elsewhere, "psql"),
        NODE_REPL_HISTORY: join(elsewhere, "node-repl"),
        LESSHISTFILE: "-",
        ZDOTDIR: zdotdir,
        XDG_STATE_HOME: join(base, "history", "xdg-state"),
      },
    });
    const file = (path: string) => ({ path, type: "file", readable: [] });
    expect(rules.hidden).toEqual(
      withAlwaysHidden([
        ...names.map((name) => file(join(h, name))),
        file(join(h, ".cargo", "credentials\n.toml")),
        file(join(h, ".julia", "logs", "repl_history.jl")),
        file(join(h, ".local", "share", "fish", "fish_history")),
        file(join(h, ".local", "share", "fish", "work_history")),
        file(join(h, ".local", "share", "zsh", "history")),
        file(join(h, ".local", "state", "zsh", "history")),
        file(join(elsewhere, "my-hist")),
        file(join(elsewhere, "node-repl")),
        file(join(elsewhere, "psql")),
        file(join(state, "history")),
        file(join(zdotdir, ".histfile")),
        file(join(zdotdir, ".zsh_history")),
      ]),
    );
  });

  it("refuses to run rather than leave visible a denied name that is not UTF-8, which no backend can name", () => {
    const h = dir("not-utf8", "home");
    const cwd = dir("not-utf8", "ws");
    const workspace = createSandboxWorkspace(ww(), { cwd, env: { HOME: h }, denyRead: [`${cwd}/*.key`] });
    // In the workspace, a pattern hides nothing anyway: no refusal.
    writeFileSync(Buffer.concat([Buffer.from(`${cwd}/a`), Buffer.from([0xff]), Buffer.from(".key")]), "");
    expect(workspace.rules().hidden).toEqual(withAlwaysHidden([]));
    writeFileSync(Buffer.concat([Buffer.from(`${h}/.zsh_history`), Buffer.from([0xff])]), "");
    expect(() => workspace.rules()).toThrow(
      `cannot sandbox: "${h}/.zsh_history\ufffd" (shown with replacement characters) matches a read deny ` +
        "pattern, and its name is not UTF-8, so the sandbox cannot name it to hide it; rename or remove it",
    );
  });

  it("denyRead hides what the session learns later (a snapshot's HISTFILE) from the next command on", () => {
    const h = dir("learned", "home");
    const hist = join(dir("learned", "state"), "hist");
    writeFileSync(hist, "");
    const workspace = createSandboxWorkspace(ww(), { cwd: dir("learned", "ws"), env: { HOME: h } });
    expect(workspace.rules().hidden).toEqual(withAlwaysHidden([]));
    workspace.denyRead([hist]);
    workspace.denyRead([hist]);
    expect(workspace.rules().hidden).toEqual(withAlwaysHidden([{ path: hist, type: "file", readable: [] }]));
    expect(() => workspace.denyRead([""])).toThrow(
      'invalid sandbox options: denyRead[0]: expected a non-empty path, received ""',
    );
  });

  it("a home that is a file, or a pattern through a file, hides nothing and throws nothing", () => {
    const file = join(dir("home-file"), "not-a-dir");
    writeFileSync(file, "");
    const workspace = createSandboxWorkspace(ww(), {
      cwd: dir("home-file-ws"),
      env: { HOME: file },
      denyRead: [`${file}/x`, `${file}/*`],
    });
    expect(workspace.rules().hidden).toEqual(withAlwaysHidden([]));
  });

  it("read-only hides the same secrets", () => {
    const h = dir("ro-secrets");
    dir("ro-secrets", ".gnupg");
    expect(resolveSandboxPolicy({ mode: "read-only" }, { cwd: base, env: { HOME: h } }).hidden).toEqual(
      withAlwaysHidden([{ path: join(h, ".gnupg"), type: "dir", readable: [] }]),
    );
  });
});

describe("resolveSandboxPolicy: other modes", () => {
  it("read-only: nothing writable, an empty /tmp, no network", () => {
    expect(resolveSandboxPolicy({ mode: "read-only" }, { cwd: base, env: env() })).toEqual({
      mode: "read-only",
      readableRoots: ["/"],
      writableRoots: [],
      tmp: EMPTY_TMP,
      hidden: withAlwaysHidden([]),
      network: false,
    });
  });

  it.each(["danger-full-access", "external-sandbox"] as const)(
    "%s: everything writable, the host's /tmp, nothing hidden, network on",
    (mode) => {
      expect(resolveSandboxPolicy({ mode }, { cwd: base, env: env() })).toEqual({
        mode,
        readableRoots: ["/"],
        writableRoots: [{ root: "/", readOnlySubpaths: [] }],
        tmp: { kind: "host" },
        hidden: [],
        network: true,
      });
    },
  );

  it("rejects a cwd that does not exist", () => {
    const cwd = join(base, "absent");
    expect(() => resolveSandboxPolicy({ mode: "read-only" }, { cwd })).toThrow(
      expect.objectContaining({
        code: "CWD_NOT_FOUND",
        message: `cwd is not an existing directory: ${cwd}`,
      }) as SandboxError,
    );
  });
});

describe("resolveSandboxPolicy: what a sandboxed command planted", () => {
  it("a FIFO where a gitdir file or commondir should be never blocks the resolver", () => {
    const cwd = dir("fifo");
    mkdirSync(join(cwd, "gd"));
    execFileSync("mkfifo", [join(cwd, "gd", "commondir")]);
    writeFileSync(join(cwd, ".git"), "gitdir: gd\n");
    // gd holds no HEAD: git does not take it for a git dir, and what is there is the command's to write.
    expect(resolveSandboxPolicy(ww(), { cwd, env: env() }).writableRoots).toEqual([
      { root: cwd, readOnlySubpaths: [join(cwd, ".git"), join(cwd, "gd", "commondir")] },
    ]);
    rmSync(join(cwd, ".git"));
    execFileSync("mkfifo", [join(cwd, ".git")]);
    expect(resolveSandboxPolicy(ww(), { cwd, env: env() }).writableRoots).toEqual([
      { root: cwd, readOnlySubpaths: [join(cwd, ".git")] },
    ]);
  });
});

describe("resolveSandboxPolicy: what a repository's config points into the work tree", () => {
  it("keeps core.hooksPath and included config files read-only, as the person's next commit runs them", () => {
    const cwd = repo("hooks-path");
    dir("hooks-path", ".husky");
    writeFileSync(join(cwd, ".gitconfig.local"), "[user]\n");
    git(cwd, "config", "core.hooksPath", ".husky");
    git(cwd, "config", "include.path", "../.gitconfig.local");
    expect(resolveSandboxPolicy(ww(), { cwd, env: env() }).writableRoots).toEqual([
      {
        root: cwd,
        readOnlySubpaths: sorted([
          ...controlOf(join(cwd, ".git")),
          join(cwd, ".gitconfig.local"),
          join(cwd, ".husky"),
        ]),
      },
    ]);
  });
});

describe("resolveSandboxPolicy: a secret the environment names where this user cannot look", () => {
  it("is nothing to hide (a command runs with the same rights), not an error", () => {
    const locked = dir("locked");
    mkdirSync(join(locked, "inner"));
    writeFileSync(join(locked, "inner", "terraformrc"), "");
    chmodSync(locked, 0o000);
    try {
      const secret = join(locked, "inner", "terraformrc");
      const resolved = resolveSandboxPolicy(ww(), {
        cwd: dir("project-locked"),
        env: env({ TF_CLI_CONFIG_FILE: secret }),
      });
      // Root looks anyway and hides it; anyone else cannot see it, nor can the command.
      const hidden = resolved.hidden.map((entry) => entry.path);
      if (process.getuid?.() === 0) expect(hidden).toContain(secret);
      else expect(hidden).not.toContain(secret);
    } finally {
      chmodSync(locked, 0o700);
    }
  });
});
