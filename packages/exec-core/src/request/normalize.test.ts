import { ExecRequestSchema } from "@conch/protocol/schemas";
import { describe, expect, it } from "vitest";
import { isExecError } from "../errors.js";
import { normalizeRequest } from "./normalize.js";

// The hand-written checks (kept free of zod for start-up time) must accept and reject exactly what the
// protocol's schema does, naming a field the schema also names.
const CASES: unknown[] = [
  { argv: ["ls"], cwd: "/" },
  { argv: ["ls", "-l"], cwd: "/", timeoutMs: 1, killGraceMs: 0, drainTimeoutMs: 0, maxOutputBytes: 2 },
  { argv: ["ls"], cwd: "/", env: { inherit: "core", exclude: ["A*"], set: { A: "1" } } },
  { argv: [], cwd: "/" },
  { argv: "ls", cwd: "/" },
  { argv: ["ls", 1], cwd: "/" },
  { argv: ["ls"] },
  { argv: ["ls"], cwd: "" },
  { argv: ["ls"], cwd: 7 },
  { argv: ["ls"], cwd: "/", timeoutMs: 0 },
  { argv: ["ls"], cwd: "/", timeoutMs: -1 },
  { argv: ["ls"], cwd: "/", timeoutMs: 1.5 },
  { argv: ["ls"], cwd: "/", timeoutMs: "10" },
  { argv: ["ls"], cwd: "/", killGraceMs: -1 },
  { argv: ["ls"], cwd: "/", drainTimeoutMs: -1 },
  { argv: ["ls"], cwd: "/", maxOutputBytes: 1 },
  { argv: ["ls"], cwd: "/", maxOutputBytes: 1024 ** 3 },
  { argv: ["ls"], cwd: "/", maxOutputBytes: 1024 ** 3 + 1 },
  {
    argv: ["ls"],
    cwd: "/",
    timeoutMs: 2_147_483_647,
    killGraceMs: 2_147_483_647,
    drainTimeoutMs: 2_147_483_647,
  },
  { argv: ["ls"], cwd: "/", timeoutMs: 2_147_483_648 },
  { argv: ["ls"], cwd: "/", killGraceMs: 2_147_483_648 },
  { argv: ["ls"], cwd: "/", drainTimeoutMs: 2 ** 53 },
  { argv: ["ls"], cwd: "/", env: { inherit: "some" } },
  { argv: ["ls"], cwd: "/", env: { exclude: "A" } },
  { argv: ["ls"], cwd: "/", env: { exclude: [1] } },
  { argv: ["ls"], cwd: "/", env: { set: { A: 1 } } },
  { argv: ["ls"], cwd: "/", env: { other: 1 } },
  { argv: ["ls"], cwd: "/", env: [] },
  { argv: ["ls"], cwd: "/", extra: 1 },
  null,
  "ls",
];

function fieldOf(message: string): string {
  return /^invalid request: ([^:]+):/.exec(message)?.[1] ?? "";
}

function zodPaths(input: unknown): string[] {
  const parsed = ExecRequestSchema.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((issue) => {
    const path = issue.path.map((p, i) =>
      typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`,
    );
    const keys =
      issue.code === "unrecognized_keys"
        ? issue.keys.map((k) => [...path, path.length ? `.${k}` : k].join(""))
        : [];
    return [path.join(""), ...keys];
  });
}

describe("normalizeRequest agrees with ExecRequestSchema", () => {
  for (const input of CASES) {
    it(`on ${JSON.stringify(input)}`, () => {
      const schemaAccepts = ExecRequestSchema.safeParse(input).success;
      let error: unknown;
      try {
        normalizeRequest(input, {});
      } catch (e) {
        error = e;
      }
      expect(error === undefined).toBe(schemaAccepts);
      if (error === undefined) return;
      expect(isExecError(error)).toBe(true);
      const field = fieldOf((error as Error).message);
      const paths = zodPaths(input);
      expect(paths).toContain(field === "request" ? "" : field);
    });
  }
});

describe("normalizeRequest", () => {
  it("applies the defaults and builds the environment", () => {
    const req = normalizeRequest({ argv: ["ls"], cwd: "/", env: { inherit: "none" } }, { PATH: "/bin" });
    expect(req).toMatchObject({
      argv: ["ls"],
      cwd: "/",
      timeoutMs: undefined,
      killGraceMs: 500,
      drainTimeoutMs: 2000,
    });
    expect(req.maxOutputBytes).toBe(1024 * 1024);
    expect(req.env.PATH).toBeUndefined();
    expect(req.env.CONCH).toBe("1");
  });

  it("rejects NUL bytes in arguments", () => {
    expect(() => normalizeRequest({ argv: ["ls", "a\0b"], cwd: "/" }, {})).toThrow(
      'invalid request: argv[1]: expected a string without NUL bytes, received "a\\u0000b"',
    );
  });
});
