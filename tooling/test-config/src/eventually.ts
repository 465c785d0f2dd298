/**
 * Waits until `check` holds, polling every `everyMs`, for at most `timeoutMs`: for a test to wait on what
 * it waits for (a process gone, a file written) instead of a guessed sleep. A loaded 2-core machine can
 * take seconds for what takes milliseconds alone, so the default deadline is generous; a check that
 * never holds fails the test with `what`, instead of letting the next assertion fail without saying why.
 */
export async function eventually(
  what: string,
  check: () => boolean,
  { timeoutMs = 20_000, everyMs = 20 }: { readonly timeoutMs?: number; readonly everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() >= deadline) throw new Error(`eventually: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
