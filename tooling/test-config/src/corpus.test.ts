import { describe, expect, it } from "vitest";
import { CORPORA, type CorpusName, readCorpus } from "./corpus.js";

describe("readCorpus", () => {
  it("reads every vendored corpus", () => {
    expect(Object.keys(readCorpus("opencode-arity") as object)).toHaveLength(136);
    expect((readCorpus("codex-execpolicy-cases") as unknown[]).length).toBeGreaterThan(0);
    expect((readCorpus("codex-safety-cases") as unknown[]).length).toBeGreaterThan(0);
    expect(CORPORA).toEqual(["codex-execpolicy-cases", "codex-safety-cases", "opencode-arity"]);
  });

  it("refuses a name that is not a vendored corpus", () => {
    expect(() => readCorpus("../package" as CorpusName)).toThrow(
      'readCorpus: unknown corpus "../package" (known: codex-execpolicy-cases, codex-safety-cases, opencode-arity)',
    );
  });
});
