import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { StartError, UsageError } from "./errors.js";

/** The secret every HTTP request must carry, and where it came from. */
export interface BearerToken {
  readonly token: string;
  /** What the startup line names: the token file's path, or `$CONCH_TOKEN`. */
  readonly source: string;
}

// RFC 6750's b64token: what fits an `Authorization: Bearer` header unquoted.
const TOKEN_SHAPE = /^[A-Za-z0-9\-._~+/]+=*$/;
// Short enough to guess over a loopback connection is not a secret.
const MIN_TOKEN_LENGTH = 16;
const TOKEN_CHARS = `at least ${MIN_TOKEN_LENGTH} of A-Z a-z 0-9 - . _ ~ + /`;

const OPEN_READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function isToken(value: string): boolean {
  return value.length >= MIN_TOKEN_LENGTH && TOKEN_SHAPE.test(value);
}

/**
 * `$XDG_STATE_HOME/conch/conchd.token`, else `~/.local/state/conch/conchd.token`; a relative
 * `XDG_STATE_HOME` is invalid (XDG spec) and ignored, as the audit log's directory does.
 */
function tokenFilePath(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "conch", "conchd.token");
  const home = env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir();
  return join(home, ".local", "state", "conch", "conchd.token");
}

function refuse(path: string, why: string, fix: string): StartError {
  return new StartError(`refusing the token file ${path}: ${why}; ${fix}, or set CONCH_TOKEN instead`);
}

const REMOVE_IT = "remove it (conchd then writes a new token)";

/**
 * The token in the file at `path`, or null when there is none. Fails closed on anything another user
 * could have read or planted: a symlink, something other than a regular file, a file of someone else's
 * or one that group or others can read or write.
 */
function readTokenFile(path: string): string | null {
  let fd: number;
  try {
    // O_NOFOLLOW: the check below is of the file itself, never of where a link points; O_NONBLOCK: a
    // FIFO planted there does not hang the open.
    fd = openSync(path, OPEN_READ_NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw refuse(path, "it is a symbolic link", REMOVE_IT);
    throw new StartError(`cannot read the token file ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refuse(path, "it is not a regular file", REMOVE_IT);
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw refuse(path, `it belongs to uid ${stat.uid}, not to you (uid ${uid})`, REMOVE_IT);
    }
    const mode = stat.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw refuse(
        path,
        `its mode is ${mode.toString(8).padStart(4, "0")}, so group or others can read or change it`,
        `run 'chmod 600 ${path}', or remove it if others may have read it (conchd then writes a new token)`,
      );
    }
    const token = readFileSync(fd, "utf8").trim();
    if (!isToken(token)) throw refuse(path, `it holds no token (${TOKEN_CHARS} characters)`, REMOVE_IT);
    return token;
  } finally {
    closeSync(fd);
  }
}

/**
 * A new random token written to `path`, unless another conchd wrote one first: the file appears whole
 * (written beside it, then hard-linked into place, which never replaces an existing file).
 */
function createTokenFile(path: string): string {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString("base64url");
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}`;
  writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temp, path);
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new StartError(`cannot write the token file ${path}: ${(error as Error).message}`);
    }
    const theirs = readTokenFile(path);
    if (theirs === null) throw new StartError(`cannot write the token file ${path}: it vanished`);
    return theirs;
  } finally {
    unlinkSync(temp);
  }
}

/**
 * The bearer token: `CONCH_TOKEN` when set, else the token file's, made on first start (32 random bytes,
 * base64url; the file 0600, its directory 0700) and reused after.
 */
export function loadToken(env: NodeJS.ProcessEnv = process.env): BearerToken {
  const fromEnv = env.CONCH_TOKEN;
  if (fromEnv !== undefined) {
    // The value is a secret: the message describes it, never shows it.
    if (!isToken(fromEnv)) {
      throw new UsageError(
        `CONCH_TOKEN: expected a bearer token (${TOKEN_CHARS} characters), received ` +
          (fromEnv.length < MIN_TOKEN_LENGTH
            ? `${fromEnv.length} characters`
            : "a value with other characters"),
      );
    }
    return { token: fromEnv, source: "$CONCH_TOKEN" };
  }
  const path = tokenFilePath(env);
  return { token: readTokenFile(path) ?? createTokenFile(path), source: path };
}
