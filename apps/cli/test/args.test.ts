import { describe, expect, expectTypeOf, it } from "vitest";
import { parseArgs } from "../src/args.js";
import { UsageError } from "../src/errors.js";

const SPECS = {
  "timeout-ms": { type: "integer" },
  cwd: { type: "string" },
  rules: { type: "string", multiple: true },
  json: { type: "boolean" },
  help: { type: "boolean" },
} as const;

function parse(args: string[], stopAtPositional = false) {
  return parseArgs(args, SPECS, "test", stopAtPositional);
}

/** The message and command of the UsageError parsing `args` throws. */
function failure(args: string[], stopAtPositional = false): { message: string; command: string } {
  try {
    parse(args, stopAtPositional);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return { message: error.message, command: error.command };
  }
  throw new Error(`parsing ${JSON.stringify(args)} did not fail`);
}

describe("parseArgs", () => {
  it("types each option from its spec", () => {
    const { options, positionals } = parse([]);
    expectTypeOf(options.rules).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(options.cwd).toEqualTypeOf<string | undefined>();
    expectTypeOf(options["timeout-ms"]).toEqualTypeOf<number | undefined>();
    expectTypeOf(options.json).toEqualTypeOf<boolean | undefined>();
    expectTypeOf(positionals).toEqualTypeOf<string[]>();
    expect({ ...options }).toEqual({});
    expect(positionals).toEqual([]);
  });

  it("reads --name=value and --name value, integers, booleans and -h", () => {
    const { options, positionals } = parse(["--cwd=/a", "--timeout-ms", "250", "--json", "-h"]);
    expect({ ...options }).toEqual({ cwd: "/a", "timeout-ms": 250, json: true, help: true });
    expect(positionals).toEqual([]);
  });

  it("gives a null-prototype object, and no option of Object.prototype", () => {
    expect(Object.getPrototypeOf(parse(["--json"]).options)).toBe(null);
    expect(failure(["--constructor"]).message).toBe("unknown option --constructor");
  });

  it("collects a multiple option in order, and refuses any other given twice", () => {
    const { options } = parse(["--rules", "b.rules", "--cwd", "/x", "--rules=a.rules", "--json", "--json"]);
    expect({ ...options }).toEqual({ rules: ["b.rules", "a.rules"], cwd: "/x", json: true });
    // An appended value must not undo the first one silently.
    expect(failure(["--cwd", "/x", "--rules=a.rules", "--cwd=/y"])).toEqual({
      message: "--cwd given more than once: give it once",
      command: "test",
    });
    expect(failure(["--timeout-ms", "5", "--timeout-ms", "5"]).message).toBe(
      "--timeout-ms given more than once: give it once",
    );
  });

  it("takes the next argument as a value even when it starts with a dash", () => {
    expect({ ...parse(["--cwd", "-x"]).options }).toEqual({ cwd: "-x" });
    expect({ ...parse(["--cwd", "--"]).options }).toEqual({ cwd: "--" });
    expect({ ...parse(["--cwd", "-h"]).options }).toEqual({ cwd: "-h" });
  });

  it("reads options between positionals unless told to stop", () => {
    expect(parse(["a", "--json", "b", "-"])).toEqual({
      options: { json: true },
      positionals: ["a", "b", "-"],
    });
  });

  it("ends the options at --", () => {
    expect(parse(["--json", "--", "--cwd", "-la", "--"])).toEqual({
      options: { json: true },
      positionals: ["--cwd", "-la", "--"],
    });
    expect(parse(["--json", "--", "--cwd"], true)).toEqual({
      options: { json: true },
      positionals: ["--cwd"],
    });
  });

  it("stops at the first positional when told to, so the command keeps its own flags", () => {
    expect(parse(["ls", "-la"], true)).toEqual({ options: {}, positionals: ["ls", "-la"] });
    expect(parse(["--cwd", "/tmp", "--json", "ls", "--json", "--", "-x"], true)).toEqual({
      options: { cwd: "/tmp", json: true },
      positionals: ["ls", "--json", "--", "-x"],
    });
    // A value is not the first positional, even one that looks like an option.
    expect(parse(["--cwd", "-la", "ls", "--bogus"], true)).toEqual({
      options: { cwd: "-la" },
      positionals: ["ls", "--bogus"],
    });
    expect(parse(["--cwd=/tmp", "-", "-la"], true)).toEqual({
      options: { cwd: "/tmp" },
      positionals: ["-", "-la"],
    });
    expect(failure(["ls", "-la"]).message).toBe("unknown option -la");
  });

  it("refuses an unknown option, naming it without its value", () => {
    expect(failure(["--bogus"])).toEqual({ message: "unknown option --bogus", command: "test" });
    expect(failure(["--bogus=1", "--json"]).message).toBe("unknown option --bogus");
    expect(failure(["--bogus", "ls"], true).message).toBe("unknown option --bogus");
    expect(failure(["-x"]).message).toBe("unknown option -x");
    expect(failure(["-la"]).message).toBe("unknown option -la");
    expect(failure(["-h=1"]).message).toBe("unknown option -h");
    expect(failure(["---json"]).message).toBe("unknown option ---json");
    expect(failure(["--=x"]).message).toBe("unknown option --");
  });

  it("refuses -h where there is no --help", () => {
    expect(() => parseArgs(["-h"], { json: { type: "boolean" } }, "bare", false)).toThrow(
      new UsageError("unknown option -h", "bare"),
    );
  });

  it("refuses a value for a boolean", () => {
    expect(failure(["--json=yes"])).toEqual({ message: "--json takes no value", command: "test" });
    expect(failure(["--help="]).message).toBe("--help takes no value");
  });

  it("refuses a missing value", () => {
    expect(failure(["--cwd"])).toEqual({ message: "--cwd needs a value", command: "test" });
    expect(failure(["--rules", "a", "--rules"]).message).toBe("--rules needs a value");
    expect(failure(["--timeout-ms"], true).message).toBe("--timeout-ms needs a value");
  });

  it("refuses an empty value", () => {
    expect(failure(["--cwd="])).toEqual({ message: '--cwd: expected a value, received ""', command: "test" });
    expect(failure(["--cwd", ""]).message).toBe('--cwd: expected a value, received ""');
    expect(failure(["--timeout-ms="]).message).toBe('--timeout-ms: expected a value, received ""');
  });

  it("takes only a positive safe integer for an integer option", () => {
    expect({ ...parse(["--timeout-ms=007"]).options }).toEqual({ "timeout-ms": 7 });
    for (const raw of ["0", "-1", "1.5", "1e3", " 1", "abc", "9007199254740992"]) {
      expect(failure([`--timeout-ms=${raw}`])).toEqual({
        message: `--timeout-ms: expected a positive integer, received ${JSON.stringify(raw)}`,
        command: "test",
      });
    }
    expect({ ...parse(["--timeout-ms", "9007199254740991"]).options }).toEqual({
      "timeout-ms": 9007199254740991,
    });
  });

  it("reports the first mistake from the left", () => {
    expect(failure(["--timeout-ms=0", "--bogus"]).message).toBe(
      '--timeout-ms: expected a positive integer, received "0"',
    );
    expect(failure(["--bogus", "--timeout-ms=0"]).message).toBe("unknown option --bogus");
    expect(failure(["--json=1", "--cwd"]).message).toBe("--json takes no value");
  });
});
