import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  createDaemon,
  createMcpHttp,
  type Daemon,
  type HttpAddress,
  MCP_PATH,
  replyError,
  type ServeOptions,
} from "@conch/mcp";
import { visibleText } from "@conch/protocol";
import { createConsole } from "./console/console-server.js";
import { refuseUpgrade } from "./console/websocket.js";
import { StartError } from "./errors.js";
import { say, untilStopped } from "./lifecycle.js";
import { loadToken } from "./token.js";

/** The console's files, built by build-console.mjs beside this module's dist. */
const CONSOLE_ASSETS = fileURLToPath(new URL("./console-ui/", import.meta.url));

/** The host a login link names: the bound one, or loopback when bound to every address. */
function linkHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
}

/** `host` as it goes in a URL or a message: IPv6 in brackets. */
function displayHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

function listenError(error: NodeJS.ErrnoException, address: HttpAddress): StartError {
  const host = displayHost(address.host);
  switch (error.code) {
    case "EADDRINUSE":
      return new StartError(
        `port ${address.port} on ${host} is in use (by another conchd, or another program); stop it, or ` +
          `choose another port (--http ${host}:0 picks a free one)`,
      );
    case "EACCES":
      return new StartError(
        `cannot listen on ${host}:${address.port}: permission denied (ports below 1024 need privileges)`,
      );
    case "EADDRNOTAVAIL":
      return new StartError(`cannot listen on ${host}: it is not an address of this machine`);
    default:
      return new StartError(`cannot listen on ${host}:${address.port}: ${error.message}`);
  }
}

function listen(server: Server, address: HttpAddress): Promise<number> {
  // localhost is 127.0.0.1 here, whatever the resolver would answer first.
  const host = address.host === "localhost" ? "127.0.0.1" : address.host;
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void => reject(listenError(error, address));
    server.once("error", failed);
    server.listen(address.port, host, () => {
      server.off("error", failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops listening; resolves once every connection has ended. */
function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Serves the profile's tools over Streamable HTTP at `address`, path /mcp, until SIGTERM or SIGINT;
 * then stops listening, closes every MCP connection (aborting the calls in flight), kills every
 * session's process tree, flushes the audit log and resolves with exit code 0.
 *
 * MCP itself (both protocol eras, the token, the Host and Origin checks) is @conch/mcp's createMcpHttp;
 * here are the process's parts: the listening socket, the console beside MCP, signals and shutdown.
 */
export async function serveOnHttp(options: ServeOptions, address: HttpAddress): Promise<number> {
  const stopped = untilStopped();
  const { token, source } = loadToken();
  // Listening first: a port in use is reported before anything starts. Requests that arrive before the
  // daemon is ready wait for it.
  let ready: (listener: (req: IncomingMessage, res: ServerResponse) => void) => void = () => {};
  const handler = new Promise<(req: IncomingMessage, res: ServerResponse) => void>((resolve) => {
    ready = resolve;
  });
  let readyUpgrade: (listener: (req: IncomingMessage, socket: Duplex, head: Buffer) => void) => void =
    () => {};
  const upgrader = new Promise<(req: IncomingMessage, socket: Duplex, head: Buffer) => void>((resolve) => {
    readyUpgrade = resolve;
  });
  const server = createServer((req, res) => {
    void handler.then((listener) => listener(req, res));
  });
  // Every connection, for shutdown: closeAllConnections reaches only those still speaking HTTP, not one
  // upgraded to a console WebSocket, and one of those left half-open would hold the server's close.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    void upgrader.then((listener) => listener(req, socket, head));
  });
  const port = await listen(server, address);
  server.on("error", (error) => say(`error: ${visibleText(error.message)}`));
  let daemon: Daemon;
  // Set once the console is up: `conch console` then gets a fresh login link over the channel socket.
  let consoleLink: () => string | null = () => null;
  try {
    daemon = await createDaemon(options, { log: say, services: { consoleLink: () => consoleLink() } });
  } catch (error) {
    const closed = stopListening(server);
    server.closeAllConnections();
    await closed;
    throw error;
  }

  const onerror = (error: Error): void => say(`error: ${visibleText(error.message)}`);
  const mcp = createMcpHttp(daemon, { address, port, token, onerror });
  const { guard } = mcp;
  const origin = `http://${displayHost(linkHost(address.host))}:${port}`;
  const web = createConsole({
    daemon,
    origin,
    isOwnOrigin: guard.isOwnOrigin,
    assetsDir: CONSOLE_ASSETS,
    version: options.version,
    pid: process.pid,
  });
  consoleLink = web.loginLink;
  let stopping = false;
  ready((req, res) => {
    if (stopping) {
      replyError(res, 503, "Service Unavailable: conchd is stopping", { connection: "close" });
      return;
    }
    const rejection = guard.checkAddress(req);
    if (rejection !== null) {
      replyError(res, rejection.status, rejection.message, rejection.headers);
      return;
    }
    if (mcp.handle(req, res) || web.handle(req, res)) return;
    replyError(res, 404, `Not Found: conchd serves MCP at ${MCP_PATH} and its console at /`);
  });
  readyUpgrade((req, socket, head) => {
    const rejection = stopping ? { status: 503, message: "conchd is stopping" } : guard.checkAddress(req);
    if (rejection !== null) {
      refuseUpgrade(socket, rejection.status, rejection.message);
      return;
    }
    if (!web.upgrade(req, socket, head)) refuseUpgrade(socket, 404, "Not Found: no WebSocket here");
  });
  say(`listening on http://${displayHost(address.host)}:${port}${MCP_PATH} (token: ${visibleText(source)})`);
  say(`console at ${web.loginLink()}`);

  await stopped;
  stopping = true;
  consoleLink = () => null;
  web.close();
  const closed = stopListening(server);
  await mcp.close();
  server.closeAllConnections();
  for (const socket of sockets) socket.destroy();
  await closed;
  await daemon.close();
  return 0;
}
