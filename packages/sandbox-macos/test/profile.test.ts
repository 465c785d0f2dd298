// The generated profiles, on every platform: each golden case byte for byte (CONCH_UPDATE_GOLDEN=1
// rewrites them, to be reviewed in the diff), each well formed, no path in any text, and a table of
// operations mirroring the Linux security suite asked of them through the evaluator in sbpl.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isSandboxError } from "@conch/sandbox-core";
import { describe, expect, it } from "vitest";
import { seatbeltArgs, seatbeltProfile } from "../src/profile.js";
import { CASES, HOME, HOST_TMPDIR, PROXY_PORT, SPILL, STATE, TMP, WS } from "./fixtures.js";
import { checkProfile, evaluate, type Query, readSbpl } from "./sbpl.js";

const GOLDEN = join(import.meta.dirname, "golden");
const TAG = "golden";

function profileOf(name: string): { text: string; params: Readonly<Record<string, string>> } {
  const entry = CASES[name];
  if (entry === undefined) throw new Error(`no case ${name}`);
  return seatbeltProfile(entry.rules, {
    tag: TAG,
    ...(entry.proxyPort === undefined ? {} : { proxyPort: entry.proxyPort }),
  });
}

describe("golden profiles", () => {
  for (const name of Object.keys(CASES)) {
    it(`${name}: the profile and its parameters are the reviewed ones, and well formed`, () => {
      const profile = profileOf(name);
      const sbFile = join(GOLDEN, `${name}.sb`);
      const paramsFile = join(GOLDEN, `${name}.params.json`);
      const params = `${JSON.stringify(profile.params, null, 2)}\n`;
      if (process.env.CONCH_UPDATE_GOLDEN === "1") {
        writeFileSync(sbFile, profile.text);
        writeFileSync(paramsFile, params);
      }
      expect(profile.text).toBe(readFileSync(sbFile, "utf8"));
      expect(params).toBe(readFileSync(paramsFile, "utf8"));
      checkProfile(profile.text, profile.params);
    });
  }

  it("sandbox-exec's arguments: the text, each parameter as -DNAME=VALUE, then -- and the command", () => {
    const profile = profileOf("workspace-write");
    const args = seatbeltArgs(profile, ["/bin/bash", "-c", "echo hi"]);
    expect(args.slice(0, 2)).toEqual(["-p", profile.text]);
    expect(args).toContain(`-DWR_0=${WS}`);
    expect(args.slice(-4)).toEqual(["--", "/bin/bash", "-c", "echo hi"]);
  });
});

describe("the checker and the evaluator can fail", () => {
  it("the reader refuses unbalanced and unterminated text", () => {
    expect(() => readSbpl("(version 1)(allow file-read*")).toThrow(/not closed/);
    expect(() => readSbpl("(version 1))")).toThrow(/closes nothing/);
    expect(() => readSbpl('(allow file-read* (literal "/x))')).toThrow(/string/);
  });

  it("the checker refuses a spliced path, an unknown operation, a missing or unused parameter", () => {
    expect(() => checkProfile('(version 1)\n(allow file-read* (subpath "/Users/dev"))', {})).toThrow(
      /spelled out/,
    );
    expect(() => checkProfile("(version 1)\n(allow file-teleport)", {})).toThrow(/unknown operation/);
    expect(() => checkProfile('(version 1)\n(allow file-read* (subpath (param "A")))', {})).toThrow(
      /no -DA=/,
    );
    expect(() => checkProfile("(version 1)\n(allow file-read*)", { A: "/x" })).toThrow(/never uses/);
    expect(() => checkProfile("(allow file-read*)", {})).toThrow(/version 1/);
  });

  it("the last matching rule wins; a named deny outlives a later wildcard allow", () => {
    const text =
      '(version 1)\n(deny default)\n(allow file-write* (subpath (param "R")))\n(deny file-write-unlink (literal (param "K")))\n(allow file-write* (subpath (param "R")))';
    const params = { R: "/r", K: "/r/k" };
    expect(evaluate(text, params, { op: "file-write-data", path: "/r/k" })).toBe("allow");
    expect(evaluate(text, params, { op: "file-write-unlink", path: "/r/k" })).toBe("deny");
    expect(evaluate(text, params, { op: "file-write-unlink", path: "/r/other" })).toBe("allow");
    expect(evaluate(text, params, { op: "file-write-data", path: "/elsewhere" })).toBe("deny");
  });
});

describe("what the profiles allow and refuse (the Linux security suite's cases)", () => {
  type Row = readonly [string, Query, "allow" | "deny"];
  const file = (op: string, path: string, vnode?: Query["vnode"]): Query => ({
    op,
    path,
    ...(vnode ? { vnode } : {}),
  });
  const net = (op: string, host: string, port: number): Query => ({ op, address: { host, port } });
  const unix = (op: string, socket: string): Query => ({ op, socket });
  const CONCHD = `${STATE}/conchd/4242.sock`;
  const noUnixSockets: Row[] = [
    ["connect to conchd's channel socket", unix("network-outbound", CONCHD), "deny"],
    ["connect to docker.sock", unix("network-outbound", "/private/var/run/docker.sock"), "deny"],
    ["bind a unix socket in the workspace", unix("network-bind", `${WS}/s.sock`), "deny"],
  ];

  const table: Readonly<Record<string, readonly Row[]>> = {
    "workspace-write-git": [
      ["write a file in the workspace", file("file-write-data", `${WS}/src/a.ts`), "allow"],
      ["create a file in the workspace", file("file-write-create", `${WS}/new.txt`), "allow"],
      ["write outside the workspace (home)", file("file-write-create", `${HOME}/evil`), "deny"],
      ["write outside the workspace (/etc)", file("file-write-data", "/etc/hosts"), "deny"],
      ["write the host's /tmp", file("file-write-create", "/private/tmp/x"), "deny"],
      ["write the host's $TMPDIR", file("file-write-create", `${HOST_TMPDIR}/x`), "deny"],
      ["write the workspace's own /tmp (TMPDIR)", file("file-write-create", `${TMP}/x`), "allow"],
      ["git's own work: a new object", file("file-write-create", `${WS}/.git/objects/ab/cdef`), "allow"],
      ["git's own work: the index", file("file-write-data", `${WS}/.git/index`), "allow"],
      ["write .git/config", file("file-write-data", `${WS}/.git/config`), "deny"],
      ["add a hook", file("file-write-create", `${WS}/.git/hooks/pre-commit`), "deny"],
      ["replace the hooks directory", file("file-write-unlink", `${WS}/.git/hooks`), "deny"],
      ["create .git/commondir (absent before)", file("file-write-create", `${WS}/.git/commondir`), "deny"],
      [
        "create .git/config.worktree (absent before)",
        file("file-write-create", `${WS}/.git/config.worktree`),
        "deny",
      ],
      ["move .git aside", file("file-write-unlink", `${WS}/.git`), "deny"],
      ["chmod .git", file("file-write-mode", `${WS}/.git`), "deny"],
      ["mkdir .conch (first creation)", file("file-write-create", `${WS}/.conch`), "deny"],
      ["write .conch/rules", file("file-write-create", `${WS}/.conch/rules/default.rules`), "deny"],
      ["create .agents/skill", file("file-write-create", `${WS}/.agents/skill.md`), "deny"],
      ["read a source file", file("file-read-data", `${WS}/src/a.ts`), "allow"],
      ["read /etc/hosts", file("file-read-data", "/etc/hosts"), "allow"],
      ["read ~/.ssh/id_rsa", file("file-read-data", `${HOME}/.ssh/id_rsa`), "deny"],
      ["list ~/.ssh", file("file-read-data", `${HOME}/.ssh`, "DIRECTORY"), "deny"],
      ["stat a key in ~/.ssh", file("file-read-metadata", `${HOME}/.ssh/id_rsa`), "deny"],
      ["read ~/.netrc", file("file-read-data", `${HOME}/.netrc`), "deny"],
      ["read Conch's audit log", file("file-read-data", `${STATE}/audit.jsonl`), "deny"],
      ["write Conch's audit log", file("file-write-data", `${STATE}/audit.jsonl`), "deny"],
      ["read this workspace's spill file", file("file-read-data", `${SPILL}/out-1.txt`), "allow"],
      ["walk the way to the spill file", file("file-read-metadata", `${STATE}/spill`), "allow"],
      ["list another workspace's spill files", file("file-read-data", `${STATE}/spill/other`), "deny"],
      ["write the spill file", file("file-write-data", `${SPILL}/out-1.txt`), "deny"],
      ["read the host's /tmp", file("file-read-data", "/private/tmp/other-user-file"), "deny"],
      ["read the host's $TMPDIR", file("file-read-data", `${HOST_TMPDIR}/x`), "deny"],
      ["read the workspace's own /tmp", file("file-read-data", `${TMP}/x`), "allow"],
      ["write /dev/null", file("file-write-data", "/dev/null", "CHARACTER-DEVICE"), "allow"],
      ["a hard link of .git/config", file("file-link", `${WS}/.git/config`), "deny"],
      ["connect out (1.1.1.1:443)", net("network-outbound", "1.1.1.1", 443), "deny"],
      ["connect to a host listener (127.0.0.1:5432)", net("network-outbound", "127.0.0.1", 5432), "deny"],
      ...noUnixSockets,
      ["read another of the person's terminals", file("file-read-data", "/dev/ttys000"), "deny"],
      ["write to it", file("file-write-data", "/dev/ttys000"), "deny"],
      ["an ioctl on the terminal it was given", file("file-ioctl", "/dev/ttys003"), "allow"],
      ["open the controlling terminal", file("file-write-data", "/dev/tty"), "allow"],
      ["open a new pseudo-terminal", file("file-read-data", "/dev/ptmx"), "allow"],
      ["write to /dev/stderr", file("file-write-data", "/dev/stderr"), "allow"],
      ["write to /dev/fd/2", file("file-write-data", "/dev/fd/2"), "allow"],
      ["mkdir .CONCH (another case)", file("file-write-create", `${WS}/.CONCH`), "deny"],
      ["create .Agents/x (another case)", file("file-write-create", `${WS}/.Agents/x`), "deny"],
      ["create a nested .conch", file("file-write-create", `${WS}/sub/.conch/rules`), "deny"],
      ["a name that merely starts so", file("file-write-create", `${WS}/.conchrc`), "allow"],
      [
        "create .agentſ (a long s, which APFS folds to s)",
        file("file-write-create", `${WS}/.agentſ/x`),
        "deny",
      ],
      ["rename the workspace itself away", file("file-write-unlink", WS), "deny"],
      ["create it again after", file("file-write-create", WS), "deny"],
      ["rename the workspace's /tmp away", file("file-write-unlink", TMP), "deny"],
      ["set a file flag (chflags uchg)", file("file-write-flags", `${WS}/.git/index`), "deny"],
      ["look up the keychain's daemon", { op: "mach-lookup", service: "com.apple.SecurityServer" }, "deny"],
      ["listen on a port", net("network-bind", "127.0.0.1", 8080), "deny"],
      ["run a program", { op: "process-exec", path: "/usr/bin/git" }, "allow"],
    ],
    "hidden-in-workspace": [
      ["read a hidden file in the workspace", file("file-read-data", `${WS}/.env`), "deny"],
      ["overwrite it", file("file-write-data", `${WS}/.env`), "deny"],
      ["move it into view", file("file-write-unlink", `${WS}/.env`), "deny"],
      ["move its directory aside", file("file-write-unlink", `${WS}/config`), "deny"],
      ["write beside it", file("file-write-create", `${WS}/config/other.json`), "allow"],
    ],
    "network-allowlist": [
      ["connect to its own proxy endpoint", net("network-outbound", "127.0.0.1", PROXY_PORT), "allow"],
      ["connect to another command's endpoint", net("network-outbound", "127.0.0.1", PROXY_PORT + 1), "deny"],
      ["connect out directly", net("network-outbound", "93.184.216.34", 443), "deny"],
      ["DNS directly", net("network-outbound", "8.8.8.8", 53), "deny"],
      [
        "trustd, which fetches what a certificate names",
        { op: "mach-lookup", service: "com.apple.trustd.agent" },
        "deny",
      ],
      ...noUnixSockets,
      ["listen on a port", net("network-bind", "127.0.0.1", 8080), "deny"],
    ],
    "network-on": [
      ["connect out", net("network-outbound", "93.184.216.34", 443), "allow"],
      ["listen on a port", net("network-bind", "127.0.0.1", 8080), "allow"],
      [
        "trustd, for a TLS client's checks",
        { op: "mach-lookup", service: "com.apple.trustd.agent" },
        "allow",
      ],
      ["still not the keychain's daemon", { op: "mach-lookup", service: "com.apple.SecurityServer" }, "deny"],
      ...noUnixSockets,
    ],
    "root-holds-host-tmp": [
      ["write in the root", file("file-write-create", "/private/var/folders/x1/a"), "allow"],
      ["write the host's $TMPDIR inside it", file("file-write-create", `${HOST_TMPDIR}/x`), "deny"],
      ["read the host's $TMPDIR inside it", file("file-read-data", `${HOST_TMPDIR}/x`), "deny"],
      ["move the host's $TMPDIR's file into the root", file("file-write-unlink", `${HOST_TMPDIR}/x`), "deny"],
    ],
    "read-only": [
      ["write in the workspace", file("file-write-create", `${WS}/a`), "deny"],
      ["write the host's /tmp", file("file-write-create", "/private/tmp/x"), "deny"],
      ["read the workspace", file("file-read-data", `${WS}/a`), "allow"],
      ["read ~/.ssh", file("file-read-data", `${HOME}/.ssh/config`), "deny"],
    ],
    "odd-paths": [
      [
        "write in a root with quotes, parentheses and a backslash",
        file("file-write-create", '/Users/dev/my "odd" (proj) \\ ñ ;x/a'),
        "allow",
      ],
      ["its .git", file("file-write-create", '/Users/dev/my "odd" (proj) \\ ñ ;x/.git/x'), "deny"],
      ["a hidden directory with # $ *", file("file-read-data", "/Users/dev/#secret $HOME */k"), "deny"],
    ],
  };

  for (const [name, rows] of Object.entries(table)) {
    describe(name, () => {
      const profile = profileOf(name);
      for (const [what, query, expected] of rows) {
        it(`${what}: ${expected}`, () => {
          expect(evaluate(profile.text, profile.params, query)).toBe(expected);
        });
      }
    });
  }
});

describe("paths never reach the text", () => {
  // A small generator with a fixed seed: the same cases every run.
  let seed = 20_261_206;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const ALPHABET = [
    '"',
    "\\",
    "(",
    ")",
    ";",
    "#",
    "*",
    " ",
    "$",
    "'",
    "ñ",
    "é",
    "a",
    "b",
    "/",
    "|",
    "{",
    "}",
  ];
  const segment = (): string => {
    let text = "";
    const length = 1 + Math.floor(random() * 8);
    for (let i = 0; i < length; i++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
    return text.replaceAll("/", "_");
  };

  it("200 random roots, read-only paths and hidden paths round-trip through the parameters", () => {
    for (let n = 0; n < 200; n++) {
      const root = `/Users/${segment()}/${segment()}`;
      const readOnly = `${root}/${segment()}`;
      const hiddenPath = `/Users/${segment()}/.${segment()}`;
      const profile = seatbeltProfile(
        {
          mode: "workspace-write",
          readableRoots: ["/"],
          writableRoots: [{ root, readOnlySubpaths: [readOnly] }],
          tmp: { kind: "host" },
          hidden: [{ path: hiddenPath, type: "dir", readable: [] }],
          network: false,
        },
        { tag: "prop" },
      );
      for (const path of [root, readOnly, hiddenPath]) {
        expect(profile.text.includes(path)).toBe(false);
        expect(Object.values(profile.params)).toContain(path);
      }
      checkProfile(profile.text, profile.params);
      expect(evaluate(profile.text, profile.params, { op: "file-write-create", path: `${root}/x` })).toBe(
        readOnly === `${root}/x` ? "deny" : "allow",
      );
      expect(evaluate(profile.text, profile.params, { op: "file-read-data", path: `${hiddenPath}/k` })).toBe(
        "deny",
      );
    }
  });

  it("a path with a line break or a NUL, a relative path, a bad tag or port: refused, naming it", () => {
    const rules = (root: string) => ({
      mode: "workspace-write" as const,
      readableRoots: ["/"],
      writableRoots: [{ root, readOnlySubpaths: [] }],
      tmp: { kind: "host" as const },
      hidden: [],
      network: false,
    });
    const refused = (thunk: () => unknown, pattern: RegExp): void => {
      try {
        thunk();
      } catch (error) {
        expect(isSandboxError(error)).toBe(true);
        expect((error as Error).message).toMatch(pattern);
        return;
      }
      throw new Error("not refused");
    };
    refused(
      () => seatbeltProfile(rules("/Users/dev/a\nb"), { tag: "t" }),
      /line break.*"\/Users\/dev\/a\\nb"/,
    );
    refused(() => seatbeltProfile(rules("/Users/dev/a\0b"), { tag: "t" }), /NUL/);
    refused(() => seatbeltProfile(rules("Users/dev"), { tag: "t" }), /absolute/);
    refused(() => seatbeltProfile(rules("/w"), { tag: 'x")(allow default' }), /tag/);
    refused(() => seatbeltProfile(rules("/w"), { tag: "t", proxyPort: 70_000 }), /proxyPort/);
    refused(
      () => seatbeltProfile({ ...rules("/w"), readableRoots: ["/Users"] }, { tag: "t" }),
      /readable roots \["\/Users"\]/,
    );
  });
});
