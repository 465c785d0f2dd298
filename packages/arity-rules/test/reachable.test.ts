import { describe, expect, it } from "vitest";
import { reachableCommands } from "../src/index.js";

// Classification only: nothing here runs.
describe("reachableCommands", () => {
  it.each([
    [["timeout", "5", "rm", "x"], [["rm", "x"]]],
    [["sudo", "-u", "root", "env", "A=1", "rm", "x"], [["rm", "x"]]],
    [
      ["bash", "-lc", "echo $(rm x) && find . -exec rm {} +"],
      [
        ["bash", "-lc", "echo $(rm x) && find . -exec rm {} +"],
        ["echo", "$(rm x)"],
        ["find", ".", "-exec", "rm", "{}", "+"],
        ["rm", "{}"],
        ["rm", "x"],
      ],
    ],
    [
      ["bash", "-lc", "eval 'git push' ; trap 'rm y' EXIT"],
      [
        ["bash", "-lc", "eval 'git push' ; trap 'rm y' EXIT"],
        ["eval", "git push"],
        ["git", "push"],
        ["trap", "rm y", "EXIT"],
        ["rm", "y"],
      ],
    ],
  ])("%j reaches %j", async (argv, expected) => {
    expect(await reachableCommands(argv)).toEqual(expected);
  });
});
