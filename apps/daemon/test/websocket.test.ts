// The console's WebSocket against raw frames over a real socket: the handshake, masked text in, JSON out,
// ping answered, and the protocol errors a tab must never get away with (unmasked, fragmented, too big).
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocketConnection } from "../src/console/websocket.js";

let server: Server;
let received: unknown[];
let connections: WebSocketConnection[];

beforeEach(async () => {
  received = [];
  connections = [];
  server = createServer();
  server.on("upgrade", (req, socket, head) => {
    const protocol = req.headers["sec-websocket-protocol"] === undefined ? null : "chosen";
    connections.push(
      new WebSocketConnection(req, socket, head, (message) => received.push(message), protocol),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterEach(async () => {
  for (const connection of connections) connection.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const KEY = "dGhlIHNhbXBsZSBub25jZQ==";

/** Opens a raw connection and completes the handshake; `data` collects everything after it. */
async function open(protocols?: string): Promise<{ socket: Socket; data: () => Buffer; handshake: string }> {
  const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
  let buffer = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
  });
  socket.write(
    `GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n` +
      (protocols === undefined ? "" : `Sec-WebSocket-Protocol: ${protocols}\r\n`) +
      "\r\n",
  );
  while (!buffer.includes("\r\n\r\n")) await new Promise((resolve) => setTimeout(resolve, 5));
  const end = buffer.indexOf("\r\n\r\n") + 4;
  const handshake = buffer.subarray(0, end).toString();
  const start = end;
  return { socket, data: () => buffer.subarray(start), handshake };
}

function masked(opcode: number, payload: Buffer, fin = true): Buffer {
  const mask = Buffer.from([1, 2, 3, 4]);
  const body = Buffer.from(payload.map((byte, index) => byte ^ (mask[index & 3] as number)));
  const head =
    payload.length < 126
      ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | payload.length])
      : Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, mask, body]);
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("the console's WebSocket", () => {
  it("shakes hands, reads masked JSON, sends JSON text frames, answers a ping", async () => {
    const { socket, data, handshake } = await open();
    const accept = createHash("sha1").update(`${KEY}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
    expect(handshake).toContain("HTTP/1.1 101 Switching Protocols");
    expect(handshake).toContain(`sec-websocket-accept: ${accept}`);
    socket.write(masked(1, Buffer.from(JSON.stringify({ type: "watch", id: 7 }))));
    await until(() => received.length === 1);
    expect(received).toEqual([{ type: "watch", id: 7 }]);
    const big = "x".repeat(70_000);
    connections[0]?.send("output", { data: big });
    await until(() => data().length > 70_000);
    const frame = data();
    expect(frame[0]).toBe(0x81);
    expect(frame[1]).toBe(127);
    expect(JSON.parse(frame.subarray(10).toString())).toEqual({ event: "output", data: { data: big } });
    const before = data().length;
    socket.write(masked(9, Buffer.from("hi")));
    await until(() => data().length > before);
    expect([...data().subarray(before)]).toEqual([0x8a, 2, ...Buffer.from("hi")]);
    socket.destroy();
  });

  it("answers with the subprotocol it was given, and names none when given none", async () => {
    const offered = await open("chosen, other");
    expect(offered.handshake).toMatch(/\r\nsec-websocket-protocol: chosen\r\n\r\n$/);
    offered.socket.destroy();
    const plain = await open();
    expect(plain.handshake).not.toContain("sec-websocket-protocol");
    plain.socket.destroy();
  });

  it("hangs up its side when the tab hangs up its own, so nothing holds the server open", async () => {
    const { socket } = await open();
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.on("end", () => socket.end());
    socket.end();
    await closed;
    await until(() => connections[0]?.closed === true);
  });

  it.each([
    ["an unmasked frame", Buffer.from([0x81, 2, 0x7b, 0x7d]), 1002],
    ["a fragment", masked(1, Buffer.from("{}"), false), 1002],
    ["a frame over 64 KiB", Buffer.from([0x81, 0x80 | 127, 0, 0, 0, 0, 0, 2, 0, 0]), 1009],
    ["text that is not JSON", masked(1, Buffer.from("nope")), 1007],
    ["a binary frame", masked(2, Buffer.from([1])), 1003],
  ])("closes the connection on %s, with code %s", async (_what, bytes, code) => {
    const { socket, data } = await open();
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.write(bytes);
    await closed;
    expect([...data().subarray(0, 4)]).toEqual([0x88, 2, code >> 8, code & 0xff]);
    expect(connections[0]?.closed).toBe(true);
    expect(received).toEqual([]);
  });
});
