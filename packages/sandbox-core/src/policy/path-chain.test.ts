import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathChain } from "./path-chain.js";

let base: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync("/var/tmp/conch-path-chain-"));
  mkdirSync(join(base, "a", "b"), { recursive: true });
  writeFileSync(join(base, "a", "b", "f"), "");
  symlinkSync("a/b", join(base, "rel"));
  symlinkSync(join(base, "a"), join(base, "a", "b", "abs"));
  symlinkSync("loop2", join(base, "loop1"));
  symlinkSync("loop1", join(base, "loop2"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("pathChain", () => {
  it("a path without links is its own target", () => {
    expect(pathChain(join(base, "a", "b", "f"))).toEqual([
      { path: join(base, "a", "b", "f"), why: "target" },
    ]);
  });

  it("each link on the way names the directory that holds it, then the target", () => {
    expect(pathChain(join(base, "rel", "abs", "b", "f"))).toEqual([
      { path: base, why: "link" },
      { path: join(base, "a", "b"), why: "link" },
      { path: join(base, "a", "b", "f"), why: "target" },
    ]);
  });

  it("`..` after a link is the link target's parent, as the kernel resolves it", () => {
    expect(pathChain(`${base}/rel/../b/f`)).toEqual([
      { path: base, why: "link" },
      { path: join(base, "a", "b", "f"), why: "target" },
    ]);
  });

  it("a missing path names the deepest directory that exists", () => {
    expect(pathChain(join(base, "a", "x", "y"))).toEqual([{ path: join(base, "a"), why: "missing" }]);
    expect(pathChain(join(base, "rel", "x"))).toEqual([
      { path: base, why: "link" },
      { path: join(base, "a", "b"), why: "missing" },
    ]);
  });

  it("a loop of links ends as the kernel's ELOOP does", () => {
    const steps = pathChain(join(base, "loop1", "x"));
    expect(steps.at(-1)).toEqual({ path: base, why: "missing" });
    expect(steps.length).toBe(41);
  });
});
