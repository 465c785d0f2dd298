// A package README's example as a consumer would paste it: the first ```ts (or ```js) block, and the
// JavaScript Node runs from it (types stripped, nothing else changed).
import ts from "typescript";

const FIRST_EXAMPLE = /```(ts|js)\n([\s\S]*?)```/;

/**
 * @param {string} readme
 * @returns {{lang: "ts" | "js", code: string} | null}
 */
export function firstExample(readme) {
  const match = FIRST_EXAMPLE.exec(readme);
  if (match === null) return null;
  return { lang: /** @type {"ts" | "js"} */ (match[1]), code: /** @type {string} */ (match[2]) };
}

/** @param {string} code TypeScript or JavaScript @returns {string} an ES module */
export function stripTypes(code) {
  return ts.transpileModule(code, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
    },
  }).outputText;
}
