// The agent's bookkeeping, without processes: the output ring (numbering, acks, what a full ring drops
// and tells), write ids, and the binding token.
import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bindingKey, bindingRefusal } from "../src/binding.js";
import { OutputRing } from "../src/output-ring.js";
import { WriteIds } from "../src/write-ids.js";

const text = (read: ReturnType<OutputRing["read"]>): string =>
  read.chunks.map((c) => c.data.toString()).join("");

describe("the output ring", () => {
  it("numbers chunks from 1 and reads on from any sequence number (a reader that reconnects)", () => {
    const ring = new OutputRing(1024);
    expect(ring.push(Buffer.from("a"))).toBe(1);
    expect(ring.push(Buffer.from("b"))).toBe(2);
    expect(ring.push(Buffer.from("c"))).toBe(3);
    expect(text(ring.read(0))).toBe("abc");
    const after = ring.read(1);
    expect(text(after)).toBe("bc");
    expect(after.nextSeq).toBe(4);
    expect(ring.read(3)).toEqual({ chunks: [], nextSeq: 4, droppedBytes: 0 });
  });

  it("keeps what is not acknowledged; an ack frees it", () => {
    const ring = new OutputRing(1024);
    for (const c of "abcd") ring.push(Buffer.from(c));
    ring.ack(2);
    expect(text(ring.read(0))).toBe("cd");
    expect(ring.read(0).droppedBytes).toBe(0);
  });

  it("full of read output, drops the oldest of it; unread output stays and says it is backlogged", () => {
    const ring = new OutputRing(10);
    for (const c of ["aaaa", "bbbb"]) ring.push(Buffer.from(c));
    expect(text(ring.read(0))).toBe("aaaabbbb");
    // Over the size: the read chunks go first; then unread output is kept past the size, backlogged.
    for (const c of ["cccc", "dddd", "eeee"]) ring.push(Buffer.from(c));
    expect(ring.backlogged).toBe(true);
    const read = ring.read(2);
    expect(text(read)).toBe("ccccddddeeee");
    expect(read.droppedBytes).toBe(0);
    // A read drains the backlog.
    expect(ring.backlogged).toBe(false);
  });

  it("past twice its size (a reader that never reads), drops unread output and counts what it missed", () => {
    const ring = new OutputRing(10);
    for (const c of ["aaaa", "bbbb", "cccc", "dddd", "eeee", "ffff", "gggg"]) ring.push(Buffer.from(c));
    const read = ring.read(0);
    expect(text(read)).toBe("ccccddddeeeeffffgggg");
    expect(read.droppedBytes).toBe(8);
    expect(ring.read(1).droppedBytes).toBe(4);
    expect(ring.read(2).droppedBytes).toBe(0);
    ring.ack(2);
    expect(ring.read(0).droppedBytes).toBe(0);
  });

  it("a read bounded in bytes still makes progress", () => {
    const ring = new OutputRing(1024);
    ring.push(Buffer.alloc(100, 97));
    ring.push(Buffer.alloc(100, 98));
    const first = ring.read(0, 10);
    expect(first.chunks).toHaveLength(1);
    expect(first.nextSeq).toBe(2);
  });

  it("refuses a size that is not a positive integer, naming it", () => {
    expect(() => new OutputRing(0)).toThrow("maxBytes: expected a positive integer, received 0");
  });
});

describe("write ids", () => {
  it("a write sent twice is typed once; the oldest ids are forgotten past the bound", () => {
    const ids = new WriteIds(2);
    expect(ids.first("w1")).toBe(true);
    expect(ids.first("w1")).toBe(false);
    ids.first("w2");
    ids.first("w3");
    expect(ids.first("w1")).toBe(true);
  });
});

describe("the binding token", () => {
  const conchd = generateKeyPairSync("ed25519");
  const other = generateKeyPairSync("ed25519");
  const key = bindingKey(conchd.publicKey.export({ type: "spki", format: "pem" }).toString());
  const token = (privateKey: typeof conchd.privateKey, claims: object): string => {
    const payload = Buffer.from(JSON.stringify(claims));
    return `${payload.toString("base64url")}.${sign(null, payload, privateKey).toString("base64url")}`;
  };
  const later = Date.now() + 60_000;

  it("binds the agent it names, signed by its conchd, until it expires", () => {
    expect(bindingRefusal(token(conchd.privateKey, { agent: "a1", exp: later }), key, "a1")).toBeNull();
    expect(bindingRefusal(token(conchd.privateKey, { agent: "a1", exp: Date.now() - 1 }), key, "a1")).toBe(
      "binding: expired",
    );
    expect(bindingRefusal(token(conchd.privateKey, { agent: "a2", exp: later }), key, "a1")).toBe(
      'binding: for agent "a2", not "a1"',
    );
  });

  it("refuses another conchd's token, a changed payload, and what is not a token", () => {
    expect(bindingRefusal(token(other.privateKey, { agent: "a1", exp: later }), key, "a1")).toBe(
      "binding: not signed by the conchd this agent belongs to",
    );
    const good = token(conchd.privateKey, { agent: "a1", exp: later });
    const forged = `${Buffer.from(JSON.stringify({ agent: "a1", exp: later + 1 })).toString("base64url")}.${good.split(".")[1]}`;
    expect(bindingRefusal(forged, key, "a1")).toBe("binding: not signed by the conchd this agent belongs to");
    expect(bindingRefusal("nope", key, "a1")).toBe("binding: expected PAYLOAD.SIGNATURE (base64url each)");
    expect(bindingRefusal(42, key, "a1")).toBe("binding: expected a token string");
    // The same signature in another spelling (the spare bits of its last character): not a new token.
    const [payload, signature] = good.split(".") as [string, string];
    const last = signature.at(-1) as string;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const respelled = `${payload}.${signature.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    expect(Buffer.from(respelled.split(".")[1] as string, "base64url")).toEqual(
      Buffer.from(signature, "base64url"),
    );
    expect(bindingRefusal(respelled, key, "a1")).toBe("binding: expected PAYLOAD.SIGNATURE (base64url each)");
  });

  it("takes only an Ed25519 key", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    expect(() => bindingKey(rsa.publicKey.export({ type: "spki", format: "pem" }).toString())).toThrow(
      "binding key: expected an Ed25519 public key, received rsa",
    );
  });
});
