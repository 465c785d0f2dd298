import { describe, expect, it } from "vitest";
import { compareHashes, taskHashes } from "../scripts/turbo-inputs.mjs";

const dry = (hashes: Record<string, string>) =>
  taskHashes({
    tasks: Object.entries(hashes).map(([taskId, hash]) => ({
      taskId,
      task: taskId.slice(taskId.indexOf("#") + 1),
      hash,
    })),
  });

const before = dry({ "@conch/a#build": "b1", "@conch/a#test": "t1", "@conch/b#test": "u1" });

describe("compareHashes", () => {
  it("passes when exactly the tasks that must change do, and counts them", () => {
    const after = dry({ "@conch/a#build": "b1", "@conch/a#test": "t2", "@conch/b#test": "u2" });
    expect(
      compareHashes(
        { edit: "e", expect: (_id, task) => (task === "test" ? "change" : "keep") },
        before,
        after,
      ),
    ).toEqual({ changed: 2, problems: [] });
  });

  it("names a task that kept its hash though the edit feeds it: a stale result", () => {
    const after = dry({ "@conch/a#build": "b1", "@conch/a#test": "t1", "@conch/b#test": "u2" });
    expect(compareHashes({ edit: "tsconfig.base.json", expect: () => "change" }, before, after)).toEqual({
      changed: 1,
      problems: [
        "tsconfig.base.json: @conch/a#build kept its hash, so turbo would replay a stale result",
        "tsconfig.base.json: @conch/a#test kept its hash, so turbo would replay a stale result",
      ],
    });
  });

  it("names a task whose hash moved though it must not, and leaves 'either' alone", () => {
    const after = dry({ "@conch/a#build": "b2", "@conch/a#test": "t2", "@conch/b#test": "u1" });
    expect(
      compareHashes(
        { edit: "docs", expect: (id) => (id === "@conch/a#build" ? "either" : "keep") },
        before,
        after,
      ),
    ).toEqual({
      changed: 2,
      problems: ["docs: @conch/a#test changed its hash, but the edit is not among its inputs"],
    });
  });

  it("names tasks that appear or vanish", () => {
    const after = dry({ "@conch/a#build": "b1", "@conch/a#test": "t1", "@conch/c#test": "v1" });
    expect(compareHashes({ edit: "e", expect: () => "either" }, before, after).problems).toEqual([
      "e: @conch/b#test is gone from the task graph",
      "e: @conch/c#test appeared in the task graph",
    ]);
  });
});
