/** A mistake in how conch was called: reported with the command's usage hint and exit code 2. */
export class UsageError extends Error {
  readonly command: string;

  constructor(message: string, command: string) {
    super(message);
    this.name = "UsageError";
    this.command = command;
  }
}
