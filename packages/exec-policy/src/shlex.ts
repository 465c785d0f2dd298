// POSIX-shell word splitting as Codex's `shlex` crate does it (its `split`): whitespace is space, tab
// and newline; `#` at the start of a word comments out the rest of the line; a backslash escapes the
// next character outside quotes (a backslash-newline vanishes); single quotes are literal; inside
// double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and newline. No expansions of any kind.

/** Splits a string into words; null when it ends inside quotes or right after a backslash. */
export function shlexSplit(input: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    const ch = input[i] as string;
    if (ch === " " || ch === "\t" || ch === "\n") {
      i++;
      continue;
    }
    if (ch === "#") {
      while (i < n && input[i] !== "\n") i++;
      continue;
    }
    let word = "";
    while (i < n) {
      const c = input[i] as string;
      if (c === " " || c === "\t" || c === "\n") break;
      i++;
      if (c === "'") {
        const end = input.indexOf("'", i);
        if (end === -1) return null;
        word += input.slice(i, end);
        i = end + 1;
      } else if (c === '"') {
        let closed = false;
        while (i < n) {
          const d = input[i++] as string;
          if (d === '"') {
            closed = true;
            break;
          }
          if (d !== "\\") {
            word += d;
            continue;
          }
          if (i >= n) return null;
          const e = input[i++] as string;
          if (e === "$" || e === "`" || e === '"' || e === "\\") word += e;
          else if (e !== "\n") word += `\\${e}`;
        }
        if (!closed) return null;
      } else if (c === "\\") {
        if (i >= n) return null;
        const e = input[i++] as string;
        if (e !== "\n") word += e;
      } else {
        word += c;
      }
    }
    words.push(word);
  }
  return words;
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one word so that `shlexSplit` (and a POSIX shell) reads it back unchanged. */
export function shlexQuote(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

export function shlexJoin(words: readonly string[]): string {
  return words.map(shlexQuote).join(" ");
}
