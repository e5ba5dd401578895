// inet_out / cidr_out (src/backend/utils/adt/network.c, src/port/inet_net_ntop.c as in PG 15),
// macaddr_out, macaddr8_out. The inet payload is inet_struct cut to the address length:
// family (2 = IPv4, 3 = IPv6), netmask bits, then 4 or 16 address bytes in network order.
import { defineStruct, register, u8 } from "../schema/index.js";
import { FormatError } from "../schema/errors.js";
import { decodersOf, type DecoderTable, type WriterTable } from "./decoder.js";
import { expectWidth, putUint, textOf, type TextOut, type ValueWriter } from "./text-out.js";
import { expectLength, hex } from "./util.js";

export const InetStruct = register(
  defineStruct("inet_struct", "src/include/utils/inet.h", [
    u8("family", "PGSQL_AF_INET (2) or PGSQL_AF_INET6 (3); the address bytes (4 or 16) follow"),
    u8("bits", "netmask length"),
  ] as const),
);

const PGSQL_AF_INET = 2;
const PGSQL_AF_INET6 = 3;

/** a.b.c.d of the four bytes at d[at]. */
function putIpv4(out: TextOut, d: Uint8Array, at: number): void {
  out.reserve(15);
  const b = out.buf;
  let p = out.pos;
  for (let i = 0; i < 4; i++) {
    if (i) b[p++] = 46;
    p = putUint(b, p, d[at + i]!, 0);
  }
  out.pos = p;
}

const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");

/** A 16-bit word in lowercase hex without leading zeros. */
function putHexWord(out: TextOut, w: number): void {
  out.reserve(4);
  const b = out.buf;
  let p = out.pos;
  for (let shift = w >= 0x1000 ? 12 : w >= 0x100 ? 8 : w >= 0x10 ? 4 : 0; shift >= 0; shift -= 4) b[p++] = HEX_DIGITS[(w >> shift) & 15]!;
  out.pos = p;
}

/** The big-endian 16-bit word at d[at]. */
const wordAt = (d: Uint8Array, at: number): number => (d[at]! << 8) | d[at + 1]!;

function putColon(out: TextOut): void {
  out.reserve(1);
  out.buf[out.pos++] = 58;
}

/** IPv6 text of the 16 bytes at d[at]: the longest run (first if tied) of two or more zero words becomes "::"; ::a.b.c.d and ::ffff:a.b.c.d keep dotted quads. */
function putIpv6(out: TextOut, d: Uint8Array, at: number): void {
  let best = -1,
    bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (wordAt(d, at + 2 * i) !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && wordAt(d, at + 2 * j) === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  if (bestLen < 2) best = -1;
  for (let i = 0; i < 8; i++) {
    if (best >= 0 && i >= best && i < best + bestLen) {
      if (i === best) putColon(out);
      continue;
    }
    if (i !== 0) putColon(out);
    if (i === 6 && best === 0 && (bestLen === 6 || (bestLen === 5 && wordAt(d, at + 10) === 0xffff))) {
      putIpv4(out, d, at + 12);
      return;
    }
    putHexWord(out, wordAt(d, at + 2 * i));
  }
  if (best >= 0 && best + bestLen === 8) putColon(out);
}

/** inet_out / cidr_out: the address, then "/bits" (inet omits a full-length mask; cidr always shows it). */
const inetWrite =
  (cidr: boolean): ValueWriter =>
  (d, s, e, out) => {
    const type = cidr ? "cidr" : "inet";
    if (e - s < InetStruct.size) throw new FormatError("DATUM_TRUNCATED", `${type} datum needs at least 2 bytes, got ${e - s}`);
    const family = d[s + InetStruct.offsets.family]!;
    const bits = d[s + InetStruct.offsets.bits]!;
    const addr = s + InetStruct.size;
    let max: number;
    if (family === PGSQL_AF_INET) max = 32;
    else if (family === PGSQL_AF_INET6) max = 128;
    else throw new FormatError("INET_BAD_FAMILY", `${type} family ${family} is neither 2 (IPv4) nor 3 (IPv6)`);
    expectWidth(addr, e, max / 8, `${type} ${max === 32 ? "IPv4" : "IPv6"} address`);
    if (bits > max) throw new FormatError("INET_BAD_BITS", `${type} netmask /${bits} exceeds ${max}`);
    if (max === 32) putIpv4(out, d, addr);
    else putIpv6(out, d, addr);
    if (cidr || bits !== max) {
      out.reserve(4);
      out.buf[out.pos++] = 47;
      out.pos = putUint(out.buf, out.pos, bits, 0);
    }
  };

/**
 * GistInetKey (src/backend/utils/adt/network_gist.c), the GiST key of inet_ops, after its 1-byte
 * varlena header: the index's pg_attribute says inet, but the bytes are this struct.
 */
export const GistInetKey = register(
  defineStruct("GistInetKey", "src/backend/utils/adt/network_gist.c", [
    u8("family", "PGSQL_AF_INET (2) or PGSQL_AF_INET6 (3); the address bytes (4 or 16) follow"),
    u8("minbits", "the least netmask length of the keys below"),
    u8("commonbits", "how many leading address bits all keys below share"),
  ] as const),
);

/**
 * A GistInetKey as pgdisk shows it (the server has no output function for it: pageinspect prints
 * these bytes through inet_out, which misreads minbits as the netmask and commonbits as the first
 * address byte): "{family 2, minbits 24, commonbits 24, ipaddr 10.74.160.0}".
 */
export function gistInetKeyText(d: Uint8Array): string {
  if (d.length < GistInetKey.size) throw new FormatError("DATUM_TRUNCATED", `GiST inet key needs at least ${GistInetKey.size} bytes, got ${d.length}`);
  const k = GistInetKey.decode(d, 0);
  const max = k.family === PGSQL_AF_INET ? 32 : k.family === PGSQL_AF_INET6 ? 128 : 0;
  if (!max) throw new FormatError("INET_BAD_FAMILY", `GiST inet key family ${k.family} is neither 2 (IPv4) nor 3 (IPv6)`);
  const inet = Uint8Array.of(k.family, max, ...d.subarray(GistInetKey.size));
  return `{family ${k.family}, minbits ${k.minbits}, commonbits ${k.commonbits}, ipaddr ${textOf(inetWrite(false), inet)}}`;
}

const mac = (n: number) => (d: Uint8Array) => {
  expectLength(d, n, n === 6 ? "macaddr" : "macaddr8");
  return hex(d).replace(/(..)(?!$)/g, "$1:");
};

export const NETWORK_WRITERS: WriterTable = { 869: inetWrite(false), 650: inetWrite(true) };

export const NETWORK_DECODERS: DecoderTable = {
  ...decodersOf(NETWORK_WRITERS),
  829: mac(6),
  774: mac(8),
};
