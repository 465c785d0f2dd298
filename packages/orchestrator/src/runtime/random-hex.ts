import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

/**
 * `bytes` random bytes as hex, for the unique part of a file's name (a spill file, a snapshot record's
 * temporary file). Read from the kernel's /dev/urandom: node:crypto costs a one-shot command a few ms
 * to load, this three system calls. Where there is no /dev/urandom, node:crypto.
 */
export function randomHex(bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  let fd: number;
  try {
    fd = openSync("/dev/urandom", "r");
  } catch {
    return randomBytes(bytes).toString("hex");
  }
  try {
    for (let done = 0; done < bytes; ) {
      const n = readSync(fd, buffer, done, bytes - done, null);
      if (n === 0) throw new Error("/dev/urandom ended");
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return buffer.toString("hex");
}
