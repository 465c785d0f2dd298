import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Each read lands in this buffer, overwritten by the next.
const READ_BUFFER_BYTES = 64 * 1024;
// Our connection says itself with this many random bytes; any other connection is closed.
const TOKEN_BYTES = 16;
// A pair not made by then is not made (descriptors run out, say): the caller falls back to pipes.
const PAIR_TIMEOUT_MS = 2000;
// A Unix socket's path has room for 107 bytes (and libuv shortens a longer one instead of failing).
const MAX_SOCKET_PATH_BYTES = 107;

/** A connected pair of Unix stream sockets: the child's end, and ours, read into one reused buffer. */
export interface ReadPair {
  /** For the child's stdio; this process's copy is to be destroyed once the child has it. */
  readonly theirs: Socket;
  /** Calls `onRead` with each chunk read, a view of a buffer the next read overwrites. */
  readonly ours: Socket;
}

/**
 * What Node's `stdio: "pipe"` makes (a Unix stream socket pair), but read as `net.Socket`'s `onread`
 * does: into one buffer, reused, instead of a new buffer a read. A command printing 200 MiB then
 * allocates nothing per chunk: no garbage for the collector to chase (its old-space collections ran
 * every few tens of MiB), and the process's memory stays where it was. `onRead` returning false
 * pauses reading (`ours.resume()` goes on).
 *
 * Node has no socketpair(): the pair is made by connecting to a socket listening in a new directory
 * only this user may enter (mode 0700), closed and deleted as soon as our connection is accepted. Our
 * connection first sends a random token, and only the accepted connection that carries it becomes the
 * child's end: another process of this user that connects in between is closed, and cannot take the
 * command's output. Rejects (the caller then uses pipes) when the path is too long for a socket, or
 * when the pair is not made within PAIR_TIMEOUT_MS.
 */
export async function createReadPair(onRead: (chunk: Buffer) => boolean): Promise<ReadPair> {
  const dir = await mkdtemp(join(tmpdir(), "conch-pair-"));
  const server = createServer({ pauseOnConnect: true });
  const strangers = new Set<Socket>();
  let ours: Socket | null = null;
  let timer: NodeJS.Timeout | undefined;
  try {
    const path = join(dir, "s");
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
      throw new Error(`the socket path would be longer than ${MAX_SOCKET_PATH_BYTES} bytes: ${path}`);
    }
    await listen(server, path);
    const token = randomToken();
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    let fail: (error: Error) => void = () => {};
    const accepted = new Promise<Socket>((resolve, reject) => {
      fail = reject;
      timer = setTimeout(() => reject(new Error("the socket pair was not made in time")), PAIR_TIMEOUT_MS);
      server.on("connection", (socket) => {
        strangers.add(socket);
        socket.on("error", () => socket.destroy());
        readToken(socket).then(
          (said) => {
            if (!said.equals(token)) {
              socket.destroy();
              return;
            }
            strangers.delete(socket);
            socket.pause();
            resolve(socket);
          },
          () => socket.destroy(),
        );
      });
      server.on("error", reject);
    });
    const connected = connect({
      path,
      onread: { buffer, callback: (bytes) => onRead(buffer.subarray(0, bytes)) },
    });
    ours = connected;
    connected.once("error", (error) => fail(error));
    connected.once("close", () => fail(new Error("the socket pair closed while being made")));
    connected.once("connect", () => connected.write(token));
    // (Once accepted, these listeners change nothing: the promise is settled.)
    return { theirs: await accepted, ours: connected };
  } catch (error) {
    ours?.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
    for (const socket of strangers) socket.destroy();
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** TOKEN_BYTES random bytes: from /dev/urandom (node:crypto costs a start a few ms to load), else node:crypto. */
function randomToken(): Buffer {
  const token = Buffer.alloc(TOKEN_BYTES);
  try {
    const fd = openSync("/dev/urandom", "r");
    try {
      if (readSync(fd, token, 0, TOKEN_BYTES, null) === TOKEN_BYTES) return token;
    } finally {
      closeSync(fd);
    }
  } catch {
    // No /dev/urandom here.
  }
  return randomBytes(TOKEN_BYTES);
}

/** The first TOKEN_BYTES bytes a connection sends. */
function readToken(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let length = 0;
    const onData = (data: Buffer): void => {
      parts.push(data);
      length += data.length;
      if (length < TOKEN_BYTES) return;
      socket.off("data", onData);
      socket.pause();
      const all = Buffer.concat(parts);
      // Anything past the token is no part of a pair of ours.
      if (all.length > TOKEN_BYTES) reject(new Error("more than a token"));
      else resolve(all);
    };
    socket.on("data", onData);
    socket.once("close", () => reject(new Error("closed before its token")));
    socket.resume();
  });
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
