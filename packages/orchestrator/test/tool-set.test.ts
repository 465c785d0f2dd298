// The tool surfaces: schemas a model or MCP client can rely on, and arguments that are wrong in any way
// coming back as clear results, never as a throw and never as a spawn.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExecRequest, run } from "@conch/exec-core";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import { createToolSet, type ToolSet } from "../src/tools/tool-set.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
const spawned: ExecRequest[] = [];

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-tools-")));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

type Profile = "codex" | "bash" | "argv" | "terminal";

async function toolSet(profile: Profile): Promise<ToolSet> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "never",
    sandbox: { mode: "danger-full-access" },
    execute: (request, options) => {
      spawned.push(request);
      return run(request, options);
    },
  });
  return checkedToolSet({ profile, orchestrator });
}

const PROFILES = ["codex", "bash", "argv", "terminal"] as const;

// A valid call for each tool, so the fuzz starts from something real.
const VALID: Record<string, Record<string, unknown>> = {
  "codex/shell_command": { command: "echo hi", workdir: ".", timeout_ms: 5000, login: false },
  "codex/shell": { command: ["echo", "hi"], workdir: ".", timeout_ms: 5000 },
  "codex/exec_command": {
    cmd: "echo hi",
    workdir: ".",
    tty: false,
    yield_time_ms: 500,
    max_output_tokens: 100,
  },
  "codex/write_stdin": { session_id: 1234, chars: "", yield_time_ms: 250, max_output_tokens: 100 },
  "codex/list_sessions": {},
  "terminal/terminal_open": { command: "echo hi", cwd: ".", tty: false },
  "terminal/terminal_write": { id: 1234, input: "ls\n" },
  "terminal/terminal_read": { id: 1234, wait_ms: 100 },
  "terminal/terminal_signal": { id: 1234, signal: "INT" },
  "terminal/terminal_close": { id: 1234 },
  "terminal/terminal_list": {},
  "bash/bash": { command: "echo hi", description: "Print a greeting", timeout_ms: 5000 },
  "argv/shell": { argv: ["echo", "hi"], cwd: ".", timeout_seconds: 5 },
};

function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

const WRONG_VALUES: readonly unknown[] = [
  null,
  42,
  -1,
  0,
  1.5,
  1e20,
  Number.NaN,
  true,
  "",
  "text",
  [],
  [1, 2],
  [""],
  {},
  { nested: true },
];

/** Arguments that must be rejected: every case is checked invalid by the JSON Schema too. */
function malformed(valid: Record<string, unknown>, random: () => number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const keys = Object.keys(valid);
  switch (Math.floor(random() * 5)) {
    case 0:
      return pick([null, 7, "a string", [], [valid], true]);
    case 1: {
      const copy: Record<string, unknown> = { ...valid };
      delete copy[keys[0] as string];
      return copy;
    }
    case 2:
      return {
        ...valid,
        [pick(["foo", "cmd", "cwd_", "timeout", "__proto_", "Command"])]: pick(WRONG_VALUES),
      };
    default:
      return { ...valid, [pick(keys)]: pick(WRONG_VALUES) };
  }
}

describe("tool schemas", () => {
  const ajv = new Ajv2020({ strict: false });

  for (const profile of PROFILES) {
    it(`${profile}: every tool's JSON Schema is valid, and it agrees with zod and round-trips through it`, async () => {
      const set = await toolSet(profile);
      for (const tool of set.tools) {
        expect(ajv.validateSchema(tool.jsonSchema), `${profile}/${tool.name}`).toBe(true);
        expect(tool.jsonSchema).toMatchObject({ type: "object", additionalProperties: false });
        const validate = ajv.compile(tool.jsonSchema);
        const roundTripped = z.fromJSONSchema(tool.jsonSchema as Parameters<typeof z.fromJSONSchema>[0]);
        const valid = VALID[`${profile}/${tool.name}`] as Record<string, unknown>;
        const random = rng(11);
        const cases = [valid, ...Array.from({ length: 300 }, () => malformed(valid, random))];
        for (const input of cases) {
          const verdict = tool.inputSchema.safeParse(input).success;
          expect(validate(input), JSON.stringify(input)).toBe(verdict);
          expect(roundTripped.safeParse(input).success, JSON.stringify(input)).toBe(verdict);
        }
      }
    });
  }

  it("the profiles' tool names", async () => {
    const names = await Promise.all(PROFILES.map(async (p) => (await toolSet(p)).tools.map((t) => t.name)));
    expect(names).toEqual([
      ["shell_command", "exec_command", "write_stdin", "shell", "list_sessions"],
      ["bash"],
      ["shell"],
      [
        "terminal_open",
        "terminal_write",
        "terminal_read",
        "terminal_signal",
        "terminal_close",
        "terminal_list",
      ],
    ]);
  });
});

describe("bad input", () => {
  for (const [key, valid] of Object.entries(VALID)) {
    const [profile, name] = key.split("/") as [Profile, string];
    it(`${key}: 1,000 malformed argument objects give 1,000 clear error results, no throw, no spawn`, async () => {
      const set = await toolSet(profile);
      const tool = set.tools.find((t) => t.name === name);
      const fields = Object.keys(tool?.inputSchema.shape ?? {});
      const random = rng(name.length * 31 + profile.length);
      const before = spawned.length;
      let checked = 0;
      while (checked < 1000) {
        const args = malformed(valid, random);
        if (tool?.inputSchema.safeParse(args).success) continue;
        const asJson = random() < 0.2;
        const result = await set.call(name, asJson ? JSON.stringify(args) : args);
        expect(result.result, JSON.stringify(args)).toMatchObject({
          tool: name,
          status: "invalid",
          exit_code: null,
        });
        checked++;
        // A string is taken as JSON text (what a CLI passes); "a string" is not JSON.
        if (typeof args === "string" && !asJson) {
          expect(result.text).toBe(`${name}: the arguments are not valid JSON: ${jsonError(args)}`);
          continue;
        }
        expect(result.text.startsWith(`${name}: invalid arguments: `), result.text).toBe(true);
        const named = result.text.slice(`${name}: invalid arguments: `.length);
        expect(
          fields.some((field) => named.startsWith(field)) || named.startsWith("arguments: "),
          result.text,
        ).toBe(true);
        expect(result.text).toMatch(/expected|required|unknown field/);
      }
      expect(spawned.length).toBe(before);
    });
  }

  it("says exactly what is wrong", async () => {
    const set = await toolSet("codex");
    const texts = await Promise.all([
      set.call("nope", {}),
      set.call("shell_command", "{not json"),
      set.call("shell_command", { command: "ls", timeout_ms: 1.5 }),
      set.call("shell_command", {}),
      set.call("shell_command", { command: "ls", foo: 1 }),
      set.call("shell_command", { command: "ls", sandbox_permissions: "sudo" }),
      set.call("shell", { command: ["ls", 3] }),
      set.call("shell_command", []),
      set.call("shell_command", { command: "ls", timeout_ms: 1e20 }),
    ]);
    expect(texts.map((t) => t.text)).toEqual([
      'unknown tool "nope": the codex profile has shell_command, exec_command, write_stdin, shell, list_sessions',
      `shell_command: the arguments are not valid JSON: ${jsonError("{not json")}`,
      "shell_command: invalid arguments: timeout_ms: expected an integer, received 1.5",
      "shell_command: invalid arguments: command: required: expected a string",
      'shell_command: invalid arguments: arguments: unknown field "foo" (expected only: command, workdir, timeout_ms, login, sandbox_permissions, justification, prefix_rule, wait_for_approval_ms)',
      'shell_command: invalid arguments: sandbox_permissions: expected one of "use_default", "require_escalated", received "sudo"',
      "shell: invalid arguments: command[1]: expected a string, received 3",
      "shell_command: invalid arguments: arguments: expected an object, received an empty array",
      "shell_command: invalid arguments: timeout_ms: expected a number <= 2147483647, received 100000000000000000000",
    ]);
    expect(texts.every((t) => t.result.status === "invalid")).toBe(true);
  });

  it("a missing workdir is named, and nothing is left running", async () => {
    const set = await toolSet("codex");
    const result = await set.call("shell_command", { command: "ls", workdir: "no/such/dir" });
    expect(result.text).toBe(`shell_command: workdir: no such directory: ${join(work, "no/such/dir")}`);
    expect(result.result).toMatchObject({ status: "failed", error_code: "CWD_NOT_FOUND" });
  });

  it("an unknown profile is a clear error", async () => {
    const orchestrator = new ToolOrchestrator({
      cwd: work,
      approvalPolicy: "never",
      sandbox: { mode: "read-only" },
    });
    await expect(createToolSet({ profile: "zsh" as Profile, orchestrator })).rejects.toThrow(
      'tool profile: expected one of codex, bash, terminal, argv, received "zsh"',
    );
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}
