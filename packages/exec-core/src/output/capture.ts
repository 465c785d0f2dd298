import { HeadTailBuffer } from "./head-tail-buffer.js";

const BINARY_SNIFF_BYTES = 4096;

/** One stream's bounded copy plus whether its first 4 KiB held a NUL byte. */
class StreamCapture {
  readonly buffer: HeadTailBuffer;
  binary = false;

  constructor(capacity: number) {
    this.buffer = new HeadTailBuffer(capacity);
  }

  push(chunk: Uint8Array): void {
    const seen = this.buffer.totalBytes;
    if (!this.binary && seen < BINARY_SNIFF_BYTES) {
      this.binary = chunk.subarray(0, BINARY_SNIFF_BYTES - seen).includes(0);
    }
    this.buffer.push(chunk);
  }

  text(): string {
    return this.binary ? `[binary output: ${this.buffer.totalBytes} bytes]` : this.buffer.text();
  }
}

export interface CapturedOutput {
  stdout: string;
  stderr: string;
  output: string;
  stdoutBytes: number;
  stderrBytes: number;
  truncated: boolean;
  binary: boolean;
}

/** stdout, stderr and their arrival-order interleaving, each bounded to `capacity` bytes. */
export class OutputCapture {
  readonly #stdout: StreamCapture;
  readonly #stderr: StreamCapture;
  readonly #all: StreamCapture;

  constructor(capacity: number) {
    this.#stdout = new StreamCapture(capacity);
    this.#stderr = new StreamCapture(capacity);
    this.#all = new StreamCapture(capacity);
  }

  push(stream: "stdout" | "stderr", chunk: Uint8Array): void {
    (stream === "stdout" ? this.#stdout : this.#stderr).push(chunk);
    this.#all.push(chunk);
  }

  result(): CapturedOutput {
    const binary = this.#stdout.binary || this.#stderr.binary;
    // A binary stream makes the interleaving binary too, even when the NUL came after its first 4 KiB.
    if (binary) this.#all.binary = true;
    return {
      stdout: this.#stdout.text(),
      stderr: this.#stderr.text(),
      output: this.#all.text(),
      stdoutBytes: this.#stdout.buffer.totalBytes,
      stderrBytes: this.#stderr.buffer.totalBytes,
      truncated: this.#all.buffer.omittedBytes > 0,
      binary,
    };
  }
}
