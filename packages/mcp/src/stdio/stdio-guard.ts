// What reaches the MCP SDK's stdio transport: whole, parseable JSON-RPC lines of at most MAX_MESSAGE_BYTES.
// The transport itself closes (and so conchd ends) when a line outgrows its buffer, and answers nothing
// to malformed JSON; here a line too long or not JSON is answered with a JSON-RPC error instead
// (-32600 / -32700, with the request's id when it can be read), and conchd keeps serving.
import { Transform, type Writable } from "node:stream";

/** The largest message conchd takes on stdio: as much as over HTTP. */
export const MAX_MESSAGE_BYTES: number = 4 * 1024 * 1024;

// A request's id, read from the start of a line that cannot be parsed whole.
const ID = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/;

function errorLine(id: unknown, code: number, message: string): string {
  return `${JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message } })}\n`;
}

function idOf(start: string): unknown {
  const match = ID.exec(start);
  if (match?.[1] === undefined) return null;
  try {
    return JSON.parse(match[1]);
  } catch {
    return null;
  }
}

/**
 * A stream to hand the SDK's StdioServerTransport as its stdin: the lines of `input` that parse, in
 * order; each other line answered on `output` with a JSON-RPC error.
 */
export function guardedStdin(input: NodeJS.ReadableStream, output: Writable): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Past the limit: the rest of the line is skipped, and answered once it ends.
  let oversized: { start: string; bytes: number } | null = null;

  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let rest = chunk;
      for (;;) {
        const newline = rest.indexOf(0x0a);
        const piece = newline === -1 ? rest : rest.subarray(0, newline);
        if (oversized !== null) {
          oversized.bytes += piece.length;
        } else if (pendingBytes + piece.length > MAX_MESSAGE_BYTES) {
          const start = Buffer.concat([...pending, piece])
            .subarray(0, 1024)
            .toString("utf8");
          oversized = { start, bytes: pendingBytes + piece.length };
          pending = [];
          pendingBytes = 0;
        } else {
          pending.push(piece);
          pendingBytes += piece.length;
        }
        if (newline === -1) break;
        if (oversized !== null) {
          output.write(
            errorLine(
              idOf(oversized.start),
              -32600,
              `Invalid request: the message is ${oversized.bytes} bytes; conchd takes at most ${MAX_MESSAGE_BYTES} bytes per message`,
            ),
          );
          oversized = null;
        } else {
          const line = Buffer.concat(pending).toString("utf8");
          pending = [];
          pendingBytes = 0;
          const problem = line.trim() === "" ? null : parseProblem(line);
          if (problem === null) {
            if (line.trim() !== "") this.push(`${line}\n`);
          } else {
            output.write(errorLine(idOf(line.slice(0, 1024)), -32700, `Parse error: ${problem}`));
          }
        }
        rest = rest.subarray(newline + 1);
      }
      done();
    },
  });
  input.pipe(guard);
  return guard;
}

/** Why `line` is not JSON, or null when it is. */
function parseProblem(line: string): string | null {
  try {
    JSON.parse(line);
    return null;
  } catch (error) {
    return (error as Error).message.slice(0, 200);
  }
}
