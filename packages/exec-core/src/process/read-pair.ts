import { Buffer } from "node:buffer";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Each read lands in this buffer, overwritten by the next.
const READ_BUFFER_BYTES = 64 * 1024;

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
 * Node has no socketpair(): the pair is made by connecting to a listening socket in a new directory
 * only this user may enter (mode 0700), closed and deleted as soon as the one connection is accepted.
 */
export async function createReadPair(onRead: (chunk: Buffer) => boolean): Promise<ReadPair> {
  const dir = await mkdtemp(join(tmpdir(), "conch-pair-"));
  const server = createServer({ pauseOnConnect: true });
  try {
    const path = join(dir, "s");
    await listen(server, path);
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
    const ours = connect({
      path,
      onread: { buffer, callback: (bytes) => onRead(buffer.subarray(0, bytes)) },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        ours.once("connect", resolve);
        ours.once("error", reject);
      });
    } catch (error) {
      ours.destroy();
      throw error;
    }
    return { theirs: await accepted, ours };
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
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
