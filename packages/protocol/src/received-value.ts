// How every Conch package tells a caller (a program, a model, a person editing a config file) that a value
// was not what it should be: one renderer of the value received and one sentence around it,
// `FIELD: expected WHAT, received VALUE`, so that the same mistake reads the same from every layer.

// A string longer than this is cut: the message names the field, and the value is there to recognise.
const MAX_STRING = 60;
// An array is shown item by item while that stays this short; by its length beyond.
const MAX_ARRAY_TEXT = 60;

/**
 * A value as a message shows it: a string quoted as JSON (cut after 60 characters, with `…`); numbers,
 * booleans and bigints as written; `null`; `nothing` for undefined; a short array item by item
 * (`["ls", 1]`), a longer one by its length (`an array of 12`); `a function`, `a datetime`, `an
 * object`. Shown to a person, a string still goes through `visibleText`.
 */
export function receivedValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value);
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default:
      break;
  }
  if (value instanceof Date) return "a datetime";
  if (Array.isArray(value)) {
    if (value.length === 0) return "an empty array";
    const scalars = value.every(
      (item) => item === null || (typeof item !== "object" && typeof item !== "function"),
    );
    if (scalars) {
      const text = `[${value.map(receivedValue).join(", ")}]`;
      if (text.length <= MAX_ARRAY_TEXT) return text;
    }
    return `an array of ${value.length}`;
  }
  return "an object";
}

/** The one phrasing of a value that is not what `field` takes: `FIELD: expected WHAT, received VALUE`. */
export function expectedReceived(field: string, expected: string, value: unknown): string {
  return `${field}: expected ${expected}, received ${receivedValue(value)}`;
}
