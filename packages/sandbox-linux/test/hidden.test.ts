import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { isLikelySandboxDenied, type SandboxRules } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { hiddenFilePlaceholder } from "../src/bwrap/placeholder.js";
import { createLinuxBackend } from "../src/index.js";
import { type Outcome, rules, runSandboxed } from "./sandbox-helpers.js";

const backend = createLinuxBackend();

/** Every path under `dir` with its mode, size and content: what "unchanged on the host" compares. */
function snapshot(dir: string): string[] {
  const lines: string[] = [];
  const walk = (path: string): void => {
    const info = lstatSync(path);
    const content = info.isFile() ? readFileSync(path, "utf8") : "";
    lines.push(`${path} ${(info.mode & 0o7777).toString(8)} ${content}`);
    if (info.isDirectory()) for (const name of readdirSync(path).sort()) walk(join(path, name));
  };
  walk(dir);
  return lines;
}

describeWith("bwrap", "hidden paths under real bwrap", () => {
  let base: string;
  let home: string;
  let ws: string;
  let state: string;
  let hiding: SandboxRules;
  let before: string[];
  const sh = (script: string, sandboxRules = hiding, cwd = ws): Promise<Outcome> =>
    runSandboxed(backend, sandboxRules, cwd, ["bash", "-c", script]);
  const file = (path: string, text: string): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };

  beforeAll(() => {
    base = mkdtempSync("/var/tmp/conch-hidden-");
    home = join(base, "home");
    ws = join(home, "ws");
    state = join(home, ".local", "state", "conch");
    file(join(home, ".ssh", "id_rsa"), "PRIVATE KEY");
    file(join(home, ".netrc"), "machine x password y");
    file(join(home, ".config", "gcloud", "creds.json"), "GCLOUD");
    file(join(state, "audit.log"), "STATE");
    file(join(state, "spill", "ws1", "out.txt"), "spilled");
    file(join(state, "spill", "ws2", "out.txt"), "OTHER WORKSPACE");
    file(join(ws, ".env"), "TOKEN=1");
    file(join(ws, "secrets", "key"), "KEY");
    file(join(ws, ".git", "credentials"), "GITCRED");
    file(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    const hidden: SandboxRules["hidden"] = [
      { path: join(home, ".ssh"), type: "dir", readable: [] },
      { path: join(home, ".netrc"), type: "file", readable: [] },
      { path: join(home, ".config", "gcloud"), type: "dir", readable: [] },
      { path: state, type: "dir", readable: [join(state, "spill", "ws1")] },
      { path: join(ws, ".env"), type: "file", readable: [] },
      { path: join(ws, "secrets"), type: "dir", readable: [] },
      { path: join(ws, ".git", "credentials"), type: "file", readable: [] },
    ];
    hiding = rules({ writableRoots: [{ root: ws, readOnlySubpaths: [join(ws, ".git")] }], hidden });
    before = snapshot(base);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("reads a hidden file as an empty file it may not open (EACCES)", async () => {
    const netrc = join(home, ".netrc");
    const result = await sh(`stat -c '%a %s' ${netrc}; cat ${netrc}`);
    expect(result).toEqual({ code: 1, output: `0 0\ncat: ${netrc}: Permission denied\n` });
    expect(isLikelySandboxDenied(result.code, result.output)).toBe(true);
  });

  it("lists and enters a hidden directory nowhere (EACCES)", async () => {
    const ssh = join(home, ".ssh");
    const listed = await sh(`ls ${ssh}`);
    expect(listed).toEqual({ code: 2, output: `ls: cannot open directory '${ssh}': Permission denied\n` });
    expect(isLikelySandboxDenied(listed.code, listed.output)).toBe(true);
    const read = await sh(`cat ${ssh}/id_rsa`);
    expect(read).toEqual({ code: 1, output: `cat: ${ssh}/id_rsa: Permission denied\n` });
  });

  it("keeps a hidden directory's readable exceptions readable and read-only, and nothing else", async () => {
    const result = await sh(
      [
        `cat ${state}/spill/ws1/out.txt; echo`,
        `ls ${state} || true`,
        `cat ${state}/audit.log ${state}/spill/ws2/out.txt || true`,
        `echo x > ${state}/spill/ws1/out.txt || true`,
      ].join("; "),
    );
    expect(result).toEqual({
      code: 0,
      output: [
        "spilled",
        `ls: cannot open directory '${state}': Permission denied`,
        `cat: ${state}/audit.log: No such file or directory`,
        `cat: ${state}/spill/ws2/out.txt: No such file or directory`,
        `bash: line 1: ${state}/spill/ws1/out.txt: Read-only file system`,
        "",
      ].join("\n"),
    });
  });

  it("creates nothing inside a hidden directory and cannot chmod it open", async () => {
    const ssh = join(home, ".ssh");
    const attempts = [
      [`touch ${ssh}/new`, `touch: cannot touch '${ssh}/new': Permission denied`],
      [`mkdir ${state}/new`, `mkdir: cannot create directory '${state}/new': Read-only file system`],
      [`chmod 700 ${ssh}`, `chmod: changing permissions of '${ssh}': Read-only file system`],
      [`chmod 755 ${state}`, `chmod: changing permissions of '${state}': Read-only file system`],
      [`chmod 644 ${home}/.netrc`, `chmod: changing permissions of '${home}/.netrc': Read-only file system`],
    ];
    for (const [script, message] of attempts) {
      expect(await sh(script as string), script).toEqual({ code: 1, output: `${message}\n` });
    }
    expect(statSync(ssh).mode & 0o777).toBe(0o755);
  });

  it("hides paths inside a writable root and inside a read-only .git there", async () => {
    const result = await sh("cat .env; cat secrets/key; cat .git/credentials; cat .git/HEAD");
    expect(result).toEqual({
      code: 0,
      output: [
        "cat: .env: Permission denied",
        "cat: secrets/key: Permission denied",
        "cat: .git/credentials: Permission denied",
        "ref: refs/heads/main",
        "",
      ].join("\n"),
    });
  });

  it("cannot rename, delete or link a hidden path in a writable root to expose it", async () => {
    for (const script of [
      "mv .env env2",
      "mv secrets s2",
      "rm -f .env",
      "rm -rf secrets",
      "ln .env hard && cat hard",
      "cp .env copy && cat copy",
    ]) {
      const result = await sh(script);
      expect(result.code, script).not.toBe(0);
      expect(result.output, script).toMatch(/busy|Permission denied|Invalid cross-device link|Read-only/);
      expect(result.output, script).not.toMatch(/TOKEN|KEY/);
    }
    expect(readFileSync(join(ws, ".env"), "utf8")).toBe("TOKEN=1");
    expect(readFileSync(join(ws, "secrets", "key"), "utf8")).toBe("KEY");
  });

  it("cannot move the directory holding a hidden path aside, where the next command would not hide it", async () => {
    const inHome = { ...hiding, writableRoots: [{ root: home, readOnlySubpaths: [] }] };
    const result = await sh("mv .config elsewhere && cat elsewhere/gcloud/creds.json", inHome, home);
    expect(result).toEqual({
      code: 1,
      output: "mv: cannot move '.config' to 'elsewhere': Device or resource busy\n",
    });
    expect(readFileSync(join(home, ".config", "gcloud", "creds.json"), "utf8")).toBe("GCLOUD");
  });

  it("keeps the placeholder read-only in a sandbox whose writable root holds it", async () => {
    const placeholder = hiddenFilePlaceholder();
    const holding = { ...hiding, writableRoots: [{ root: dirname(placeholder), readOnlySubpaths: [] }] };
    const result = await sh(
      `rm -f ${placeholder}; ln -sf ${home}/.netrc ${placeholder}; mv ${placeholder} ${placeholder}.x; cat ${home}/.netrc`,
      { ...holding, tmp: { kind: "host" } },
      home,
    );
    expect(result.output).not.toContain("password");
    const info = lstatSync(placeholder);
    expect([info.isFile(), info.mode & 0o7777, info.size]).toEqual([true, 0, 0]);
    const again = await sh(`cat ${home}/.netrc`);
    expect(again).toEqual({ code: 1, output: `cat: ${home}/.netrc: Permission denied\n` });
  });

  it("runs git in a repository with hidden paths", async () => {
    const repo = join(base, "repo");
    execFileSync("git", ["init", "-q", repo]);
    writeFileSync(join(repo, ".env"), "TOKEN=2");
    const inRepo = rules({
      writableRoots: [{ root: repo, readOnlySubpaths: [join(repo, ".git")] }],
      hidden: [{ path: join(repo, ".env"), type: "file", readable: [] }],
    });
    const result = await sh("git status --porcelain", inRepo, repo);
    expect(result).toEqual({ code: 0, output: "?? .env\n" });
    rmSync(repo, { recursive: true, force: true });
  });

  // Last: nothing any test above tried left anything behind, no mount point, file or changed mode.
  it("leaves the host as it found it", () => {
    expect(snapshot(base)).toEqual(before);
  });
});
