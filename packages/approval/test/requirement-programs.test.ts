import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadExecPolicy } from "@conch/exec-policy";
import type { ApprovalPolicy } from "@conch/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalRequirement, type ProgramLookup } from "../src/index.js";
import type { ApprovalRequirement } from "../src/requirement/types.js";

// Program resolution through PATH, with real directories built here. The fake programs are empty files
// with the execute bit: nothing here runs them, or anything else it classifies.

let root: string;
let ws: string;
let outside: string;
const CAT = realpathSync("/bin/cat");

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "conch-programs-")));
  ws = join(root, "ws");
  outside = join(root, "outside");
  const program = (path: string): void => {
    writeFileSync(path, "");
    chmodSync(path, 0o755);
  };
  mkdirSync(join(ws, ".venv/bin"), { recursive: true });
  mkdirSync(join(ws, "bin"));
  mkdirSync(join(ws, "links"));
  mkdirSync(join(ws, "tools"));
  mkdirSync(join(outside, "bin"), { recursive: true });
  program(join(ws, ".venv/bin/cat"));
  program(join(ws, ".venv/bin/echo"));
  program(join(ws, "bin/cat"));
  program(join(ws, "cat"));
  program(join(ws, "tools/cat"));
  symlinkSync(CAT, join(ws, "links/cat"));
  // Outside the workspace, but leading into it: a link to a file, and a directory that is a link.
  symlinkSync(join(ws, "tools/cat"), join(outside, "bin/cat"));
  symlinkSync(join(ws, "tools"), join(outside, "tools"));
  symlinkSync(ws, join(root, "ws-link"));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const rules = (text: string) => loadExecPolicy([{ path: "programs.rules", text }]);
const ALLOW_CAT = 'prefix_rule(pattern = ["cat"], decision = "allow")';
const UNSANDBOXED =
  'prefix_rule(pattern = ["cat"], decision = "allow", sandbox = "none")\n' +
  'prefix_rule(pattern = ["ls"], decision = "allow", sandbox = "none")\n' +
  'prefix_rule(pattern = ["timeout"], decision = "allow", sandbox = "none")\n' +
  'prefix_rule(pattern = ["echo"], decision = "allow", sandbox = "none")';

function lookup(path: string, cwd = ws, writableRoots = [ws]): ProgramLookup {
  return { path, cwd, writableRoots };
}

function requirement(
  argv: readonly string[],
  programs: ProgramLookup | undefined,
  approvalPolicy: ApprovalPolicy = "untrusted",
  text = "",
): Promise<ApprovalRequirement> {
  return approvalRequirement({
    argv,
    execPolicy: rules(text),
    approvalPolicy,
    sandboxMode: "workspace-write",
    sandboxPermissions: "use_default",
    ...(programs === undefined ? {} : { programs }),
  });
}

const SYSTEM = "/usr/bin:/bin";
const means = "so it is not the cat the rules and the known-safe list mean";

describe("a program PATH finds in the workspace", () => {
  it("is never known safe, and the reason says where it resolved", async () => {
    const venv = lookup(`${ws}/.venv/bin:${SYSTEM}`);
    expect(await requirement(["cat", "x"], undefined)).toEqual({
      type: "skip",
      reason: null,
      proposedRule: ["cat", "x"],
      bypassSandbox: false,
    });
    expect(await requirement(["cat", "x"], lookup(SYSTEM))).toEqual({
      type: "skip",
      reason: null,
      proposedRule: ["cat", "x"],
      bypassSandbox: false,
    });
    expect(await requirement(["cat", "x"], venv)).toEqual({
      type: "needs-approval",
      reason: `\`cat x\` requires approval: \`cat\` resolves to ${ws}/.venv/bin/cat, inside the workspace, ${means}`,
      proposedRule: null,
      bypassSandbox: false,
    });
    expect((await requirement(["bash", "-lc", "cat x | head -1"], venv)).reason).toBe(
      `\`bash -lc 'cat x | head -1'\` requires approval: \`cat\` resolves to ${ws}/.venv/bin/cat, inside the workspace, ${means}`,
    );
  });

  it("is not matched by allow rules, plain or sandbox none", async () => {
    const venv = lookup(`${ws}/.venv/bin:${SYSTEM}`);
    expect((await requirement(["cat", "x"], undefined, "untrusted", ALLOW_CAT)).type).toBe("skip");
    expect((await requirement(["cat", "x"], venv, "untrusted", ALLOW_CAT)).type).toBe("needs-approval");
    expect(await requirement(["cat", "x"], lookup(SYSTEM), "on-request", UNSANDBOXED)).toEqual({
      type: "skip",
      reason: null,
      proposedRule: null,
      bypassSandbox: true,
    });
    expect(await requirement(["cat", "x"], venv, "on-request", UNSANDBOXED)).toEqual({
      type: "skip",
      reason: null,
      proposedRule: null,
      bypassSandbox: false,
    });
  });

  it("still matches prompt and forbidden rules by name", async () => {
    const venv = lookup(`${ws}/.venv/bin:${SYSTEM}`);
    const forbid = 'prefix_rule(pattern = ["cat"], decision = "forbidden", justification = "no cat")';
    expect(await requirement(["cat", "x"], venv, "on-request", forbid)).toEqual({
      type: "forbidden",
      reason: "`cat x` rejected: no cat",
      proposedRule: null,
      bypassSandbox: false,
    });
    const ask = 'prefix_rule(pattern = ["cat"], decision = "prompt", justification = "ask first")';
    expect((await requirement(["bash", "-lc", "timeout 5 cat x"], venv, "on-request", ask)).reason).toBe(
      "`bash -lc 'timeout 5 cat x'` requires approval: ask first",
    );
  });

  it("counts a symlink in the workspace, even one to /bin/cat: the agent can retarget it", async () => {
    expect((await requirement(["cat", "x"], lookup(`${ws}/links:${SYSTEM}`))).reason).toBe(
      `\`cat x\` requires approval: \`cat\` resolves to ${ws}/links/cat, inside the workspace ` +
        `(a link to ${CAT}, which the agent can change), ${means}`,
    );
  });

  it("counts a link from outside that leads into the workspace, a file or a PATH directory", async () => {
    expect((await requirement(["cat", "x"], lookup(`${outside}/bin:${SYSTEM}`))).reason).toBe(
      `\`cat x\` requires approval: \`cat\` resolves to ${outside}/bin/cat, which leads to ${ws}/tools/cat, ` +
        `inside the workspace, ${means}`,
    );
    expect((await requirement(["cat", "x"], lookup(`${outside}/tools:${SYSTEM}`))).reason).toBe(
      `\`cat x\` requires approval: \`cat\` resolves to ${outside}/tools/cat, which leads to ${ws}/tools/cat, ` +
        `inside the workspace, ${means}`,
    );
    // A writable root given through a link is the same directory.
    const viaLink = lookup(`${ws}/bin:${SYSTEM}`, ws, [join(root, "ws-link")]);
    expect((await requirement(["cat", "x"], viaLink)).type).toBe("needs-approval");
  });

  it("counts a relative or empty PATH entry, wherever it points", async () => {
    expect((await requirement(["cat", "x"], lookup(`bin:${SYSTEM}`))).reason).toBe(
      `\`cat x\` requires approval: \`cat\` resolves to ${ws}/bin/cat through the relative PATH entry \`bin\`, ${means}`,
    );
    expect((await requirement(["cat", "x"], lookup(`:${SYSTEM}`))).reason).toBe(
      `\`cat x\` requires approval: \`cat\` resolves to ${ws}/cat through an empty PATH entry (the working ` +
        `directory), ${means}`,
    );
    // Relative to a working directory outside every writable root: still not the cat PATH means.
    const elsewhere = lookup(`bin:${SYSTEM}`, ws, [outside]);
    expect((await requirement(["cat", "x"], elsewhere)).type).toBe("needs-approval");
  });

  it("counts a program named by a path into the workspace", async () => {
    expect((await requirement(["./cat", "x"], lookup(SYSTEM))).reason).toBe(
      `\`./cat x\` requires approval: \`./cat\` is ${ws}/cat, inside the workspace, ${means}`,
    );
    expect(
      (await requirement([`${ws}/tools/cat`, "x"], lookup(SYSTEM), "on-request", UNSANDBOXED)).bypassSandbox,
    ).toBe(false);
    // After `cd`, a relative path names a file in a directory known only when the command runs.
    const result = await requirement(["bash", "-lc", "cd /tmp && ./cat x"], lookup(SYSTEM, outside, [ws]));
    expect(result.reason).toBe(
      "`bash -lc 'cd /tmp && ./cat x'` requires approval: `./cat` could not be resolved before it runs, so it " +
        "may not be the cat the rules and the known-safe list mean",
    );
  });
});

describe("every program the command line reaches is resolved", () => {
  const venv = (): ProgramLookup => lookup(`${ws}/.venv/bin:${SYSTEM}`);

  it.each([
    [["timeout", "5", "cat", "x"]],
    [["bash", "-lc", "timeout 5 cat x"]],
    [["bash", "-lc", "sh -c 'cat x'"]],
    [["bash", "-lc", "echo $(cat x)"]],
    [["bash", "-lc", "find . -name x -exec cat {} +"]],
    [["bash", "-lc", "ls | xargs cat"]],
    [["bash", "-lc", "env echo hi"]],
    [["echo", "hi"]],
  ])("%j", async (argv) => {
    const result = await requirement(argv, venv(), "on-request", UNSANDBOXED);
    expect(result.bypassSandbox).toBe(false);
    expect((await requirement(argv, venv(), "untrusted")).reason).toMatch(
      /resolves to .*\/\.venv\/bin\/(cat|echo)/,
    );
  });

  it("but not the shell's builtins, which PATH does not find", async () => {
    expect(await requirement(["bash", "-lc", "echo hi && command echo ok"], venv())).toEqual({
      type: "skip",
      reason: null,
      proposedRule: ["echo", "hi"],
      bypassSandbox: false,
    });
  });

  it("lifts the sandbox only when nothing written later could take a program's place", async () => {
    // ls is not in .venv/bin today, but the agent can put one there before it runs.
    expect((await requirement(["ls"], venv(), "untrusted")).type).toBe("skip");
    expect((await requirement(["ls"], venv(), "on-request", UNSANDBOXED)).bypassSandbox).toBe(false);
    expect((await requirement(["ls"], lookup(`:${SYSTEM}`), "on-request", UNSANDBOXED)).bypassSandbox).toBe(
      false,
    );
    expect((await requirement(["ls"], lookup(SYSTEM), "on-request", UNSANDBOXED)).bypassSandbox).toBe(true);
    expect(
      (await requirement(["bash", "-lc", "timeout 5 ls"], lookup(SYSTEM), "on-request", UNSANDBOXED))
        .bypassSandbox,
    ).toBe(true);
  });

  it("treats a PATH set by the command line as resolving nowhere known", async () => {
    const argv = ["bash", "-lc", "export PATH=/usr/bin:$PATH; cat x"];
    expect((await requirement(argv, lookup(SYSTEM))).reason).toBe(
      "`bash -lc 'export PATH=/usr/bin:$PATH; cat x'` requires approval: `cat` is looked up through a PATH the " +
        "command line sets, so it may not be the cat the rules and the known-safe list mean",
    );
    // Without a lookup, it still keeps the sandbox.
    const path = ["bash", "-lc", `PATH=${ws}/bin:$PATH cat x`];
    expect((await requirement(path, undefined, "on-request", UNSANDBOXED)).bypassSandbox).toBe(false);
    expect(
      (await requirement(["env", `PATH=${ws}/bin`, "cat"], undefined, "on-request", UNSANDBOXED))
        .bypassSandbox,
    ).toBe(false);
  });

  it("looks up a bounded number of programs", async () => {
    const names = Array.from({ length: 300 }, (_, index) => `p${index}`);
    const result = await requirement(["bash", "-lc", names.join("; ")], lookup(SYSTEM));
    expect(result.reason).toBe(
      "`bash -lc 'p0; p1; p2; p3; p4; p5; p6; p7; p8; p9; p10; p11; p12; p13; p14; p15; p16; p17; p18; p19; " +
        `${names.slice(20).join("; ")}'\` requires approval: \`p255\` could not be resolved before it runs, so ` +
        "it may not be the p255 the rules and the known-safe list mean",
    );
  });

  it("names the option and the value it received when the lookup is malformed", async () => {
    await expect(requirement(["ls"], { path: SYSTEM, cwd: "ws", writableRoots: [] })).rejects.toThrow(
      'programs.cwd: expected an absolute path, received "ws"',
    );
  });
});
