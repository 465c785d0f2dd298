// Most of what commands print is plain ASCII text: no byte past 0x7e, no control but tab and line feed.
// Such a chunk needs no decoding, no cleaning and no encoding (TerminalTextFilter.writePlainAscii), so
// telling it apart is the one pass over every byte of the output. A WebAssembly function does it sixteen
// bytes at a time (SIMD); where WebAssembly or its SIMD is missing, a loop does it four at a time.

import { SPECIAL_BELOW_A0 } from "./terminal-text.js";

const WINDOW_BYTES = 64 * 1024;
// Below this, copying into the module's memory costs more than the loop.
const MIN_WASM_BYTES = 512;

const splat = (byte: number): number[] => [0xfd, 0x0c, ...new Array<number>(16).fill(byte)];
// i8x16.swizzle's table: 1 for every byte below 0x10 but tab (0x09) and line feed (0x0a).
const LOW_TABLE = [
  0xfd,
  0x0c,
  ...Array.from({ length: 16 }, (_, byte) => (byte === 9 || byte === 10 ? 0 : 1)),
];

// Bytes read per round of the loop: four vectors, so that V8's baseline compiler (Liftoff, which is
// all conch runs once the bash parser has set --liftoff-only) spends its time on the bytes and not on
// the loop; the caller reads the last `length % BLOCK` bytes itself.
const BLOCK = 64;

/** One vector at `$at + offset`: `$hi = max_u($hi, $v)`; `$lo |= swizzle(LOW_TABLE, $v) | ($v - 16 <u 16)`. */
const vector = (offset: number): number[] => [
  // $v = v128.load offset=offset $at
  0x20,
  0x00,
  0xfd,
  0x00,
  0x04,
  offset,
  0x21,
  0x07,
  // $hi = i8x16.max_u $hi $v
  0x20,
  0x03,
  0x20,
  0x07,
  0xfd,
  0x79,
  0x21,
  0x03,
  // $lo = $lo | i8x16.swizzle $table $v (bytes below 0x10 but tab and line feed)
  0x20,
  0x04,
  0x20,
  0x05,
  0x20,
  0x07,
  0xfd,
  0x0e,
  0xfd,
  0x50,
  // | i8x16.lt_u (i8x16.sub $v $c16) $c16 (bytes from 0x10 to 0x1f)
  0x20,
  0x07,
  0x20,
  0x06,
  0xfd,
  0x71,
  0x20,
  0x06,
  0xfd,
  0x26,
  0xfd,
  0x50,
  0x21,
  0x04,
];

/**
 * `scan(at, length)`: 1 when the 64-byte blocks of memory from `at` (the first `length & ~63` bytes)
 * hold a byte below 0x20 but 0x09 and 0x0a, or from 0x7f up; else 0. Hand-assembled (the text format
 * in the comments); the test checks it against the loop for every byte value at every position.
 */
// biome-ignore format: one instruction a line
const SCAN_BODY = [
  // (local $end i32) (local $hi $lo $table $c16 $v v128)
  0x02, 0x01, 0x7f, 0x05, 0x7b,
  // $end = $at + ($length & -64)
  0x20, 0x00, 0x20, 0x01, 0x41, 0x40, 0x71, 0x6a, 0x21, 0x02,
  // $table = LOW_TABLE; $c16 = 16 in every lane
  ...LOW_TABLE, 0x21, 0x05, ...splat(0x10), 0x21, 0x06,
  // block loop: br_if 1 ($at >= $end)
  0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x20, 0x02, 0x4f, 0x0d, 0x01,
  ...vector(0), ...vector(16), ...vector(32), ...vector(48),
  // $at += 64; br 0; end end
  0x20, 0x00, 0x41, 0xc0, 0x00, 0x6a, 0x21, 0x00, 0x0c, 0x00, 0x0b, 0x0b,
  // v128.any_true $lo | v128.any_true (i8x16.ge_u $hi 0x7f)
  0x20, 0x04, 0xfd, 0x53, 0x20, 0x03, ...splat(0x7f), 0xfd, 0x2c, 0xfd, 0x53, 0x72, 0x0b,
];

function leb128(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

const section = (id: number, bytes: readonly number[]): number[] => [id, ...leb128(bytes.length), ...bytes];
const name = (text: string): number[] => [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];

const MODULE_BYTES = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  // (type (func (param i32 i32) (result i32)))
  ...section(1, [0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]),
  ...section(3, [0x01, 0x00]),
  // (memory 1): one 64 KiB page, a window's room
  ...section(5, [0x01, 0x00, 0x01]),
  ...section(7, [0x02, ...name("scan"), 0x00, 0x00, ...name("memory"), 0x02, 0x00]),
  ...section(10, [0x01, ...leb128(SCAN_BODY.length), ...SCAN_BODY]),
]);

interface Scanner {
  readonly scan: (at: number, length: number) => number;
  readonly memory: Uint8Array;
}

// What this module uses of the WebAssembly API (the project's libraries have no types for it).
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}

let scanner: Scanner | null | undefined;

function wasmScanner(): Scanner | null {
  if (scanner !== undefined) return scanner;
  try {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (api === undefined) throw new Error("no WebAssembly");
    const { exports } = new api.Instance(new api.Module(MODULE_BYTES));
    const memory = exports.memory as { readonly buffer: ArrayBuffer };
    scanner = { scan: exports.scan as Scanner["scan"], memory: new Uint8Array(memory.buffer) };
  } catch {
    // No WebAssembly, or no SIMD in it: the loop.
    scanner = null;
  }
  return scanner;
}

function specialByte(byte: number): boolean {
  // The filter's own table: what it removes or acts on below 0x80 (every byte from 0x80 up is not ASCII).
  return byte >= 0x80 || SPECIAL_BELOW_A0[byte] === 1;
}

/** The loop: four bytes at a time once aligned. */
function plainByLoop(data: Uint8Array): boolean {
  const end = data.length;
  let i = 0;
  const head = Math.min(end, (4 - (data.byteOffset & 3)) & 3);
  for (; i < head; i++) if (specialByte(data[i] as number)) return false;
  const words = (end - i) >> 2;
  if (words > 0) {
    const view = new Uint32Array(data.buffer, data.byteOffset + i, words);
    for (let w = 0; w < words; w++) {
      const x = view[w] as number;
      // Per byte, in its high bit: from 0x80 up (then the rest of the word is not read as text).
      if ((x & 0x80808080) !== 0) return false;
      // Below 0x80, no carry crosses bytes: at least 0x20; not 0x09; not 0x0a; not 0x7f.
      const printable = (x + 0x60606060) & 0x80808080;
      const tab = x ^ 0x09090909;
      const lineFeed = x ^ 0x0a0a0a0a;
      const notTab = (((tab & 0x7f7f7f7f) + 0x7f7f7f7f) | tab) & 0x80808080;
      const notLineFeed = (((lineFeed & 0x7f7f7f7f) + 0x7f7f7f7f) | lineFeed) & 0x80808080;
      const del = (x + 0x01010101) & 0x80808080;
      if ((~printable & notTab & notLineFeed) !== 0 || del !== 0) return false;
    }
    i += words * 4;
  }
  for (; i < end; i++) if (specialByte(data[i] as number)) return false;
  return true;
}

function plainByWasm(data: Uint8Array, wasm: Scanner): boolean {
  for (let from = 0; from < data.length; from += WINDOW_BYTES) {
    const window = data.subarray(from, from + WINDOW_BYTES);
    wasm.memory.set(window, 0);
    if (wasm.scan(0, window.length) !== 0) return false;
    const blocks = window.length & ~(BLOCK - 1);
    for (let i = blocks; i < window.length; i++) if (specialByte(window[i] as number)) return false;
  }
  return true;
}

/**
 * Whether `data` is plain ASCII text: every byte from 0x20 to 0x7e, or a tab or a line feed. `loopOnly`
 * is for the test that holds the two ways together.
 */
export function isPlainAscii(data: Uint8Array, loopOnly = false): boolean {
  const wasm = loopOnly || data.length < MIN_WASM_BYTES ? null : wasmScanner();
  return wasm === null ? plainByLoop(data) : plainByWasm(data, wasm);
}

/** Whether the WebAssembly way is there (Node on x64 and arm64 has its SIMD). */
export function hasWasmScanner(): boolean {
  return wasmScanner() !== null;
}
