// What an IP address is, for the proxy's address check: a public address, or one of the classes a
// command must not reach by name (its own machine, the local network, a cloud's metadata service).
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

/** Why an address is not public; null for a public one. */
export type AddressClass =
  | "loopback"
  | "unspecified"
  | "private"
  | "link-local"
  | "cgnat"
  | "multicast"
  | "metadata"
  | "reserved"
  | "this host";

/** IPv4 dotted, as four numbers; null for anything else. */
function ipv4Parts(address: string): [number, number, number, number] | null {
  if (isIP(address) !== 4) return null;
  return address.split(".").map(Number) as [number, number, number, number];
}

function classifyIpv4(address: string): AddressClass | null {
  const parts = ipv4Parts(address);
  if (parts === null) return "reserved";
  const [a, b, c, d] = parts;
  if (a === 127) return "loopback";
  if (a === 0) return "unspecified";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return c === 169 && d === 254 ? "metadata" : "link-local";
  if (a === 100 && b >= 64 && b <= 127) return address === "100.100.100.200" ? "metadata" : "cgnat";
  if (a >= 224 && a <= 239) return "multicast";
  // Azure's wire server and the IETF's protocol assignments (192.0.0.192 is Oracle's metadata).
  if (address === "168.63.129.16" || (a === 192 && b === 0 && c === 0)) return "metadata";
  // Benchmarking, the documentation nets, 240/4 and the broadcast address.
  if ((a === 198 && (b === 18 || b === 19)) || a >= 240) return "reserved";
  if (
    (a === 192 && b === 0 && c === 2) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  )
    return "reserved";
  return null;
}

/** The 16 bytes of an IPv6 address (`isIP(address) === 6`). */
function ipv6Bytes(address: string): number[] {
  let text = address.split("%")[0] as string;
  // A trailing dotted IPv4 becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = (dotted[1] as string).split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? (text.split("::") as [string, string]) : [text, null];
  const groups = (part: string): number[] =>
    part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16));
  const first = groups(head);
  const last = tail === null ? [] : groups(tail);
  const all =
    tail === null ? first : [...first, ...new Array(8 - first.length - last.length).fill(0), ...last];
  return all.flatMap((group) => [group >> 8, group & 0xff]);
}

function classifyIpv6(address: string): AddressClass | null {
  const bytes = ipv6Bytes(address);
  const zeroes = (from: number, to: number): boolean => bytes.slice(from, to).every((byte) => byte === 0);
  const v4 = (at: number): string => bytes.slice(at, at + 4).join(".");
  if (zeroes(0, 15) && bytes[15] === 1) return "loopback";
  if (zeroes(0, 16)) return "unspecified";
  // IPv4 inside IPv6 is checked as the IPv4 it carries: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d),
  // NAT64 (64:ff9b::/96) and 6to4 (2002:AABB:CCDD::).
  if (zeroes(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return classifyIpv4(v4(12));
  if (zeroes(0, 12)) return classifyIpv4(v4(12));
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeroes(4, 12))
    return classifyIpv4(v4(12));
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return classifyIpv4(v4(2));
  const first = bytes[0] as number;
  const second = bytes[1] as number;
  // AWS's metadata (fd00:ec2::254) and GCP's (fd20:ce::254) inside the unique local range.
  if (first === 0xfd && second === 0x00 && bytes[2] === 0x0e && bytes[3] === 0xc2) return "metadata";
  if (first === 0xfd && second === 0x20 && bytes[2] === 0x00 && bytes[3] === 0xce) return "metadata";
  if ((first & 0xfe) === 0xfc) return "private";
  if (first === 0xfe && (second & 0xc0) === 0x80) return "link-local";
  if (first === 0xff) return "multicast";
  // Documentation (2001:db8::/32) and discard (100::/64).
  if (
    (first === 0x20 && second === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8) ||
    (first === 0x01 && second === 0x00 && zeroes(2, 8))
  )
    return "reserved";
  return null;
}

/** This machine's own addresses, looked up each time (interfaces come and go). */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) own.add(entry.address.split("%")[0] as string);
  }
  return own;
}

/** Why `address` (an IP literal) must not be reached by name, or null when it is public. */
export function addressClass(address: string): AddressClass | null {
  const family = isIP(address);
  if (family === 0) return "reserved";
  const found = family === 4 ? classifyIpv4(address) : classifyIpv6(address);
  if (found !== null) return found;
  return ownAddresses().has(address) ? "this host" : null;
}
