/**
 * What a capture script wrote, field by field. Text is kept as binary strings (one char per byte, the
 * `latin1` encoding) so values that are not UTF-8 reach the snapshot byte for byte.
 */
export interface CaptureRecords {
  readonly options: string;
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly functions: readonly { readonly name: string; readonly body: string }[];
  readonly fpath: readonly string[];
  readonly zdotdir: string | undefined;
  /** HISTFILE as the startup files left it; undefined when unset or empty (no history file). */
  readonly histfile: string | undefined;
  readonly aliases: string;
}

const FIELDS_AFTER: Readonly<Record<string, number>> = {
  options: 1,
  env: 1,
  function: 2,
  fpath: 1,
  zdotdir: 1,
  histfile: 1,
  aliases: 1,
};

/** The records in `output`, or `undefined` when it does not start with the header and end with `end`. */
export function parseCaptureOutput(output: Buffer): CaptureRecords | undefined {
  const fields = output.toString("latin1").split("\0");
  // Every field ends with a NUL, so a complete output leaves one empty string after the last.
  if (fields.shift() !== "conch-snapshot" || fields.pop() !== "" || fields.pop() !== "end") {
    return undefined;
  }
  let options = "";
  let aliases = "";
  let zdotdir: string | undefined;
  let histfile: string | undefined;
  const env: { name: string; value: string }[] = [];
  const functions: { name: string; body: string }[] = [];
  const fpath: string[] = [];
  for (let index = 0; index < fields.length; ) {
    const kind = fields[index] ?? "";
    const count = FIELDS_AFTER[kind];
    if (count === undefined || index + count >= fields.length) {
      return undefined;
    }
    const [first = "", second = ""] = fields.slice(index + 1, index + 1 + count);
    index += 1 + count;
    switch (kind) {
      case "options":
        options += first;
        break;
      case "env": {
        const equals = first.indexOf("=");
        if (equals <= 0) {
          return undefined;
        }
        env.push({ name: first.slice(0, equals), value: first.slice(equals + 1) });
        break;
      }
      case "function":
        functions.push({ name: first, body: second });
        break;
      case "fpath":
        fpath.push(first);
        break;
      case "zdotdir":
        zdotdir = first === "" ? undefined : first;
        break;
      case "histfile":
        histfile = first === "" ? undefined : first;
        break;
      case "aliases":
        aliases += first;
        break;
    }
  }
  return { options, env, functions, fpath, zdotdir, histfile, aliases };
}
