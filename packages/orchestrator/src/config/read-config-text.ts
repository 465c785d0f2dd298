import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { OrchestratorError } from "../errors.js";

/** A config or rules file is text a person wrote; anything larger is not one. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * A config or rules file's text, or null when it does not exist. A project's files may have been made by
 * a sandboxed command: opened without blocking or following a symlink, and checked to be a regular file
 * of bounded size, so a FIFO, a device or a link to a secret planted there fails with a clear error
 * instead of hanging Conch or reading what the link names. `followSymlinks` is for the user's own rules
 * files (a dotfiles manager links them), which no sandboxed command can write.
 */
export async function readConfigText(
  path: string,
  options: { readonly followSymlinks?: boolean } = {},
): Promise<string | null> {
  // Read with the synchronous calls: a few small files at start, where each trip through the thread
  // pool costs more than the read.
  let fd: number;
  const noFollow = options.followSymlinks === true ? 0 : constants.O_NOFOLLOW;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | noFollow);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (code === "ELOOP") {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `${path}: cannot read: a symbolic link; Conch reads only a regular file there (a sandboxed command could have planted the link): replace it with the file`,
        { cause: error },
      );
    }
    throw new OrchestratorError("INVALID_CONFIG", `${path}: cannot read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) {
      throw new OrchestratorError("INVALID_CONFIG", `${path}: cannot read: not a regular file`);
    }
    if (info.size > MAX_CONFIG_BYTES) {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `${path}: cannot read: ${info.size} bytes, more than a config file's ${MAX_CONFIG_BYTES}`,
      );
    }
    return readFileSync(fd, "utf8");
  } catch (error) {
    if (error instanceof OrchestratorError) throw error;
    throw new OrchestratorError("INVALID_CONFIG", `${path}: cannot read: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    closeSync(fd);
  }
}
