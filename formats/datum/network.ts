// inet_out / cidr_out (src/backend/utils/adt/network.c, src/port/inet_net_ntop.c as in PG 15),
// macaddr_out, macaddr8_out. The inet payload is inet_struct cut to the address length:
// family (2 = IPv4, 3 = IPv6), netmask bits, then 4 or 16 address bytes in network order.
import { defineStruct, register, u8 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import type { DecoderTable } from "./decoder.js";
import { expectLength, hex } from "./util.js";

export const InetStruct = register(
  defineStruct("inet_struct", "src/include/utils/inet.h", [
    u8("family", "PGSQL_AF_INET (2) or PGSQL_AF_INET6 (3); the address bytes (4 or 16) follow"),
    u8("bits", "netmask length"),
  ] as const),
);

const PGSQL_AF_INET = 2;
const PGSQL_AF_INET6 = 3;

function ipv4(a: Uint8Array): string {
  return `${a[0]}.${a[1]}.${a[2]}.${a[3]}`;
}

/** IPv6 text: the longest run (first if tied) of two or more zero words becomes "::"; ::a.b.c.d and ::ffff:a.b.c.d keep dotted quads. */
function ipv6(a: Uint8Array): string {
  const w = Array.from({ length: 8 }, (_, i) => (a[2 * i]! << 8) | a[2 * i + 1]!);
  let best = -1,
    bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (w[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  if (bestLen < 2) best = -1;
  let s = "";
  for (let i = 0; i < 8; i++) {
    if (best >= 0 && i >= best && i < best + bestLen) {
      if (i === best) s += ":";
      continue;
    }
    if (i !== 0) s += ":";
    if (i === 6 && best === 0 && (bestLen === 6 || (bestLen === 5 && w[5] === 0xffff))) {
      s += ipv4(a.subarray(12, 16));
      break;
    }
    s += w[i]!.toString(16);
  }
  if (best >= 0 && best + bestLen === 8) s += ":";
  return s;
}

function inetText(d: Uint8Array, cidr: boolean): string {
  const type = cidr ? "cidr" : "inet";
  if (d.length < 2) throw new FormatError("DATUM_TRUNCATED", `${type} datum needs at least 2 bytes, got ${d.length}`);
  const family = d[InetStruct.offsets.family]!;
  const bits = d[InetStruct.offsets.bits]!;
  const addr = d.subarray(InetStruct.size);
  let s: string, max: number;
  if (family === PGSQL_AF_INET) {
    expectLength(addr, 4, `${type} IPv4 address`);
    [s, max] = [ipv4(addr), 32];
  } else if (family === PGSQL_AF_INET6) {
    expectLength(addr, 16, `${type} IPv6 address`);
    [s, max] = [ipv6(addr), 128];
  } else throw new FormatError("INET_BAD_FAMILY", `${type} family ${family} is neither 2 (IPv4) nor 3 (IPv6)`);
  if (bits > max) throw new FormatError("INET_BAD_BITS", `${type} netmask /${bits} exceeds ${max}`);
  // inet omits a full-length mask; cidr always shows it
  return cidr || bits !== max ? `${s}/${bits}` : s;
}

const mac = (n: number) => (d: Uint8Array) => {
  expectLength(d, n, n === 6 ? "macaddr" : "macaddr8");
  return hex(d).replace(/(..)(?!$)/g, "$1:");
};

export const NETWORK_DECODERS: DecoderTable = {
  869: (d) => inetText(d, false),
  650: (d) => inetText(d, true),
  829: mac(6),
  774: mac(8),
};
