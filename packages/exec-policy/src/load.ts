import { readFile } from "node:fs/promises";
import { type LocatedExamples, validateExamples } from "./examples.js";
import { ExecPolicyBuilder } from "./exec-policy.js";
import { invalidRules, RuleProblem } from "./problem.js";
import { readRulesFile } from "./rules-file.js";
import { readTomlFile } from "./toml-file.js";
import type { ExecPolicy } from "./types.js";

/** A rules file's path (used for its format, `.toml` or else Codex `.rules`, and in errors) and text. */
export interface RulesFile {
  readonly path: string;
  readonly text: string;
}

function toExecPolicyError(path: string, error: unknown): unknown {
  return error instanceof RuleProblem ? invalidRules(path, error.line, error.message) : error;
}

/**
 * Reads rules files into one policy, in order: rules accumulate, network rules accumulate, and a
 * later `host_executable` for a name replaces an earlier one. Each file's `match`/`not_match` examples
 * are checked once that file is read. Throws an ExecPolicyError (`INVALID_RULES`, `file:line: ...`).
 */
export function loadExecPolicy(files: readonly RulesFile[]): ExecPolicy {
  const builder = new ExecPolicyBuilder();
  for (const { path, text } of files) {
    try {
      const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
      const pending: LocatedExamples[] = path.toLowerCase().endsWith(".toml")
        ? readTomlFile(source, builder, path)
        : readRulesFile(source, builder, path);
      for (const examples of pending) {
        try {
          validateExamples(examples, builder.hostExecutables);
        } catch (error) {
          if (!(error instanceof RuleProblem)) throw error;
          const message = examples.label === null ? error.message : `${examples.label}: ${error.message}`;
          throw new RuleProblem(message, examples.line);
        }
      }
    } catch (error) {
      throw toExecPolicyError(path, error);
    }
  }
  return builder.build();
}

/** `loadExecPolicy` over files read from disk (UTF-8); an unreadable file is an `INVALID_RULES` error. */
export async function loadExecPolicyFiles(paths: readonly string[]): Promise<ExecPolicy> {
  const files = await Promise.all(
    paths.map(async (path): Promise<RulesFile> => {
      try {
        return { path, text: await readFile(path, "utf8") };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw invalidRules(path, null, `cannot read rules file: ${reason}`, error);
      }
    }),
  );
  return loadExecPolicy(files);
}
