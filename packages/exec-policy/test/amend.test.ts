import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendAllowRuleToFile, appendNetworkRuleToFile } from "../src/amend.js";
import { isExecPolicyError } from "../src/errors.js";
import { evaluateExecPolicy } from "../src/evaluate.js";
import { loadExecPolicyFiles } from "../src/load.js";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "conch-amend-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isExecPolicyError(error)) throw new Error(`expected an ExecPolicyError, got ${String(error)}`);
  return error;
}

describe("appendAllowRuleToFile to a .rules file", () => {
  it("creates the directory and file with Codex's line", async () => {
    const path = join(dir, "rules", "default.rules");
    expect(await appendAllowRuleToFile(path, ["echo", "Hello, world!"])).toBe(true);
    expect(await readFile(path, "utf8")).toBe(
      'prefix_rule(pattern=["echo", "Hello, world!"], decision="allow")\n',
    );
  });

  it("appends after existing rules, adding the missing newline only when needed", async () => {
    const withNewline = join(dir, "a.rules");
    const without = join(dir, "b.rules");
    await writeFile(withNewline, 'prefix_rule(pattern=["ls"], decision="allow")\n');
    await writeFile(without, 'prefix_rule(pattern=["ls"], decision="allow")');
    for (const path of [withNewline, without]) {
      expect(await appendAllowRuleToFile(path, ["echo", "Hello, world!"])).toBe(true);
      expect(await readFile(path, "utf8")).toBe(
        'prefix_rule(pattern=["ls"], decision="allow")\nprefix_rule(pattern=["echo", "Hello, world!"], decision="allow")\n',
      );
    }
  });

  it("never duplicates an existing identical line and leaves the file untouched", async () => {
    const path = join(dir, "default.rules");
    await writeFile(path, '# mine\r\nprefix_rule(pattern=["python3"], decision="allow")\r\n');
    const before = await stat(path);
    expect(await appendAllowRuleToFile(path, ["python3"])).toBe(false);
    const after = await stat(path);
    expect(after.ino).toBe(before.ino);
    expect(await readFile(path, "utf8")).toBe(
      '# mine\r\nprefix_rule(pattern=["python3"], decision="allow")\r\n',
    );
  });

  it("escapes tokens so that the rule loads back as the same prefix", async () => {
    const path = join(dir, "default.rules");
    const prefix = ["printf", 'say "hi"\\n', "tab\there", "new\nline", "é😀", "\x01"];
    await appendAllowRuleToFile(path, prefix);
    expect(await readFile(path, "utf8")).toBe(
      'prefix_rule(pattern=["printf", "say \\"hi\\"\\\\n", "tab\\there", "new\\nline", "é😀", "\\u0001"], decision="allow")\n',
    );
    const policy = await loadExecPolicyFiles([path]);
    expect(evaluateExecPolicy(policy, [...prefix, "more"], { fallback: "forbidden" }).decision).toBe("allow");
    expect(await appendAllowRuleToFile(path, prefix)).toBe(false);
  });
});

describe("appendAllowRuleToFile to a TOML file", () => {
  it("creates the file with a [[rule]] table", async () => {
    const path = join(dir, "conch", "rules.toml");
    expect(await appendAllowRuleToFile(path, ["python3", "-m", "pytest"])).toBe(true);
    expect(await readFile(path, "utf8")).toBe(
      '[[rule]]\npattern = ["python3", "-m", "pytest"]\ndecision = "allow"\n',
    );
  });

  it("appends after existing content, separated by a blank line, and the result loads", async () => {
    const path = join(dir, "rules.toml");
    await writeFile(path, '# my rules\n[[rule]]\npattern = ["git", "push"]\ndecision = "prompt"');
    expect(await appendAllowRuleToFile(path, ["cargo", "test"])).toBe(true);
    expect(await appendAllowRuleToFile(path, ["del\x7f", 'q"'])).toBe(true);
    expect(await readFile(path, "utf8")).toBe(
      '# my rules\n[[rule]]\npattern = ["git", "push"]\ndecision = "prompt"\n\n' +
        '[[rule]]\npattern = ["cargo", "test"]\ndecision = "allow"\n\n' +
        '[[rule]]\npattern = ["del\\u007f", "q\\""]\ndecision = "allow"\n',
    );
    const policy = await loadExecPolicyFiles([path]);
    expect([...policy.rulesByProgram.keys()]).toEqual(["git", "cargo", "del\x7f"]);
    expect(policy.rulesByProgram.get("del\x7f")?.[0]?.rest).toEqual(['q"']);
  });

  it("recognises an existing allow rule however it is written, but not a stricter one", async () => {
    const path = join(dir, "rules.toml");
    const text = `[[rule]]
pattern = [["python3"], "-m"]
justification = "tests"

[[rule]]
pattern = ["rm"]
decision = "prompt"
`;
    await writeFile(path, text);
    expect(await appendAllowRuleToFile(path, ["python3", "-m"])).toBe(false);
    expect(await readFile(path, "utf8")).toBe(text);
    expect(await appendAllowRuleToFile(path, ["rm"])).toBe(true);
    expect(await appendAllowRuleToFile(path, ["rm"])).toBe(false);
  });

  it("refuses to touch a file it cannot extend, naming the file and line", async () => {
    const broken = join(dir, "broken.toml");
    await writeFile(broken, '[[rule]]\npattern = ["a"\n');
    expect((await rejection(appendAllowRuleToFile(broken, ["ls"]))).message).toBe(
      `${broken}:3: invalid TOML: expected comma or end of structure`,
    );
    const inline = join(dir, "inline.toml");
    await writeFile(inline, 'rule = [{ pattern = ["a"] }]\n');
    expect((await rejection(appendAllowRuleToFile(inline, ["ls"]))).message).toBe(
      `${inline}:3: invalid TOML: trying to redefine an already defined table or value`,
    );
    expect(await readFile(inline, "utf8")).toBe('rule = [{ pattern = ["a"] }]\n');
  });
});

describe("appendAllowRuleToFile writes", () => {
  it("replace the file atomically, keep its mode and leave no temporary file", async () => {
    const path = join(dir, "default.rules");
    await writeFile(path, "");
    await chmod(path, 0o600);
    const before = await stat(path);
    await appendAllowRuleToFile(path, ["ls"]);
    const after = await stat(path);
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(["default.rules"]);
  });

  it("update a symlinked file at its target", async () => {
    await mkdir(join(dir, "real"));
    const target = join(dir, "real", "default.rules");
    const link = join(dir, "link.rules");
    await writeFile(target, 'prefix_rule(pattern=["ls"], decision="allow")\n');
    await symlink(target, link);
    expect(await appendAllowRuleToFile(link, ["pwd"])).toBe(true);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(target);
    expect(await readFile(target, "utf8")).toBe(
      'prefix_rule(pattern=["ls"], decision="allow")\nprefix_rule(pattern=["pwd"], decision="allow")\n',
    );
    expect((await readdir(join(dir, "real"))).sort()).toEqual(["default.rules"]);
  });

  it("lose nothing when appends to one file run concurrently", async () => {
    const path = join(dir, "default.rules");
    const prefixes = Array.from({ length: 20 }, (_, i) => ["tool", String(i)]);
    const results = await Promise.all([
      ...prefixes.map((prefix) => appendAllowRuleToFile(path, prefix)),
      ...prefixes.map((prefix) => appendAllowRuleToFile(join(dir, ".", "default.rules"), prefix)),
    ]);
    expect(results.filter(Boolean)).toHaveLength(20);
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    expect(lines.sort()).toEqual(
      prefixes.map((prefix) => `prefix_rule(pattern=["tool", "${prefix[1]}"], decision="allow")`).sort(),
    );
  });

  it("reject an empty prefix and malformed tokens before touching the file", async () => {
    const path = join(dir, "default.rules");
    expect((await rejection(appendAllowRuleToFile(path, []))).message).toBe(
      `${path}: prefix rule requires at least one token`,
    );
    expect((await rejection(appendAllowRuleToFile(path, ["a\uD800"]))).message).toBe(
      `${path}: prefix token "a\\ud800" is not well-formed Unicode`,
    );
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("appendNetworkRuleToFile", () => {
  it("appends Codex's network_rule once, to a .rules or a .toml file, and the rules read it", async () => {
    const rules = join(dir, "rules", "default.rules");
    expect(await appendNetworkRuleToFile(rules, { host: "Registry.Test", protocol: "socks5" })).toBe(true);
    expect(await appendNetworkRuleToFile(rules, { host: "registry.test", protocol: "socks5" })).toBe(false);
    expect(await readFile(rules, "utf8")).toBe(
      'network_rule(host="registry.test", protocol="socks5_tcp", decision="allow")\n',
    );
    const toml = join(dir, "rules", "net.toml");
    expect(await appendNetworkRuleToFile(toml, { host: "a.test", protocol: "https" })).toBe(true);
    expect(await appendNetworkRuleToFile(toml, { host: "a.test", protocol: "https" })).toBe(false);
    expect(await readFile(toml, "utf8")).toBe(
      '[[network_rule]]\nhost = "a.test"\nprotocol = "https"\ndecision = "allow"\n',
    );
    const policy = await loadExecPolicyFiles([rules, toml]);
    expect(policy.networkRules.map((rule) => [rule.host, rule.decision])).toEqual([
      ["registry.test", "allow"],
      ["a.test", "allow"],
    ]);
    // A host a rules file would refuse is refused, and nothing is written.
    expect(
      (await rejection(appendNetworkRuleToFile(rules, { host: "*.test", protocol: "https" }))).message,
    ).toContain("wildcards are not allowed");
  });
});
