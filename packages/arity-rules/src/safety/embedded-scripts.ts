// The shell source inside what a command is given: a double-quoted word's inside, a substitution's
// script, and the commands builtins run from their operands (trap, eval, watch, mapfile -C, …).
import { FUNSUB_START, unquoteDoubleQuoted } from "../analyze/words.js";
import type { OpaquePart } from "../types.js";
import { optionValues } from "./getopt.js";
import { skipOptions } from "./options.js";
import { WATCH_GRAMMAR } from "./runners.js";

/**
 * The analyser keeps a word that is not literal as its source text: a script written
 * `sh -c "rm -rf $dir"` arrives as `"rm -rf $dir"`, quotes included. Its inside is what runs.
 */
export function scriptSource(script: string): string {
  return script.length >= 2 && script.startsWith('"') && script.endsWith('"')
    ? unquoteDoubleQuoted(script.slice(1, -1))
    : script;
}

/** The script inside `$(…)`, `` `…` `` (with its backslash escapes undone), `<(…)` or `>(…)`. */
export function substitutionScript(part: OpaquePart): string | null {
  const { reason, text } = part;
  if ((reason === "command-substitution" || reason === "process-substitution") && text.endsWith(")")) {
    return /^[$<>]\(/.test(text) ? text.slice(2, -1) : null;
  }
  // A function substitution of bash 5.3, ksh93 and mksh: `${ cmd; }`, `${| cmd; }` (see FUNSUB_START).
  if (reason === "command-substitution" && FUNSUB_START.test(text) && text.endsWith("}")) {
    return text.slice(3, -1);
  }
  if (reason === "backticks" && text.length >= 2 && text.startsWith("`") && text.endsWith("`")) {
    return text.slice(1, -1).replace(/\\([\\`$])/g, "$1");
  }
  return null;
}

/**
 * The shell source a command runs, and the words it is made of: a trap action, eval's words, watch's
 * words (run by sh), a `mapfile -C` callback (run by eval), `compgen`/`complete -C CMD` (run for the
 * completions) and `-W WORDS` (expanded, substitutions and all), `fc -e EDITOR` (run on a file of history),
 * `history -s TEXT` (which `fc -s` then runs), `bind -x 'KEYS: CMD'`.
 */
export function embeddedScripts(name: string, words: readonly string[]): { text: string; words: string[] }[] {
  switch (name) {
    case "trap": {
      // Codex: the action is the first operand (after an optional `--`); `trap -p`/`-l` have none.
      const action = words[1] === "--" ? words[2] : words[1];
      return action === undefined || action.startsWith("-") ? [] : [{ text: action, words: [action] }];
    }
    case "eval":
      return [{ text: words.slice(1).join(" "), words: words.slice(1) }];
    case "watch": {
      const commandStart = skipOptions(words, 1, WATCH_GRAMMAR, { strict: false }) ?? words.length;
      const command = words.slice(commandStart);
      return [{ text: command.join(" "), words: command }];
    }
    case "mapfile":
    case "readarray":
      return optionValues(words, "C", "dnOsuc").map((callback) => ({ text: callback, words: [callback] }));
    case "compgen":
    case "complete":
      return [
        ...optionValues(words, "C", "oAGWFXPS").map((command) => ({ text: command, words: [command] })),
        ...optionValues(words, "W", "oAGCFXPS").map((list) => ({ text: `: ${list}`, words: [list] })),
      ];
    case "fc":
      return optionValues(words, "e", "").map((editor) => ({ text: `${editor} "$FILE"`, words: [editor] }));
    case "history": {
      const at = words.findIndex((word, index) => index > 0 && /^-[^-]*s/.test(word));
      const text = at === -1 ? [] : words.slice(at + 1);
      return text.length === 0 ? [] : [{ text: text.join(" "), words: text }];
    }
    case "bind":
      return optionValues(words, "x", "mqurfl").map((binding) => {
        const colon = binding.indexOf(":");
        return { text: colon === -1 ? binding : binding.slice(colon + 1), words: [binding] };
      });
    default:
      return [];
  }
}
