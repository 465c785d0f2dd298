import { visibleText } from "@conch/protocol";

// JSON.stringify escapes C0 controls but leaves DEL, C1 controls (U+009B is a CSI to many terminals), bidi
// overrides and invisible characters raw, and a JSON line is often read in a terminal. Escaping them as
// `\uXXXX` changes nothing for a JSON reader. What to escape is what `visibleText` escapes.
const BEYOND_ASCII = /[^\0-\x7e]/gu;

/** `value` as one line of JSON, every character a terminal could act on or hide written as an escape. */
export function jsonLine(value: unknown): string {
  const json = JSON.stringify(value).replace(BEYOND_ASCII, (char) => {
    if (visibleText(char) === char) return char;
    let escaped = "";
    for (let i = 0; i < char.length; i++) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return escaped;
  });
  return `${json}\n`;
}

/**
 * `value` with every object key in snake_case (`externalPaths` → `external_paths`), as the tool results
 * are: one casing across every `--json` of the CLI. Values are left as they are. (`conch policy check`
 * keeps Codex's own keys: it prints what `codex execpolicy check` prints.)
 */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      snakeKeys(inner),
    ]),
  );
}
