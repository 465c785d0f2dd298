import { describe, expect, it } from "vitest";
import { buildEnv, ENV_PINS } from "./build-env.js";

const parent = {
  PATH: "/usr/bin",
  HOME: "/home/a",
  MY_API_KEY: "k",
  github_token: "t",
  DB_PASSWORD: "p",
  AWS_SECRET_ACCESS_KEY: "s",
  LANGUAGE: "en",
  TERM: "xterm",
};

describe("buildEnv", () => {
  it("inherits everything but secret-looking names, case-insensitively, then applies the pins", () => {
    expect(buildEnv({}, parent)).toEqual({ PATH: "/usr/bin", HOME: "/home/a", LANGUAGE: "en", ...ENV_PINS });
  });

  it("inherits only the core variables under `core`", () => {
    expect(buildEnv({ inherit: "core" }, parent)).toEqual({ PATH: "/usr/bin", HOME: "/home/a", ...ENV_PINS });
  });

  it("inherits nothing under `none`", () => {
    expect(buildEnv({ inherit: "none" }, parent)).toEqual(ENV_PINS);
  });

  it("uses the given exclude patterns instead of the defaults", () => {
    const env = buildEnv({ inherit: "all", exclude: ["LANG?AGE", "home"] }, parent);
    expect(Object.keys(env)).toContain("MY_API_KEY");
    expect(env.LANGUAGE).toBeUndefined();
    expect(env.HOME).toBeUndefined();
  });

  it("drops the default secret names, URLs with a password, and keeps what `allow` names", () => {
    const more = {
      PATH: "/usr/bin",
      PWD: "/w",
      OLDPWD: "/",
      DB_PWD: "x",
      GITHUB_PAT: "x",
      GOOGLE_APPLICATION_CREDENTIALS: "/c.json",
      SSH_AUTH_SOCK: "/run/agent",
      GIT_AUTHOR_NAME: "A",
      SENTRY_DSN: "https://k@o.ingest/1",
      API_JWT_SIGNER: "x",
      COOKIE_JAR: "x",
      DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/bus",
      DATABASE_URL: "postgres://app:s3cret@db:5432/app",
      PROXY: "http://user:pw@proxy:3128",
      PLAIN_URL: "https://example.com/a:b@c",
      USER_URL: "ssh://git@github.com/x",
      MY_PASSWD: "x",
    };
    expect(buildEnv({}, more)).toEqual({
      PATH: "/usr/bin",
      PWD: "/w",
      OLDPWD: "/",
      PLAIN_URL: "https://example.com/a:b@c",
      USER_URL: "ssh://git@github.com/x",
      ...ENV_PINS,
    });
    expect(buildEnv({ allow: ["DATABASE_URL", "SSH_AUTH_SOCK"] }, more)).toMatchObject({
      DATABASE_URL: "postgres://app:s3cret@db:5432/app",
      SSH_AUTH_SOCK: "/run/agent",
    });
  });

  it("drops credential-shaped values under harmless names; `allow` passes one on purpose", () => {
    const key = `sk-${"Ab3".repeat(16)}`;
    const values = {
      FOO: key,
      BAR: `AKIA${"Q7".repeat(8)}`,
      HOOK: "https://hooks.slack.com/services/T0/B0/xyz",
      REMOTE: "https://abc123def@github.com/o/r.git",
      CACHE: "redis://:pw@cache:6379",
      SHA: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
      LS_COLORS: "rs=0:di=01;34:*.key=00;33",
    };
    expect(buildEnv({}, values)).toEqual({
      SHA: values.SHA,
      LS_COLORS: values.LS_COLORS,
      ...ENV_PINS,
    });
    expect(buildEnv({ allow: ["FOO"] }, values).FOO).toBe(key);
    expect(buildEnv({ set: { BAR: key } }, values).BAR).toBe(key);
  });

  it("reads each glob form exactly: whole name, prefix, suffix, inner `*`, `?`, and `.` as itself", () => {
    const names = ["KEY", "XKEY", "KEYX", "A_B", "A__B", "AB", "A.C", "AXC", "KEEP", "SECRET\nX"];
    const kept = (exclude: string[]): string[] =>
      Object.keys(buildEnv({ exclude }, Object.fromEntries(names.map((n) => [n, "v"])))).filter(
        (name) => !(name in ENV_PINS),
      );
    expect(kept(["key"])).toEqual(names.filter((n) => n !== "KEY"));
    expect(kept(["KEY*"])).toEqual(names.filter((n) => n !== "KEY" && n !== "KEYX"));
    expect(kept(["*KEY"])).toEqual(names.filter((n) => n !== "KEY" && n !== "XKEY"));
    expect(kept(["A*B"])).toEqual(names.filter((n) => !["A_B", "A__B", "AB"].includes(n)));
    expect(kept(["A?B"])).toEqual(names.filter((n) => n !== "A_B"));
    expect(kept(["A.C"])).toEqual(names.filter((n) => n !== "A.C"));
    expect(kept(["*"])).toEqual([]);
    expect(kept([])).toEqual(names);
    // A `*` spans a newline too: a name cannot hide from a pattern behind one.
    expect(kept(["SECRET*"])).toEqual(names.filter((n) => !n.startsWith("SECRET")));
  });

  it("lets overrides win over the pins and the excludes", () => {
    const env = buildEnv({ set: { TERM: "xterm-256color", MY_API_KEY: "given" } }, parent);
    expect(env.TERM).toBe("xterm-256color");
    expect(env.MY_API_KEY).toBe("given");
  });
});
