import { describe, expect, it } from "vitest";
import { analyze, isKnownSafeCommand, reachableCommands } from "../src/index.js";

// A script zsh runs (`zsh -lc SCRIPT`, the shape every command has for a user whose login shell is zsh)
// is read as zsh reads it where that differs from bash. Classification only: nothing here runs.

const reasons = async (script: string, zsh: boolean): Promise<string[]> =>
  (await analyze(script, { zsh })).opaque.map((part) => `${part.reason} ${part.text}`);

describe("zsh reads these scripts otherwise than bash", () => {
  it.each<[script: string, bash: string[], zsh: string[]]>([
    // `=rm` is the path of rm (EQUALS): read as rm in command position, not literal elsewhere.
    ["=rm f", [], ["zsh-syntax =rm"]],
    ["sudo =rm f", [], ["zsh-syntax =rm"]],
    ["echo ====", [], ["zsh-syntax ===="]],
    // zsh's reserved words.
    ["repeat 2 rm f", [], ["zsh-syntax repeat"]],
    ["time repeat 2 rm f", [], ["zsh-syntax time repeat 2 rm f"]],
    ["end", [], ["zsh-syntax end"]],
    ["always", [], ["zsh-syntax always"]],
    // Redirections with no command run $NULLCMD (cat) or $READNULLCMD (a pager).
    ["> f", [], ["zsh-syntax > f"]],
    ["< f", [], ["zsh-syntax < f"]],
    // `>!` clobbers f for zsh; bash writes a file named `!`, with f an argument of echo.
    ["echo a >! f", [], ["zsh-syntax >! f"]],
    ["echo a >>! f", [], ["zsh-syntax >>! f"]],
    // An unbraced expansion followed by `[` is subscripted (and the subscript evaluated); `${x}[1]` is not.
    [
      "echo $x[1]",
      ["parameter-expansion $x", "glob $x[1]"],
      ["parameter-expansion $x", "zsh-syntax $x[1]", "glob $x[1]"],
    ],
    ['echo "$x[i]"', ["parameter-expansion $x"], ["parameter-expansion $x", "zsh-syntax $x[i]"]],
    [
      "echo ${x}[1]",
      ["parameter-expansion ${x}", "glob ${x}[1]"],
      ["parameter-expansion ${x}", "glob ${x}[1]"],
    ],
  ])("%j: bash %j, zsh %j", async (script, bash, zsh) => {
    expect(await reasons(script, false)).toEqual(bash);
    expect(await reasons(script, true)).toEqual(zsh);
  });

  it("reads the command name of `=rm f` as rm, so rules see it", async () => {
    expect((await analyze("=rm f", { zsh: true })).commands.map((command) => command.argv)).toEqual([
      ["rm", "f"],
    ]);
    expect((await analyze("=rm f")).commands.map((command) => command.argv)).toEqual([["=rm", "f"]]);
    const reach = await reachableCommands(["zsh", "-lc", "=rm f"]);
    expect(reach.commands.map((command) => command.argv)).toContainEqual(["rm", "f"]);
    expect(reach.unread).toEqual([{ reason: "zsh-syntax", text: "=rm" }]);
  });

  it("decodes $'…' as zsh does: an unknown escape loses its backslash", async () => {
    const argv = async (zsh: boolean) =>
      (await analyze("$'r\\m' f", { zsh })).commands.map((command) => command.argv);
    expect(await argv(false)).toEqual([["r\\m", "f"]]);
    expect(await argv(true)).toEqual([["rm", "f"]]);
    const reach = await reachableCommands(["zsh", "-lc", "$'r\\m' f"]);
    expect(reach.commands.map((command) => command.argv)).toContainEqual(["rm", "f"]);
  });

  it("keeps the two readings apart in its cache", async () => {
    expect((await analyze("repeat 3 ls")).opaque).toEqual([]);
    expect((await analyze("repeat 3 ls", { zsh: true })).opaque).toEqual([
      { reason: "zsh-syntax", text: "repeat" },
    ]);
    expect((await analyze("repeat 3 ls")).opaque).toEqual([]);
  });

  it("reads a nested script as the shell that runs it", async () => {
    const nested = async (script: string) => (await analyze(script)).commands[0]?.nested?.opaque;
    expect(await nested("zsh -c '=rm f'")).toEqual([{ reason: "zsh-syntax", text: "=rm" }]);
    expect(await nested("/usr/bin/zsh -lc '=rm f'")).toEqual([{ reason: "zsh-syntax", text: "=rm" }]);
    expect(await nested("bash -c '=rm f'")).toEqual([]);
    // A bash script inside a zsh one is read as bash.
    expect((await analyze("bash -c '=rm f'", { zsh: true })).opaque).toEqual([]);
  });
});

describe("zsh-only syntax tree-sitter-bash cannot parse is a parse error", () => {
  it.each([
    "for x (a b) rm x",
    "rm f &!",
    "rm f &|",
    "ls *(e:rm:)",
    "ls *(.)",
    "cat =(ls)",
    "() { rm f }",
    "echo ${(e)x}",
    "$=x f",
    "if [[ -f x ]] { rm x }",
    "foreach x (a b)\nrm $x\nend",
    "{ rm f } always { ls }",
  ])("%j", async (script) => {
    expect((await analyze(script, { zsh: true })).opaque.map((part) => part.reason)).toContain("parse-error");
    expect(await isKnownSafeCommand(["zsh", "-lc", script])).toBe(false);
  });
});

describe("no dangerous zsh reading is known safe", () => {
  const shells = ["zsh", "/bin/zsh", "/usr/bin/zsh"];
  it.each([
    "=rm f",
    "=ls",
    "repeat 2 rm f",
    "repeat 2 ls",
    "time repeat 2 ls",
    "> f",
    "< f",
    "ls >! f",
    "ls >>! f",
    "echo $x[1]",
    'echo "$x[$(rm f)]"',
    "ls *(e:rm:)",
    "ls foo(N)",
    "cat =(ls)",
    "echo ${ rm f; }",
    "echo ${| rm f; }",
  ])("%j", async (script) => {
    for (const shell of shells) {
      for (const flag of ["-c", "-lc"]) {
        expect(await isKnownSafeCommand([shell, flag, script]), `${shell} ${flag}`).toBe(false);
      }
    }
  });

  it("still knows plain read-only zsh scripts", async () => {
    expect(await isKnownSafeCommand(["zsh", "-lc", "ls -la && cat package.json"])).toBe(true);
    expect(await isKnownSafeCommand(["/bin/zsh", "-c", "echo a\\(b"])).toBe(true);
  });

  it("lists what zsh reads otherwise as unread, for every dangerous variant", async () => {
    for (const script of ["=rm f", "repeat 2 rm f", "> f", "ls >! f", "echo $x[1]"]) {
      const reach = await reachableCommands(["zsh", "-lc", script]);
      expect(
        reach.unread.map((part) => part.reason),
        script,
      ).toContain("zsh-syntax");
      const bash = await reachableCommands(["bash", "-lc", script]);
      expect(
        bash.unread.map((part) => part.reason),
        script,
      ).not.toContain("zsh-syntax");
    }
  });
});

describe("function substitutions and prompt expansion", () => {
  it.each([
    ["echo ${ rm -rf x; }", ["rm", "-rf", "x"]],
    ["echo ${| rm x; }", ["rm", "x"]],
    ['echo "${ rm x; }"', ["rm", "x"]],
    ["[[ ${ rm x; } ]]", ["rm", "x"]],
  ])("%j runs its commands, and they are reached", async (script, inner) => {
    for (const shell of ["bash", "zsh"]) {
      const reach = await reachableCommands([shell, "-lc", script]);
      expect(reach.commands.map((command) => command.argv)).toContainEqual(inner);
      expect(reach.unread.map((part) => part.reason)).toContain("parse-error");
      expect(await isKnownSafeCommand([shell, "-lc", script])).toBe(false);
    }
  });

  it("never reads ${x@P} or ${x@E} as literal", async () => {
    for (const script of ["echo ${x@P}", 'echo "${x@E}"']) {
      const analysis = await analyze(script);
      expect(analysis.commands[0]?.dynamic).toEqual([1]);
      expect(await isKnownSafeCommand(["bash", "-lc", script])).toBe(false);
    }
    // @P expands the prompt escapes of the value and runs its substitutions: text evaluated as code.
    expect((await reachableCommands(["bash", "-lc", "echo ${x@P}"])).unread).toEqual([
      { reason: "dynamic-script", text: "${x@P}" },
    ]);
  });
});
