/** A mistake in how conchd was started: reported with a pointer to `--help` and exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * conchd could not start for a reason of the machine's, not of its arguments (its token file, its
 * port): the message says what and how to fix it; exit code 1.
 */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartError";
  }
}
