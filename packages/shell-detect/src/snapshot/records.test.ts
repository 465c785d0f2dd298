import { describe, expect, it } from "vitest";
import { parseCaptureOutput } from "./records.js";

function output(...fields: string[]): Buffer {
  return Buffer.from(fields.map((field) => `${field}\0`).join(""), "latin1");
}

describe("parseCaptureOutput", () => {
  it("reads every kind of record", () => {
    const records = parseCaptureOutput(
      output(
        "conch-snapshot",
        "options",
        "shopt -s extglob\n",
        "env",
        "A=1",
        "env",
        "MULTI=x=y\nz",
        "function",
        "greet",
        "greet () \n{ \n    echo hi\n}\n",
        "fpath",
        "/usr/share/zsh/functions",
        "zdotdir",
        "",
        "histfile",
        "/home/u/.local/state/zsh/history",
        "aliases",
        "alias hi='echo hi'\n",
        "end",
      ),
    );
    expect(records).toEqual({
      options: "shopt -s extglob\n",
      env: [
        { name: "A", value: "1" },
        { name: "MULTI", value: "x=y\nz" },
      ],
      functions: [{ name: "greet", body: "greet () \n{ \n    echo hi\n}\n" }],
      fpath: ["/usr/share/zsh/functions"],
      zdotdir: undefined,
      histfile: "/home/u/.local/state/zsh/history",
      aliases: "alias hi='echo hi'\n",
    });
  });

  it("keeps bytes that are not UTF-8 as they are", () => {
    const bytes = Buffer.concat([
      Buffer.from("conch-snapshot\0env\0BIN="),
      Buffer.from([0xff, 0xfe]),
      Buffer.from("\0end\0"),
    ]);
    const value = parseCaptureOutput(bytes)?.env[0]?.value ?? "";
    expect(Buffer.from(value, "latin1")).toEqual(Buffer.from([0xff, 0xfe]));
  });

  it.each([
    ["nothing", Buffer.alloc(0)],
    ["no header", output("env", "A=1", "end")],
    ["no end: the script was cut short", output("conch-snapshot", "env", "A=1")],
    ["a record missing its fields", output("conch-snapshot", "function", "greet", "end")],
    ["an unknown record", output("conch-snapshot", "surprise", "x", "end")],
    ["a variable without a value", output("conch-snapshot", "env", "NOVALUE", "end")],
    ["no NUL after end", Buffer.from("conch-snapshot\0end")],
  ])("rejects %s", (_, bytes) => {
    expect(parseCaptureOutput(bytes)).toBeUndefined();
  });
});
