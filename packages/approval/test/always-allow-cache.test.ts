import { REVIEW_DECISIONS } from "@conch/protocol";
import { describe, expect, it } from "vitest";
import {
  ApprovalCache,
  type ApprovalCacheKeyInput,
  canonicalCommand,
} from "../src/always-allow/approval-cache.js";

const NPM_TEST: ApprovalCacheKeyInput = {
  argv: ["npm", "test"],
  cwd: "/work/app",
  sandboxPermissions: "use_default",
  tty: false,
};

describe("canonicalCommand", () => {
  it.each([
    [
      ["npm", "test"],
      ["npm", "test"],
    ],
    [
      ["bash", "-lc", "npm test"],
      ["npm", "test"],
    ],
    [
      ["/bin/bash", "-c", "  npm   'test'  "],
      ["npm", "test"],
    ],
    [
      ["/usr/bin/zsh", "-lc", "npm test"],
      ["npm", "test"],
    ],
    [
      ["bash", "-lc", "npm test && npm run lint"],
      ["__conch_shell_script__", "bash", "-lc", "npm test && npm run lint"],
    ],
    [
      ["/bin/sh", "-c", "npm test > log"],
      ["__conch_shell_script__", "sh", "-c", "npm test > log"],
    ],
    [
      ["bash", "-lc", "npm test $X"],
      ["__conch_shell_script__", "bash", "-lc", "npm test $X"],
    ],
    [
      ["bash", "-lc", "sh -c 'npm test'"],
      ["__conch_shell_script__", "bash", "-lc", "sh -c 'npm test'"],
    ],
    [
      ["bash", "-lc", ""],
      ["__conch_shell_script__", "bash", "-lc", ""],
    ],
    [
      ["./bash", "-lc", "npm test"],
      ["./bash", "-lc", "npm test"],
    ],
    [
      ["bash", "-x", "-c", "npm test"],
      ["bash", "-x", "-c", "npm test"],
    ],
  ])("%j → %j", async (argv, canonical) => {
    expect(await canonicalCommand(argv)).toEqual(canonical);
  });
});

describe("ApprovalCache", () => {
  it("remembers approved_for_session for the same command, cwd, permissions and tty", async () => {
    const cache = new ApprovalCache();
    await cache.record(NPM_TEST, "approved_for_session");
    expect(cache.size).toBe(1);
    expect(await cache.isApprovedForSession(NPM_TEST)).toBe(true);
    expect(await cache.isApprovedForSession({ ...NPM_TEST, argv: ["bash", "-lc", "npm test"] })).toBe(true);
    expect(await cache.isApprovedForSession({ ...NPM_TEST, argv: ["/bin/zsh", "-c", "npm  test"] })).toBe(
      true,
    );
  });

  it.each([
    ["another command", { argv: ["npm", "test", "--", "-u"] }],
    ["another script around it", { argv: ["bash", "-lc", "npm test; npm publish"] }],
    ["a shell outside the system directories", { argv: ["./bash", "-lc", "npm test"] }],
    ["another cwd", { cwd: "/work/other" }],
    ["a request to leave the sandbox", { sandboxPermissions: "require_escalated" as const }],
    ["a tty", { tty: true }],
  ])("does not carry an approval over to %s", async (_name, change) => {
    const cache = new ApprovalCache();
    await cache.record(NPM_TEST, "approved_for_session");
    expect(await cache.isApprovedForSession({ ...NPM_TEST, ...change })).toBe(false);
  });

  it("keys a script that is not one plain command on its exact text", async () => {
    const cache = new ApprovalCache();
    const script = { ...NPM_TEST, argv: ["bash", "-lc", "npm test && npm run lint"] };
    await cache.record(script, "approved_for_session");
    expect(
      await cache.isApprovedForSession({ ...script, argv: ["/bin/bash", "-lc", "npm test && npm run lint"] }),
    ).toBe(true);
    expect(
      await cache.isApprovedForSession({ ...script, argv: ["bash", "-lc", "npm test &&  npm run lint"] }),
    ).toBe(false);
    expect(
      await cache.isApprovedForSession({ ...script, argv: ["bash", "-c", "npm test && npm run lint"] }),
    ).toBe(false);
    expect(await cache.isApprovedForSession(NPM_TEST)).toBe(false);
  });

  it("a literal '~' is not the home directory: approving one never approves the other", async () => {
    const cache = new ApprovalCache();
    const literal = {
      ...NPM_TEST,
      argv: ["touch", "~/pwned"],
      sandboxPermissions: "require_escalated" as const,
    };
    await cache.record(literal, "approved_for_session");
    expect(await cache.isApprovedForSession({ ...literal, argv: ["bash", "-lc", "touch '~/pwned'"] })).toBe(
      true,
    );
    for (const script of [
      "touch ~/pwned",
      "touch ~",
      "touch x=~/pwned",
      "touch --p=a:~/pwned",
      "touch ~root/x",
    ]) {
      expect(await cache.isApprovedForSession({ ...literal, argv: ["bash", "-lc", script] })).toBe(false);
    }
    const home = { ...literal, argv: ["bash", "-lc", "rm -rf ~"] };
    await cache.record(home, "approved_for_session");
    expect(await cache.isApprovedForSession({ ...literal, argv: ["rm", "-rf", "~"] })).toBe(false);
  });

  it("remembers nothing but approved_for_session", async () => {
    const cache = new ApprovalCache();
    for (const decision of REVIEW_DECISIONS.filter((d) => d !== "approved_for_session")) {
      await cache.record(NPM_TEST, decision);
    }
    expect(cache.size).toBe(0);
    expect(await cache.isApprovedForSession(NPM_TEST)).toBe(false);
  });

  it("forgets everything when cleared", async () => {
    const cache = new ApprovalCache();
    await cache.record(NPM_TEST, "approved_for_session");
    await cache.record({ ...NPM_TEST, cwd: "/elsewhere" }, "approved_for_session");
    await cache.record(NPM_TEST, "approved_for_session");
    expect(cache.size).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(await cache.isApprovedForSession(NPM_TEST)).toBe(false);
  });
});
