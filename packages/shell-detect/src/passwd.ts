import { readFileSync } from "node:fs";
import { userInfo } from "node:os";

/** Whose passwd entry to read; with neither field, the current user's. */
interface PasswdQuery {
  readonly uid?: number;
  readonly username?: string;
}

/** With no `passwd` text, the system user database is read. */
export interface PasswdOptions extends PasswdQuery {
  readonly passwd?: string;
}

/** The login shell in the user's passwd entry, or `undefined` when there is no entry. */
export function userPasswdShell(options: PasswdOptions): string | undefined {
  const { passwd, uid, username } = options;
  const current = uid === undefined && username === undefined;
  const query: PasswdQuery = current ? currentUser() : options;
  if (passwd !== undefined) {
    return passwdShell(passwd, query);
  }
  if (current) {
    // getpwuid also consults NSS (LDAP, systemd-homed), which /etc/passwd alone misses.
    const shell = userInfoShell();
    if (shell !== undefined) {
      return shell;
    }
  }
  const text = readSystemPasswd();
  return text === undefined ? undefined : passwdShell(text, query);
}

/** The shell of the first entry matching `query`, as getpwuid/getpwnam pick it. */
export function passwdShell(text: string, query: PasswdQuery): string | undefined {
  if (query.uid === undefined && query.username === undefined) {
    return undefined;
  }
  for (const line of text.split(/\r?\n/)) {
    const fields = line.split(":");
    const [name = "", , uid = ""] = fields;
    // Like glibc, skip comments and lines of fewer than 7 fields; `+`/`-` lines are NIS directives.
    if (fields.length < 7 || /^[#+-]/.test(name)) {
      continue;
    }
    if (query.username !== undefined && name !== query.username) {
      continue;
    }
    if (query.uid !== undefined && (uid === "" || Number(uid) !== query.uid)) {
      continue;
    }
    // glibc takes the rest of the line as the shell; passwd(5) says an empty one means /bin/sh.
    const shell = fields.slice(6).join(":");
    return shell === "" ? "/bin/sh" : shell;
  }
  return undefined;
}

function currentUser(): PasswdQuery {
  const uid = process.getuid?.();
  return uid === undefined ? {} : { uid };
}

function userInfoShell(): string | undefined {
  try {
    return userInfo().shell ?? undefined;
  } catch {
    // userInfo throws when the uid has no entry, as for containers run with an arbitrary --user.
    return undefined;
  }
}

function readSystemPasswd(): string | undefined {
  try {
    return readFileSync("/etc/passwd", "utf8");
  } catch {
    return undefined;
  }
}
