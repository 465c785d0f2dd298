// The danger match, the reachable-command list and the known-safe proof are visitors of one walk
// (src/safety/walk.ts): what one of them finds, the others reached too. Classification only: nothing runs.
import { describe, expect, it } from "vitest";
import { dangerousCommandMatch, isKnownSafeCommand, reachableCommands } from "../src/index.js";

// Dangerous commands reached by every kind of nesting the walk reads.
const NESTED_DANGER: readonly (readonly string[])[] = [
  ["rm", "-rf", "x"],
  ["sudo", "timeout", "5", "rm", "-fr", "x"],
  ["bash", "-lc", "ls && git reset --hard"],
  ["sh", "-ec", "echo $(git clean -fdx)"],
  ["bash", "-c", "trap 'rm -rf x' EXIT"],
  ["bash", "-c", 'eval "rm -rf x"'],
  ["find", ".", "-name", "*.o", "-exec", "rm", "-f", "{}", ";"],
  ["git", "-c", "alias.wipe=!rm -rf x", "wipe"],
  ["git", "-c", "alias.up=push --force", "up"],
  ["git", "rebase", "--exec", "rm -rf x", "main"],
  ["xargs", "rm", "-f"],
  ["env", "-S", "rm -rf x"],
  ["bash", "-c", "test -v 'a[$(rm -rf x)]'"],
  ["watch", "rm -rf x"],
  ["tar", "--to-command=rm -rf x", "-xf", "a.tar"],
  ["git-push", "--force", "origin", "main"],
  ["zsh", "-c", "for f in *; do rm -f $f; done"],
  ["bash", "-c", "bash -c 'bash -c \"dd if=/dev/zero of=/dev/sda\"'"],
];

describe("one walk, three readings", () => {
  it.each(NESTED_DANGER)(
    "what the danger match finds in %j is among the commands reached",
    async (...argv) => {
      const match = await dangerousCommandMatch(argv);
      expect(match).not.toBeNull();
      const reach = await reachableCommands(argv);
      expect(reach.commands.map((command) => command.argv)).toContainEqual(match?.argv);
      expect(await isKnownSafeCommand(argv)).toBe(false);
    },
  );

  it.each([
    ["ls", "-la"],
    ["timeout", "5", "bash", "-lc", "ls && cat README.md | wc -l"],
    ["bash", "-c", "pwd && head -n 3 README.md 2>/dev/null"],
  ])("a known-safe line %j is not dangerous and leaves nothing unread", async (...argv) => {
    expect(await isKnownSafeCommand(argv)).toBe(true);
    expect(await dangerousCommandMatch(argv)).toBeNull();
    expect((await reachableCommands(argv)).unread).toEqual([]);
  });

  it("proves a script only as the shell reads it: a double-quoted script word is not unquoted", async () => {
    // bash runs `"ls;pwd"` as one command named `ls;pwd`; the walk also reads it unquoted for the danger
    // match (where reading more only finds more), so the proof does not follow it there.
    expect(await isKnownSafeCommand(["bash", "-c", '"ls;pwd"'])).toBe(false);
    expect(await isKnownSafeCommand(["bash", "-c", "ls;pwd"])).toBe(true);
    expect(await dangerousCommandMatch(["bash", "-c", '"ls;rm -rf x"'])).not.toBeNull();
  });

  it("proves nothing behind a runner that is not a wrapper, although the walk looks through it", async () => {
    expect(await isKnownSafeCommand(["sudo", "bash", "-c", "ls"])).toBe(false);
    expect(await isKnownSafeCommand(["env", "bash", "-c", "ls"])).toBe(false);
    expect(
      (await reachableCommands(["sudo", "bash", "-c", "ls"])).commands.map((c) => c.argv),
    ).toContainEqual(["ls"]);
  });
});
