// Characters a POSIX shell reads literally in a word; anything else gets the path single-quoted.
const SHELL_PLAIN = /^[A-Za-z0-9_./@%+=:,-]+$/;

/** Lines the notice's example reads: enough to be useful, few enough to fit a default token budget. */
const SPILL_NOTICE_EXAMPLE_LINES = 200;

/**
 * The line appended to truncated model output. The example is `sed -n 'A,Bp' FILE`, which Conch's
 * approval treats as known safe, so reading a slice never asks under `untrusted`.
 */
export function spillNotice(path: string, totalBytes: number, omittedBytes = 0): string {
  const quoted = shellQuote(path);
  const saved =
    omittedBytes > 0
      ? `Output (${totalBytes} bytes) saved to ${quoted} with the middle ${omittedBytes} bytes omitted`
      : `Full output (${totalBytes} bytes) saved to ${quoted}`;
  return `[${saved}; read a range of lines with: sed -n '1,${SPILL_NOTICE_EXAMPLE_LINES}p' ${quoted}]`;
}

function shellQuote(word: string): string {
  return SHELL_PLAIN.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
