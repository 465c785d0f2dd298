import { readFileSync } from "node:fs";

/** The vendored corpora in `corpus/`, with their provenance in `corpus/README.md`. */
export const CORPORA = ["codex-execpolicy-cases", "codex-safety-cases", "opencode-arity"] as const;
export type CorpusName = (typeof CORPORA)[number];

/**
 * The parsed JSON of a vendored corpus. The shape is the reading test's to state: each corpus is
 * copied unchanged from its source, so this package does not pretend to know it.
 */
export function readCorpus(name: CorpusName): unknown {
  if (!CORPORA.includes(name)) {
    throw new Error(`readCorpus: unknown corpus ${JSON.stringify(name)} (known: ${CORPORA.join(", ")})`);
  }
  return JSON.parse(readFileSync(new URL(`../corpus/${name}.json`, import.meta.url), "utf8"));
}
