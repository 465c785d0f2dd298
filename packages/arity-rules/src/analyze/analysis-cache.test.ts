import { describe, expect, it } from "vitest";
import { AnalysisCache } from "./analysis-cache.js";

describe("AnalysisCache", () => {
  it("keeps a value per script and reading, bash and zsh apart", () => {
    const cache = new AnalysisCache<string>(4);
    cache.add("ls", false, "bash ls");
    cache.add("ls", true, "zsh ls");
    expect(cache.get("ls", false)).toBe("bash ls");
    expect(cache.get("ls", true)).toBe("zsh ls");
    expect(cache.get("pwd", false)).toBe(undefined);
  });

  it("drops the value used least recently, over both readings, once full", () => {
    const cache = new AnalysisCache<number>(3);
    cache.add("a", false, 1);
    cache.add("a", true, 2);
    cache.add("b", false, 3);
    expect(cache.get("a", false)).toBe(1); // now "a" zsh is the least recently used
    cache.add("c", false, 4);
    expect([
      cache.get("a", false),
      cache.get("a", true),
      cache.get("b", false),
      cache.get("c", false),
    ]).toEqual([1, undefined, 3, 4]);
    // Read in that order, "a" bash is now the least recently used.
    cache.add("d", true, 5);
    expect([
      cache.get("a", false),
      cache.get("b", false),
      cache.get("c", false),
      cache.get("d", true),
    ]).toEqual([undefined, 3, 4, 5]);
  });

  it("takes a script dropped before as new", () => {
    const cache = new AnalysisCache<number>(1);
    cache.add("a", false, 1);
    cache.add("b", false, 2);
    cache.add("a", false, 3);
    expect([cache.get("a", false), cache.get("b", false)]).toEqual([3, undefined]);
  });

  it("answers as a Map kept in order of use does, over many random uses", () => {
    // The reference: the single Map analyze() used, a use moving its key to the end.
    const reference = new Map<string, number>();
    const cache = new AnalysisCache<number>(8);
    let seed = 11;
    const random = (limit: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % limit;
    };
    for (let step = 0; step < 20_000; step++) {
      const zsh = random(3) === 0;
      const script = `s${random(12)}`;
      const key = `${zsh ? "z" : "b"}${script}`;
      const expected = reference.get(key);
      if (expected !== undefined) {
        reference.delete(key);
        reference.set(key, expected);
      }
      expect(cache.get(script, zsh)).toBe(expected);
      if (expected === undefined) {
        reference.set(key, step);
        if (reference.size > 8) reference.delete(reference.keys().next().value as string);
        cache.add(script, zsh, step);
      }
    }
  });
});
