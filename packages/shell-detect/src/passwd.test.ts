import { userInfo } from "node:os";
import { describe, expect, it } from "vitest";
import { passwdShell, userPasswdShell } from "./passwd.js";

const PASSWD = [
  "# a comment:x:1000:1000::/:/bin/comment",
  "root:x:0:0:root:/root:/bin/bash",
  "alice:x:1000:1000:Alice:/home/alice:/usr/bin/zsh",
  "bob:x:1001:1001:Bob:/home/bob:/usr/local/bin/fish\r",
  "dave:x:1003:1003::/home/dave:",
  "alias:x:1000:1000::/home/alias:/bin/dash",
  "+@staff::::::",
  "short:x:1005:1005",
  "",
].join("\n");

describe("passwdShell", () => {
  it("finds the first entry with the uid, as getpwuid does", () => {
    expect(passwdShell(PASSWD, { uid: 1000 })).toBe("/usr/bin/zsh");
    expect(passwdShell(PASSWD, { uid: 0 })).toBe("/bin/bash");
  });

  it("finds an entry by user name, and by both when both are given", () => {
    expect(passwdShell(PASSWD, { username: "alias" })).toBe("/bin/dash");
    expect(passwdShell(PASSWD, { uid: 1000, username: "alias" })).toBe("/bin/dash");
    expect(passwdShell(PASSWD, { uid: 0, username: "alice" })).toBeUndefined();
  });

  it("strips CRLF line ends", () => {
    expect(passwdShell(PASSWD, { username: "bob" })).toBe("/usr/local/bin/fish");
  });

  it("reads an empty shell field as /bin/sh", () => {
    expect(passwdShell(PASSWD, { uid: 1003 })).toBe("/bin/sh");
  });

  it("skips NIS directives, short lines and comments", () => {
    expect(passwdShell(PASSWD, { username: "+@staff" })).toBeUndefined();
    expect(passwdShell(PASSWD, { uid: 1005 })).toBeUndefined();
    expect(passwdShell(PASSWD, { username: "# a comment" })).toBeUndefined();
  });

  it("finds nothing for an unknown user or an empty query", () => {
    expect(passwdShell(PASSWD, { uid: 4242 })).toBeUndefined();
    expect(passwdShell(PASSWD, { username: "mallory" })).toBeUndefined();
    expect(passwdShell(PASSWD, {})).toBeUndefined();
  });
});

describe("userPasswdShell", () => {
  it("reads fixture text for the given user", () => {
    expect(userPasswdShell({ passwd: PASSWD, username: "alice" })).toBe("/usr/bin/zsh");
    expect(userPasswdShell({ passwd: PASSWD, uid: 4242 })).toBeUndefined();
  });

  it.runIf(process.platform === "linux")("matches getpwuid for the current user", () => {
    const { shell, uid, username } = userInfo();
    expect(userPasswdShell({})).toBe(shell);
    expect(userPasswdShell({ uid })).toBe(shell);
    expect(userPasswdShell({ username })).toBe(shell);
  });
});
