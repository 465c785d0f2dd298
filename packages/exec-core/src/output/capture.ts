import { HeadTailBuffer } from "./head-tail-buffer.js";

const BINARY_SNIFF_BYTES = 4096;

/** One stream's bounded copy plus whether its first 4 KiB held a NUL byte. */
class StreamCapture {
  readonly buffer: HeadTailBuffer;
  binary = false;

  constructor(capacity: number, buffer: HeadTailBuffer = new HeadTailBuffer(capacity)) {
    this.buffer = buffer;
  }

  clone(): StreamCapture {
    const copy = new StreamCapture(this.buffer.capacity, this.buffer.clone());
    copy.binary = this.binary;
    return copy;
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

/**
 * stdout, stderr and their arrival-order interleaving, each bounded to `capacity` bytes. While only one
 * stream has spoken, the interleaving is that stream: it gets a copy of its own only when the other one
 * speaks too, so the common single-stream output is copied once, not twice.
 */
export class OutputCapture {
  readonly #stdout: StreamCapture;
  readonly #stderr: StreamCapture;
  #all: StreamCapture | null = null;
  #first: StreamCapture | null = null;

  constructor(capacity: number) {
    this.#stdout = new StreamCapture(capacity);
    this.#stderr = new StreamCapture(capacity);
  }

  push(stream: "stdout" | "stderr", chunk: Uint8Array): void {
    const own = stream === "stdout" ? this.#stdout : this.#stderr;
    own.push(chunk);
    if (this.#all !== null) {
      this.#all.push(chunk);
    } else if (this.#first === null) {
      this.#first = own;
    } else if (this.#first !== own) {
      this.#all = this.#first.clone();
      this.#all.push(chunk);
    }
  }

  result(): CapturedOutput {
    const binary = this.#stdout.binary || this.#stderr.binary;
    const all = this.#all ?? this.#first ?? this.#stdout;
    // A binary stream makes the interleaving binary too, even when the NUL came after its first 4 KiB.
    const output = binary ? `[binary output: ${all.buffer.totalBytes} bytes]` : all.text();
    return {
      stdout: this.#stdout.text(),
      stderr: this.#stderr.text(),
      output,
      stdoutBytes: this.#stdout.buffer.totalBytes,
      stderrBytes: this.#stderr.buffer.totalBytes,
      truncated: all.buffer.omittedBytes > 0,
      binary,
    };
  }
}
