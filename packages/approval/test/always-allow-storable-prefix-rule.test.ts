import { describe, expect, it } from "vitest";
import { bannedPrefixRuleReason, storablePrefixRule } from "../src/always-allow/storable-prefix-rule.js";
import { BANNED_PREFIX_SUGGESTIONS } from "../src/requirement/amendment.js";

describe("storablePrefixRule", () => {
  it.each([
    // The arity prefix is what is stored.
    [
      ["git", "checkout", "-b", "feat"],
      ["git", "checkout"],
    ],
    [
      ["git", "status", "--short"],
      ["git", "status"],
    ],
    [
      ["npm", "run", "build", "--", "--watch"],
      ["npm", "run", "build"],
    ],
    [
      ["npm", "install"],
      ["npm", "install"],
    ],
    [
      ["cargo", "install", "cargo-insta"],
      ["cargo", "install"],
    ],
    [
      ["docker", "compose", "up", "-d"],
      ["docker", "compose", "up"],
    ],
    [
      ["make", "test"],
      ["make", "test"],
    ],
    [
      ["/usr/bin/git", "log", "-1"],
      ["/usr/bin/git", "log"],
    ],
    [
      ["python3", "manage.py", "migrate"],
      ["python3", "manage.py", "migrate"],
    ],
    [
      ["python3", "-m", "pytest", "tests"],
      ["python3", "-m", "pytest", "tests"],
    ],
    [
      ["node", "scripts/build.js"],
      ["node", "scripts/build.js"],
    ],
    [
      ["bash", "scripts/ci.sh"],
      ["bash", "scripts/ci.sh"],
    ],
    [
      ["timeout", "60", "make", "test"],
      ["timeout", "60", "make", "test"],
    ],
    [
      ["deploy-prod", "--force", "eu"],
      ["deploy-prod", "--force", "eu"],
    ],
    [
      ["uv", "run", "pytest"],
      ["uv", "run", "pytest"],
    ],
    [
      ["pnpm", "exec", "tsc", "-b"],
      ["pnpm", "exec", "tsc"],
    ],
  ])("%j → %j", (argv, prefix) => {
    expect(storablePrefixRule(argv)).toEqual(prefix);
  });

  it.each([
    // Bare interpreters and shells, and their inline-code forms.
    ["python3"],
    ["python3", "-c", "pass"],
    ["python", "-c", "print(1)"],
    ["python3", "-"],
    ["python3", "-m"],
    ["python3", "-W", "ignore", "x.py"],
    ["node"],
    ["node", "-e", "1"],
    ["deno", "eval", "1"],
    ["ruby", "-e", "puts"],
    ["perl", "-e", "1"],
    ["php", "-r", "1"],
    ["bash"],
    ["bash", "-lc", "ls"],
    ["/bin/zsh", "-c", "ls"],
    ["sh", "-c", "ls"],
    ["dash"],
    ["fish", "-c", "ls"],
    ["pwsh", "-Command", "ls"],
    ["powershell"],
    ["bun"],
    ["osascript", "-e", "x"],
    // Runners that change privileges or hide the command.
    ["sudo", "make", "install"],
    ["doas", "ls"],
    ["env", "FOO=1", "make"],
    ["xargs", "grep", "TODO"],
    ["watch", "ls"],
    ["nice", "-n", "5", "rm", "x"],
    ["timeout", "10"],
    ["nohup"],
    // Deleting, and launchers that download and run packages.
    ["rm", "notes.txt"],
    ["/bin/rm", "-r", "build"],
    ["npx", "prettier", "--check", "."],
    ["npm", "exec", "cowsay"],
    ["pnpm", "dlx", "create-vite"],
    ["bun", "x", "cowsay"],
    // Alone, or with options that would cover every subcommand.
    ["git"],
    ["git", "--version"],
    ["git", "-C", "repo", "status"],
    ["npm", "run"],
    ["npm", "--prefix", "app", "test"],
    ["go", "run", "main.go"],
    ["poetry", "run", "pytest"],
    // Anything that is not a literal token.
    ["my-tool", "a b"],
    ["my-tool", "*.ts"],
    ["my-tool", "$HOME"],
    ["deploy", "~/x"],
    [],
  ])("refuses %j", (...argv) => {
    expect(storablePrefixRule(argv)).toBeNull();
  });
});

describe("bannedPrefixRuleReason", () => {
  it.each([
    [["sudo", "make"], "rules starting with sudo are never stored"],
    [["/usr/bin/env"], "rules starting with env are never stored"],
    [["python3", "-c"], "python3 must be followed by the script, module or subcommand it runs"],
    [["git"], "git must be followed by the script, module or subcommand it runs"],
    [["npm", "run"], "npm run alone would allow any script"],
    [["npm", "exec", "x"], "rules starting with npm exec are never stored"],
    [["timeout", "5s"], "timeout without a command"],
    [["timeout", "5s", "sudo", "ls"], "rules starting with sudo are never stored"],
    [[], "an empty prefix"],
    [["git", "status"], null],
    [["npm", "run", "build"], null],
  ])("%j → %s", (prefix, reason) => {
    expect(bannedPrefixRuleReason(prefix)).toBe(reason);
  });

  it("bans every prefix Codex never proposes", () => {
    for (const banned of BANNED_PREFIX_SUGGESTIONS)
      expect(bannedPrefixRuleReason(banned), banned.join(" ")).not.toBeNull();
  });
});

describe("programs whose arguments decide the damage", () => {
  it.each([
    [
      ["chmod", "+x", "build.sh"],
      ["chmod", "+x", "build.sh"],
    ],
    [
      ["chown", "me", "f"],
      ["chown", "me", "f"],
    ],
    [
      ["find", ".", "-name", "x"],
      ["find", ".", "-name", "x"],
    ],
    [
      ["dd", "if=a", "of=b"],
      ["dd", "if=a", "of=b"],
    ],
    [
      ["/sbin/mkfs.ext4", "img"],
      ["/sbin/mkfs.ext4", "img"],
    ],
  ])("store %j exactly, never the bare program", (argv, rule) => {
    expect(storablePrefixRule(argv)).toEqual(rule);
  });
});
