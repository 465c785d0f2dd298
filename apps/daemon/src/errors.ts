/** A mistake in how conchd was started: reported with a pointer to `--help` and exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
