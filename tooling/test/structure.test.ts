import { describe, expect, it } from "vitest";
import { folderCycles, longFiles, MAX_SOURCE_LINES } from "../scripts/structure.mjs";

const file = (path: string, ...imports: string[]) => ({
  path,
  text: imports.map((spec) => `import { x } from "${spec}";\n`).join(""),
});

describe("folderCycles", () => {
  it("finds folders of src/ that import each other, through any number of folders", () => {
    const files = [
      file("a/one.ts", "../b/two.js"),
      file("b/two.ts", "../c/three.js"),
      file("c/three.ts", "../a/one.js"),
      file("d/four.ts", "../a/one.js"),
    ];
    expect(folderCycles(files)).toEqual([["a", "b", "c"]]);
  });

  it("counts type-only imports and re-exports, not the files at src/'s root nor tests", () => {
    expect(
      folderCycles([
        { path: "a/one.ts", text: 'import type { T } from "../b/two.js";\n' },
        { path: "b/two.ts", text: 'export { y } from "../a/one.js";\n' },
      ]),
    ).toEqual([["a", "b"]]);
    expect(
      folderCycles([
        file("index.ts", "./a/one.js"),
        file("a/one.ts", "../errors.js", "../index.js"),
        file("a/one.test.ts", "../b/two.js"),
        file("b/two.ts", "../a/one.js"),
      ]),
    ).toEqual([]);
  });
});

describe("longFiles", () => {
  it(`names source files over ${MAX_SOURCE_LINES} lines, tests aside`, () => {
    const lines = (n: number) => "x\n".repeat(n);
    expect(
      longFiles([
        { path: "src/ok.ts", text: lines(MAX_SOURCE_LINES) },
        { path: "src/long.ts", text: lines(MAX_SOURCE_LINES + 1) },
        { path: "src/long.test.ts", text: lines(2000) },
        { path: "test/helpers.ts", text: lines(2000) },
      ]),
    ).toEqual([{ path: "src/long.ts", lines: MAX_SOURCE_LINES + 1 }]);
  });
});
