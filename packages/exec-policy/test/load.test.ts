import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecPolicyError, isExecPolicyError } from "../src/errors.js";
import { checkExecPolicy, evaluateExecPolicy } from "../src/evaluate.js";
import { loadExecPolicy, loadExecPolicyFiles, type RulesFile } from "../src/load.js";
import { compileNetworkDomains } from "../src/network.js";

function loadError(files: readonly RulesFile[]): string {
  try {
    loadExecPolicy(files);
  } catch (error) {
    if (!isExecPolicyError(error)) throw error;
    expect(error.code).toBe("INVALID_RULES");
    return error.message;
  }
  throw new Error("expected the policy not to load");
}

const rulesError = (text: string): string => loadError([{ path: "p.rules", text }]);
const tomlError = (text: string): string => loadError([{ path: "r.toml", text }]);

describe("ExecPolicyError", () => {
  it("carries its code and the Conch brand, so the guard works across copies", () => {
    const error = new ExecPolicyError("INVALID_RULES", "x.rules:1: bad");
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("ExecPolicyError");
    expect(isExecPolicyError(error)).toBe(true);
    expect((error as unknown as Record<symbol, unknown>)[Symbol.for("conch.error")]).toBe(true);
    expect(isExecPolicyError(Object.assign(new Error("x"), { code: "INVALID_RULES" }))).toBe(false);
    expect(isExecPolicyError(null)).toBe(false);
  });
});

describe("Codex .rules files", () => {
  it("reads Codex's example policy and checks its examples", () => {
    const policy = loadExecPolicy([
      {
        path: "example.codexpolicy",
        text: `
# Example policy to illustrate syntax; not comprehensive and not recommended for actual use.

prefix_rule(
    pattern = ["git", "reset", "--hard"],
    decision = "forbidden",
    justification = "destructive operation",
    match = [
        ["git", "reset", "--hard"],
    ],
    not_match = [
        ["git", "reset", "--keep"],
        "git reset --merge",
    ],
)

prefix_rule(
    pattern = ["cp"],
    decision = "prompt",
    match = [
        ["cp", "foo", "bar"],
        "cp -r src dest",
    ],
)

prefix_rule(
    pattern = ["pwd"],
    match = [
        ["pwd"],
    ],
)
`,
      },
    ]);
    expect([...policy.rulesByProgram.keys()]).toEqual(["git", "cp", "pwd"]);
    expect(policy.rulesByProgram.get("git")).toEqual([
      {
        program: "git",
        rest: ["reset", "--hard"],
        decision: "forbidden",
        justification: "destructive operation",
        source: { path: "example.codexpolicy", line: 4 },
      },
    ]);
    expect(evaluateExecPolicy(policy, ["git", "reset", "--hard", "HEAD~1"], { fallback: "allow" })).toEqual({
      decision: "forbidden",
      matchedRules: [
        {
          type: "prefixRuleMatch",
          matchedPrefix: ["git", "reset", "--hard"],
          decision: "forbidden",
          resolvedProgram: null,
          justification: "destructive operation",
        },
      ],
    });
  });

  it("binds positional arguments in Codex's parameter order and reads None as left out", () => {
    const policy = loadExecPolicy([
      { path: "p.rules", text: 'prefix_rule(["git", "push"], "prompt", None, ["git pull"], "asks first")' },
    ]);
    expect(policy.rulesByProgram.get("git")).toEqual([
      {
        program: "git",
        rest: ["push"],
        decision: "prompt",
        justification: "asks first",
        source: { path: "p.rules", line: 1 },
      },
    ]);
  });

  it("expands first-position alternatives into one rule per program and keeps later ones", () => {
    const policy = loadExecPolicy([
      { path: "p.rules", text: 'prefix_rule(pattern = [["bash", "sh"], ["-c"], ["-l", "-i"]])' },
    ]);
    const source = { path: "p.rules", line: 1 };
    expect(Object.fromEntries(policy.rulesByProgram)).toEqual({
      bash: [{ program: "bash", rest: ["-c", ["-l", "-i"]], decision: "allow", justification: null, source }],
      sh: [{ program: "sh", rest: ["-c", ["-l", "-i"]], decision: "allow", justification: null, source }],
    });
  });

  it("keeps host executable paths normalised, deduplicated and with ~/ expanded", () => {
    const policy = loadExecPolicy([
      {
        path: "p.rules",
        text: 'host_executable(name = "git", paths = ["/usr/bin/../bin/git", "/usr/bin/git", "//opt//git/", "~/bin/git"])',
      },
    ]);
    expect(policy.hostExecutables.get("git")).toEqual(["/usr/bin/git", "/opt/git", `${homedir()}/bin/git`]);
  });

  it.each<[string, string]>([
    [
      'foo(x = "a")',
      "p.rules:1: unknown function `foo` (a rules file may call prefix_rule, host_executable and network_rule)",
    ],
    [
      'prefix_rule(\n  pattern = ["a"],\n  decison = "allow",\n)',
      "p.rules:3: prefix_rule() got an unexpected keyword argument `decison`",
    ],
    ['\nprefix_rule(decision = "allow")', "p.rules:2: prefix_rule() missing required argument `pattern`"],
    [
      'prefix_rule(["a"], pattern = ["b"])',
      "p.rules:1: prefix_rule() got multiple values for argument `pattern`",
    ],
    ['host_executable("git", [], "x")', "p.rules:1: host_executable() takes at most 2 positional arguments"],
    [
      'prefix_rule(pattern = "git")',
      "p.rules:1: prefix_rule() argument `pattern` must be a list (got string)",
    ],
    ['prefix_rule(\n  pattern = ["a"],\n  decision = "deny",\n)', "p.rules:3: invalid decision: deny"],
    [
      'prefix_rule(pattern = ["a"], decision = 1)',
      "p.rules:1: prefix_rule() argument `decision` must be a string (got int)",
    ],
    [
      'prefix_rule(pattern = ["ls"], decision = "prompt", justification = "   ")',
      "p.rules:1: invalid rule: justification cannot be empty",
    ],
    ["prefix_rule(pattern = [])", "p.rules:1: invalid pattern element: pattern cannot be empty"],
    [
      'prefix_rule(pattern = ["a", []])',
      "p.rules:1: invalid pattern element: pattern alternatives cannot be empty",
    ],
    [
      'prefix_rule(pattern = ["a", ["b", 2]])',
      "p.rules:1: invalid pattern element: pattern alternative must be a string (got int)",
    ],
    [
      'prefix_rule(pattern = ["a", True])',
      "p.rules:1: invalid pattern element: pattern element must be a string or list of strings (got bool)",
    ],
    [
      'prefix_rule(pattern = ["a"], match = [\n  "a \'b",\n])',
      "p.rules:2: invalid example: example string has invalid shell syntax",
    ],
    [
      'prefix_rule(pattern = ["a"], match = ["  "])',
      "p.rules:1: invalid example: example cannot be an empty string",
    ],
    [
      'prefix_rule(pattern = ["a"], not_match = [[]])',
      "p.rules:1: invalid example: example cannot be an empty list",
    ],
    [
      'prefix_rule(pattern = ["a"], match = [["a", 1]])',
      "p.rules:1: invalid example: example tokens must be strings (got int)",
    ],
    [
      'prefix_rule(pattern = ["a"], match = [None])',
      "p.rules:1: invalid example: example must be a string or list of strings (got NoneType)",
    ],
    [
      'host_executable(name = "", paths = [])',
      "p.rules:1: invalid rule: host_executable name cannot be empty",
    ],
    [
      'host_executable(name = "git", paths = ["/usr/bin/rg"])',
      "p.rules:1: invalid rule: host_executable path `/usr/bin/rg` must have basename `git`",
    ],
    [
      'host_executable(name = "git", paths = [1])',
      "p.rules:1: invalid rule: host_executable paths must be strings (got int)",
    ],
    [
      'host_executable(name = "git", paths = ["bin/git"])',
      "p.rules:1: invalid rule: host_executable paths must be absolute or use `~/...` home-relative syntax (got bin/git): path is not absolute: bin/git",
    ],
    [
      'network_rule(host = "a.com", protocol = "ftp", decision = "allow")',
      "p.rules:1: invalid rule: network_rule protocol must be one of http, https, socks5_tcp, socks5_udp (got ftp)",
    ],
    [
      'network_rule(host = "a.com", protocol = "https")',
      "p.rules:1: network_rule() missing required argument `decision`",
    ],
    ['prefix_rule(pattern = ["a"]\n\nprefix_rule(pattern = ["b"])', "p.rules:1: `(` is never closed"],
  ])("reports %j as %j", (text, message) => {
    expect(rulesError(text)).toBe(message);
  });

  it("reports examples that fail at load, naming the file, the rule's line, the rule and the examples", () => {
    expect(
      rulesError(`prefix_rule(pattern = ["ls"])

prefix_rule(
    pattern = ["git", ["push", "fetch"]],
    match = ["git push", ["git", "pull"], "git status --short", ["git", "fetch"]],
)`),
    ).toBe(
      'p.rules:3: expected every example to match rule `["git", ["push", "fetch"]]`; unmatched examples: "git pull", "git status --short"',
    );
    expect(
      rulesError(`prefix_rule(
    pattern = ["git", "status"],
    not_match = ["git --config color.status=always status", ["git", "status", "it's"]],
)`),
    ).toBe('p.rules:1: expected example to not match rule `["git", "status"]`: git status \'it\'"\'"\'s\'');
  });

  it("checks examples against the rule alone, after the whole file, with host executables known so far", () => {
    // Another rule for the same program does not satisfy this rule's example.
    expect(
      rulesError(
        'prefix_rule(pattern = ["git"])\nprefix_rule(pattern = ["git", "push"], match = ["git pull"])',
      ),
    ).toBe(
      'p.rules:2: expected every example to match rule `["git", "push"]`; unmatched examples: "git pull"',
    );
    // A host path resolves to the basename rule unless a host_executable() later in the file excludes it.
    const example = 'prefix_rule(pattern = ["git"], match = [["/usr/bin/git", "status"]])';
    expect(() => loadExecPolicy([{ path: "p.rules", text: example }])).not.toThrow();
    expect(rulesError(`${example}\nhost_executable(name = "git", paths = ["/opt/git"])`)).toBe(
      'p.rules:1: expected every example to match rule `["git"]`; unmatched examples: "/usr/bin/git status"',
    );
    expect(
      loadError([
        { path: "a.rules", text: 'host_executable(name = "git", paths = ["/opt/git"])' },
        { path: "b.rules", text: example },
      ]),
    ).toBe(
      'b.rules:1: expected every example to match rule `["git"]`; unmatched examples: "/usr/bin/git status"',
    );
    // A host_executable() in a later file comes too late to fail an earlier file's examples.
    expect(() =>
      loadExecPolicy([
        { path: "a.rules", text: example },
        { path: "b.rules", text: 'host_executable(name = "git", paths = ["/opt/git"])' },
      ]),
    ).not.toThrow();
  });

  it("names the file that is wrong among several", () => {
    expect(
      loadError([
        { path: "ok.rules", text: 'prefix_rule(pattern = ["a"])' },
        { path: "bad.rules", text: "\n\nprefix_rule(" },
      ]),
    ).toBe("bad.rules:3: `(` is never closed");
  });
});

describe("TOML rules files", () => {
  const toml = `# Conch rules
[[rule]]
pattern = ["git", ["push", "fetch"]]
decision = "prompt"
justification = "Talks to the network."
match = ["git push origin main", ["git", "fetch"]]
not_match = ["git status"]

[[rule]]
pattern = [["rm", "rmdir"]]
decision = "forbidden"

[[rule]]
pattern = ["ls"]

[[host_executable]]
name = "git"
paths = ["/usr/bin/git"]

[[network_rule]]
host = "API.github.com:443"
protocol = "https"
decision = "allow"

[[network_rule]]
host = "evil.example"
protocol = "http"
decision = "deny"
justification = "no"
`;

  it("reads rules, host executables and network rules", () => {
    const policy = loadExecPolicy([{ path: "conch.toml", text: toml }]);
    expect(Object.fromEntries(policy.rulesByProgram)).toEqual({
      git: [
        {
          program: "git",
          rest: [["push", "fetch"]],
          decision: "prompt",
          justification: "Talks to the network.",
          source: { path: "conch.toml", line: 2 },
        },
      ],
      rm: [
        {
          program: "rm",
          rest: [],
          decision: "forbidden",
          justification: null,
          source: { path: "conch.toml", line: 9 },
        },
      ],
      rmdir: [
        {
          program: "rmdir",
          rest: [],
          decision: "forbidden",
          justification: null,
          source: { path: "conch.toml", line: 9 },
        },
      ],
      ls: [
        {
          program: "ls",
          rest: [],
          decision: "allow",
          justification: null,
          source: { path: "conch.toml", line: 13 },
        },
      ],
    });
    expect(Object.fromEntries(policy.hostExecutables)).toEqual({ git: ["/usr/bin/git"] });
    expect(policy.networkRules).toEqual([
      { host: "api.github.com", protocol: "https", decision: "allow", justification: null },
      { host: "evil.example", protocol: "http", decision: "forbidden", justification: "no" },
    ]);
    expect(compileNetworkDomains(policy)).toEqual({ allowed: ["api.github.com"], denied: ["evil.example"] });
  });

  it("merges with .rules files in order; the later host_executable wins", () => {
    const policy = loadExecPolicy([
      {
        path: "codex.rules",
        text: 'prefix_rule(pattern = ["git"], decision = "prompt")\nhost_executable(name = "git", paths = [])',
      },
      { path: "conch.toml", text: toml },
    ]);
    expect(policy.rulesByProgram.get("git")?.map((rule) => rule.decision)).toEqual(["prompt", "prompt"]);
    expect(policy.hostExecutables.get("git")).toEqual(["/usr/bin/git"]);
    expect(
      evaluateExecPolicy(policy, ["/usr/bin/git", "push"], { fallback: "allow" }).matchedRules,
    ).toHaveLength(2);
  });

  it("accepts an empty file and a byte-order mark", () => {
    expect(loadExecPolicy([{ path: "empty.toml", text: "" }]).rulesByProgram.size).toBe(0);
    expect(
      loadExecPolicy([{ path: "bom.toml", text: '\uFEFF[[rule]]\npattern = ["ls"]\n' }]).rulesByProgram.size,
    ).toBe(1);
    expect(
      loadExecPolicy([{ path: "bom.rules", text: '\uFEFFprefix_rule(pattern = ["ls"])' }]).rulesByProgram
        .size,
    ).toBe(1);
  });

  it.each<[string, string]>([
    [
      '[[rule]]\npattern = ["git"\ndecision = "allow"\n',
      "r.toml:3: invalid TOML: expected comma or end of structure",
    ],
    [
      '[[rule]]\npattern = ["a"]\n\n[[rules]]\npattern = ["b"]\n',
      "r.toml:4: unknown key `rules` (expected [[rule]], [[host_executable]] or [[network_rule]] tables)",
    ],
    ['[rule]\npattern = ["a"]\n', "r.toml:1: `rule` must be an array of tables ([[rule]])"],
    ['rule = "x"\n', "r.toml:1: `rule` must be an array of tables ([[rule]])"],
    [
      '[[rule]]\npattern = ["a"]\n\n[[rule]]\npattern = ["b"]\ndecison = "allow"\n',
      "r.toml:6: rule 2: unknown key `decison` (expected one of pattern, decision, justification, match, not_match, sandbox)",
    ],
    ['[[rule]]\ndecision = "allow"\n', "r.toml:1: rule 1: missing required key `pattern`"],
    ['[[rule]]\npattern = "git"\n', "r.toml:2: rule 1: `pattern` must be an array (got string)"],
    [
      '[[rule]]\npattern = ["a"]\n\ndecision = 1\n',
      "r.toml:4: rule 1: `decision` must be a string (got integer)",
    ],
    ['[[rule]]\npattern = ["a"]\ndecision = "deny"\n', "r.toml:3: rule 1: invalid decision: deny"],
    [
      '[[rule]]\npattern = ["a"]\njustification = ""\n',
      "r.toml:3: rule 1: invalid rule: justification cannot be empty",
    ],
    ["[[rule]]\npattern = []\n", "r.toml:2: rule 1: invalid pattern element: pattern cannot be empty"],
    [
      '[[rule]]\npattern = ["a", [1.5]]\n',
      "r.toml:2: rule 1: invalid pattern element: pattern alternative must be a string (got float)",
    ],
    [
      '[[rule]]\npattern = ["a", {x = 1}]\n',
      "r.toml:2: rule 1: invalid pattern element: pattern element must be a string or list of strings (got table)",
    ],
    [
      '[[rule]]\npattern = ["a"]\nmatch = ["a \\"b"]\n',
      "r.toml:3: rule 1: invalid example: example string has invalid shell syntax",
    ],
    [
      '[[rule]]\npattern = ["a"]\nnot_match = [true]\n',
      "r.toml:3: rule 1: invalid example: example must be a string or list of strings (got boolean)",
    ],
    [
      '[[rule]]\npattern = ["a"]\n[[rule]]\npattern = ["git", "status"]\nnot_match = ["git status"]\n',
      'r.toml:3: rule 2: expected example to not match rule `["git", "status"]`: git status',
    ],
    [
      '[[rule]]\npattern = ["git", "push"]\nmatch = ["git pull"]\n',
      'r.toml:1: rule 1: expected every example to match rule `["git", "push"]`; unmatched examples: "git pull"',
    ],
    ["[[host_executable]]\npaths = []\n", "r.toml:1: host_executable 1: missing required key `name`"],
    ['[[host_executable]]\nname = "git"\n', "r.toml:1: host_executable 1: missing required key `paths`"],
    [
      '[[host_executable]]\nname = "/usr/bin/git"\npaths = []\n',
      "r.toml:2: host_executable 1: invalid rule: host_executable name must be a bare executable name (got /usr/bin/git)",
    ],
    [
      '[[host_executable]]\nname = "git"\npaths = ["/usr/bin/gti"]\n',
      "r.toml:3: host_executable 1: invalid rule: host_executable path `/usr/bin/gti` must have basename `git`",
    ],
    [
      '[[network_rule]]\nhost = "*"\nprotocol = "http"\ndecision = "allow"\n',
      "r.toml:2: network_rule 1: invalid rule: network_rule host must be a specific host; wildcards are not allowed",
    ],
    [
      '[[network_rule]]\nhost = "a.com"\ndecision = "allow"\n',
      "r.toml:1: network_rule 1: missing required key `protocol`",
    ],
  ])("reports %j as %j", (text, message) => {
    expect(tomlError(text)).toBe(message);
  });

  it("does not count a header inside a multi-line string when locating a rule", () => {
    expect(
      tomlError(`[[rule]]
pattern = ["a"]
justification = """
[[rule]]
"""

[[rule]]
pattern = ["b"]
decision = "never"
`),
    ).toBe("r.toml:9: rule 2: invalid decision: never");
  });
});

describe("a rule's sandbox", () => {
  const toml = (sandbox: string, decision = "allow"): string =>
    `[[rule]]\npattern = ["npm", "test"]\ndecision = "${decision}"\nsandbox = ${sandbox}\n`;
  const starlark = (sandbox: string, decision = "allow"): string =>
    `prefix_rule(\n  pattern = ["npm", "test"],\n  decision = "${decision}",\n  sandbox = ${sandbox},\n)\n`;

  it('is "none" in either format, kept on the rule and on its matches', () => {
    for (const file of [
      { path: "r.toml", text: toml('"none"') },
      { path: "p.rules", text: starlark('"none"') },
    ]) {
      const policy = loadExecPolicy([file]);
      expect(policy.rulesByProgram.get("npm")).toEqual([
        {
          program: "npm",
          rest: ["test"],
          decision: "allow",
          justification: null,
          sandbox: "none",
          source: { path: file.path, line: 1 },
        },
      ]);
      expect(evaluateExecPolicy(policy, ["npm", "test"], { fallback: "prompt" }).matchedRules).toEqual([
        {
          type: "prefixRuleMatch",
          matchedPrefix: ["npm", "test"],
          decision: "allow",
          resolvedProgram: null,
          justification: null,
          sandbox: "none",
        },
      ]);
      expect(checkExecPolicy(policy, ["npm", "test", "--watch"])).toEqual({
        matchedRules: [
          { prefixRuleMatch: { matchedPrefix: ["npm", "test"], decision: "allow", sandbox: "none" } },
        ],
        decision: "allow",
      });
    }
  });

  it("is absent otherwise, and then the rule keeps the sandbox", () => {
    const policy = loadExecPolicy([
      { path: "p.rules", text: 'prefix_rule(pattern = ["ls"], sandbox = None)' },
    ]);
    expect(policy.rulesByProgram.get("ls")).toEqual([
      {
        program: "ls",
        rest: [],
        decision: "allow",
        justification: null,
        source: { path: "p.rules", line: 1 },
      },
    ]);
    expect(checkExecPolicy(policy, ["ls"])).toEqual({
      matchedRules: [{ prefixRuleMatch: { matchedPrefix: ["ls"], decision: "allow" } }],
      decision: "allow",
    });
  });

  it.each<[string, string]>([
    [
      toml('"off"'),
      'r.toml:4: rule 1: invalid sandbox: "off" (expected "none", which runs the command outside the sandbox)',
    ],
    [
      toml('"None"'),
      'r.toml:4: rule 1: invalid sandbox: "None" (expected "none", which runs the command outside the sandbox)',
    ],
    [toml("false"), "r.toml:4: rule 1: `sandbox` must be a string (got boolean)"],
    [
      toml('"none"', "prompt"),
      'r.toml:4: rule 1: invalid sandbox: sandbox = "none" needs decision = "allow" (this rule\'s decision is "prompt")',
    ],
    [
      toml('"none"', "forbidden"),
      'r.toml:4: rule 1: invalid sandbox: sandbox = "none" needs decision = "allow" (this rule\'s decision is "forbidden")',
    ],
  ])("reports %j in a TOML file as %s", (text, message) => {
    expect(tomlError(text)).toBe(message);
  });

  it.each<[string, string]>([
    [
      starlark('"off"'),
      'p.rules:4: invalid sandbox: "off" (expected "none", which runs the command outside the sandbox)',
    ],
    [
      starlark('""'),
      'p.rules:4: invalid sandbox: "" (expected "none", which runs the command outside the sandbox)',
    ],
    [starlark("False"), "p.rules:4: prefix_rule() argument `sandbox` must be a string (got bool)"],
    [starlark('["none"]'), "p.rules:4: prefix_rule() argument `sandbox` must be a string (got list)"],
    [
      starlark('"none"', "prompt"),
      'p.rules:4: invalid sandbox: sandbox = "none" needs decision = "allow" (this rule\'s decision is "prompt")',
    ],
    [
      'prefix_rule(["npm"], "allow", [], [], None, "none", "x")',
      "p.rules:1: prefix_rule() takes at most 6 positional arguments",
    ],
  ])("reports %j in a .rules file as %s", (text, message) => {
    expect(rulesError(text)).toBe(message);
  });
});

describe("loadExecPolicyFiles", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "conch-rules-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads files from disk in the order given", async () => {
    await writeFile(join(dir, "a.rules"), 'prefix_rule(pattern = ["git"], decision = "prompt")\n');
    await writeFile(join(dir, "b.toml"), '[[rule]]\npattern = ["git", "push"]\ndecision = "forbidden"\n');
    const policy = await loadExecPolicyFiles([join(dir, "a.rules"), join(dir, "b.toml")]);
    expect(
      evaluateExecPolicy(policy, ["git", "push"], { fallback: "allow" }).matchedRules.map((m) => m.decision),
    ).toEqual(["prompt", "forbidden"]);
  });

  it("reports an unreadable file as INVALID_RULES naming it", async () => {
    const missing = join(dir, "missing.rules");
    const error = await loadExecPolicyFiles([missing]).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isExecPolicyError(error)) throw new Error(`expected an ExecPolicyError, got ${String(error)}`);
    expect(error.message).toBe(
      `${missing}: cannot read rules file: ENOENT: no such file or directory, open '${missing}'`,
    );
    expect((error.cause as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  it("reports a bad file with its path and line", async () => {
    await writeFile(join(dir, "bad.toml"), '[[rule]]\npattern = ["a"]\ndecision = "maybe"\n');
    await expect(loadExecPolicyFiles([join(dir, "bad.toml")])).rejects.toThrow(
      `${join(dir, "bad.toml")}:3: rule 1: invalid decision: maybe`,
    );
  });
});
