// Ordinary tools through Conch's proxy, for real, each against a server of its own on 127.0.0.1 named
// by the policy's network_resolve (nothing leaves the machine): git clone over http from git's own
// http-backend, git over ssh (GIT_SSH_COMMAND's ProxyCommand reaches the server), npm install from a
// small registry, pip download from a simple index, and the JVM's URL client (JAVA_TOOL_OPTIONS). The
// same tools fail, naming the host, when the host is not listed.
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { join } from "node:path";
import { NetProxy, NetworkPolicy } from "@conch/net-proxy";
import type { SandboxPolicy } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let fixtures: string;
let work: string;
let server: Server;
let port: number;
let orchestrators: ToolOrchestrator[] = [];
let tarball: Buffer;

/** git's own CGI, served: GIT_PROJECT_ROOT is the fixtures dir, every repository exported. */
function gitBackend(request: IncomingMessage, response: ServerResponse, path: string, query: string): void {
  const cgi = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_PROJECT_ROOT: join(fixtures, "git"),
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: path,
      QUERY_STRING: query,
      REQUEST_METHOD: request.method ?? "GET",
      CONTENT_TYPE: request.headers["content-type"] ?? "",
      REMOTE_ADDR: "127.0.0.1",
    },
  });
  request.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let sent = false;
  cgi.stdout.on("data", (chunk: Buffer) => {
    if (sent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end === -1) return;
    sent = true;
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const [name, ...value] = line.split(":");
      if (name?.toLowerCase() === "status") response.statusCode = Number.parseInt(value.join(":"), 10);
      else if (name !== undefined) response.setHeader(name, value.join(":").trim());
    }
    response.write(head.subarray(end + 4));
  });
  cgi.on("close", () => response.end());
}

/** A registry of one package, and a simple index of one wheel; everything else is git's. */
function serve(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? "/", "http://registry.test");
  const base = `http://${request.headers.host}`;
  if (url.pathname.startsWith("/git/")) {
    gitBackend(request, response, url.pathname.slice(4), url.search.slice(1));
    return;
  }
  if (url.pathname === "/conch-fixture") {
    const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
    const version = {
      name: "conch-fixture",
      version: "1.0.0",
      dist: {
        tarball: `${base}/conch-fixture/-/conch-fixture-1.0.0.tgz`,
        integrity,
        shasum: createHash("sha1").update(tarball).digest("hex"),
      },
    };
    response.setHeader("content-type", "application/json");
    response.end(
      JSON.stringify({
        name: "conch-fixture",
        "dist-tags": { latest: "1.0.0" },
        versions: { "1.0.0": version },
      }),
    );
    return;
  }
  if (url.pathname === "/conch-fixture/-/conch-fixture-1.0.0.tgz") {
    response.end(tarball);
    return;
  }
  if (url.pathname === "/simple/conchfixture/") {
    readFile(join(fixtures, "conchfixture-1.0-py3-none-any.whl")).then((wheel) => {
      const sha = createHash("sha256").update(wheel).digest("hex");
      response.setHeader("content-type", "text/html");
      response.end(
        `<html><body><a href="/wheels/conchfixture-1.0-py3-none-any.whl#sha256=${sha}">conchfixture-1.0-py3-none-any.whl</a></body></html>`,
      );
    });
    return;
  }
  if (url.pathname === "/wheels/conchfixture-1.0-py3-none-any.whl") {
    readFile(join(fixtures, "conchfixture-1.0-py3-none-any.whl")).then((wheel) => response.end(wheel));
    return;
  }
  if (url.pathname === "/java") {
    response.end("hello, jvm\n");
    return;
  }
  response.statusCode = 404;
  response.end("not here\n");
}

beforeAll(async () => {
  fixtures = await realpath(await mkdtemp(join("/var/tmp", "conch-net-fixtures-")));
  // A bare repository with one commit.
  const source = join(fixtures, "source");
  await mkdir(source);
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: fixtures,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.com",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.com",
      },
    });
  git(source, "init", "-q", "-b", "main");
  await writeFile(join(source, "README"), "cloned through the proxy\n");
  git(source, "add", "README");
  git(source, "commit", "-q", "-m", "one");
  await mkdir(join(fixtures, "git"));
  git(fixtures, "clone", "-q", "--bare", source, join(fixtures, "git", "repo.git"));
  // An npm package.
  const pkg = join(fixtures, "package");
  await mkdir(pkg);
  await writeFile(
    join(pkg, "package.json"),
    JSON.stringify({ name: "conch-fixture", version: "1.0.0", main: "index.js" }),
  );
  await writeFile(join(pkg, "index.js"), 'module.exports = "installed through the proxy";\n');
  execFileSync("tar", ["-czf", join(fixtures, "pkg.tgz"), "-C", fixtures, "package"]);
  tarball = await readFile(join(fixtures, "pkg.tgz"));
  // A wheel: a zip with the module and its metadata (pip download checks the name, version and hash).
  const wheel = join(fixtures, "conchfixture-1.0-py3-none-any.whl");
  const made = (() => {
    try {
      execFileSync("python3", [
        "-c",
        [
          "import sys, zipfile",
          "z = zipfile.ZipFile(sys.argv[1], 'w')",
          "z.writestr('conchfixture/__init__.py', 'VALUE = 1\\n')",
          "z.writestr('conchfixture-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: conchfixture\\nVersion: 1.0\\n')",
          "z.writestr('conchfixture-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: conch\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')",
          "z.writestr('conchfixture-1.0.dist-info/RECORD', '')",
          "z.close()",
        ].join("\n"),
        wheel,
      ]);
      return true;
    } catch {
      return false;
    }
  })();
  if (!made) await writeFile(wheel, "");
  server = createHttpServer(serve);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(fixtures, { recursive: true, force: true });
});
beforeEach(async () => {
  work = await realpath(await mkdtemp(join("/var/tmp", "conch-net-tools-")));
});
afterEach(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.terminateSessions()));
  orchestrators = [];
  await rm(work, { recursive: true, force: true });
});

const WORKSPACE: SandboxPolicy = { mode: "workspace-write" };

function tools(allow: string[]): Promise<ToolSet> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "never",
    sandbox: WORKSPACE,
    sessionSandbox: bwrapSandbox(WORKSPACE, work),
    approver: null,
    networkProxy: new NetProxy({
      policy: NetworkPolicy.from({
        allow,
        allowAddresses: ["127.0.0.1"],
        resolve: { "registry.test": "127.0.0.1", "unlisted.test": "127.0.0.1", "ssh.test": "127.0.0.1" },
      }),
    }),
  });
  orchestrators.push(orchestrator);
  return checkedToolSet({ profile: "codex", orchestrator, shell: { type: "bash", path: "/bin/bash" } });
}

async function sh(set: ToolSet, command: string): Promise<string> {
  return (await set.call("shell_command", { command, login: false, timeout_ms: 60_000 })).text;
}

describeWith(["bwrap", "git"], "git through the proxy", () => {
  it("clones over http from git http-backend; an unlisted host is refused by name", async () => {
    const set = await tools(["registry.test"]);
    const cloned = await sh(
      set,
      `git clone -q http://registry.test:${port}/git/repo.git cloned && cat cloned/README`,
    );
    expect(cloned).toMatch(/^Exit code: 0\n[\s\S]*cloned through the proxy\n$/);
    const refused = await sh(set, `git clone -q http://unlisted.test:${port}/git/repo.git other`);
    expect(refused).toMatch(/^Exit code: 128\n/);
    expect(refused).toContain(`[network: blocked unlisted.test:${port} (not in network_allow;`);
  });
});

describeWith(["bwrap", "git", "ssh"], "git over ssh through the proxy", () => {
  let sshd: TcpServer;
  let sshPort: number;
  let heard: string;
  beforeAll(async () => {
    // Not an ssh server: it says an ssh banner and records what the client sends, which is enough to see
    // that ssh, started by git, reached it through the proxy.
    sshd = createTcpServer((socket) => {
      socket.on("data", (chunk: Buffer) => {
        heard += chunk.toString("latin1");
      });
      socket.on("error", () => {});
      socket.write("SSH-2.0-conch_test\r\n");
      setTimeout(() => socket.destroy(), 500);
    });
    await new Promise<void>((resolve) => sshd.listen(0, "127.0.0.1", resolve));
    sshPort = (sshd.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => sshd.close(resolve)));

  it("GIT_SSH_COMMAND's ProxyCommand carries ssh to an allowed host, and says a refusal", async () => {
    heard = "";
    const set = await tools([`ssh.test:${sshPort}`]);
    const reached = await sh(
      set,
      `git ls-remote ssh://git@ssh.test:${sshPort}/repo.git 2>&1; echo "[$GIT_SSH_COMMAND]"`,
    );
    expect(heard).toMatch(/^SSH-2\.0-OpenSSH/);
    expect(reached).toContain(`ssh -o 'ProxyCommand=bash -c "$CONCH_SSH_PROXY" conch-ssh-proxy %h %p'`);
    const refused = await sh(set, `git ls-remote ssh://git@unlisted.test:${sshPort}/repo.git 2>&1`);
    expect(refused).toContain(
      `conch: the network proxy refused unlisted.test:${sshPort} (HTTP/1.1 403 Forbidden)`,
    );
    expect(refused).toContain(`[network: blocked unlisted.test:${sshPort} (not in network_allow;`);
  });
});

describeWith(["bwrap", "npm"], "npm through the proxy", () => {
  it("npm install from a registry the allowlist names; the same from an unlisted one fails at once, named", async () => {
    const set = await tools(["registry.test"]);
    await writeFile(
      join(work, "package.json"),
      JSON.stringify({ name: "app", version: "1.0.0", private: true }),
    );
    const npm = (registry: string): Promise<string> =>
      sh(
        set,
        `npm install conch-fixture --registry http://${registry}:${port}/ --cache "$PWD/.npm-cache" --no-audit --no-fund --no-update-notifier 2>&1 | tail -5; node -e 'console.log(require("conch-fixture"))'`,
      );
    expect(await npm("registry.test")).toContain("installed through the proxy");
    await rm(join(work, "node_modules"), { recursive: true, force: true });
    const refused = await npm("unlisted.test");
    expect(refused).toContain("403");
    expect(refused).toContain(`[network: blocked unlisted.test:${port} (not in network_allow;`);
  });
});

describeWith(["bwrap", "pip"], "pip through the proxy", () => {
  it("pip download from a simple index the allowlist names", async () => {
    const set = await tools(["registry.test"]);
    const fetched = await sh(
      set,
      `python3 -m pip download --no-deps --disable-pip-version-check --no-cache-dir --trusted-host registry.test -d out --index-url http://registry.test:${port}/simple/ conchfixture 2>&1 | tail -3; ls out`,
    );
    expect(fetched).toContain("conchfixture-1.0-py3-none-any.whl\n");
    const refused = await sh(
      set,
      `python3 -m pip download --no-deps --disable-pip-version-check --no-cache-dir --retries 0 --trusted-host unlisted.test -d out2 --index-url http://unlisted.test:${port}/simple/ conchfixture 2>&1 | tail -3`,
    );
    expect(refused).toContain(`[network: blocked unlisted.test:${port} (not in network_allow;`);
  });
});

describeWith(["bwrap", "java"], "the JVM through the proxy", () => {
  it("JAVA_TOOL_OPTIONS sends java.net.URL through the proxy", async () => {
    const set = await tools(["registry.test"]);
    await writeFile(
      join(work, "Fetch.java"),
      "public class Fetch { public static void main(String[] a) throws Exception { System.out.print(new String(new java.net.URL(a[0]).openStream().readAllBytes())); } }\n",
    );
    const fetched = await sh(set, `java Fetch.java http://registry.test:${port}/java 2>/dev/null`);
    expect(fetched).toMatch(/^Exit code: 0\n[\s\S]*hello, jvm\n$/);
  });
});
