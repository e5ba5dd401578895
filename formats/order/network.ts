// network_cmp (inet_ops, cidr_ops) over inet_struct bytes: the family, then the common prefix
// of the shorter netmask, then the netmask, then every address bit. Source:
// src/backend/utils/adt/network.c (network_cmp_internal, bitncmp) (PostgreSQL 15).
import { cmpBytes, payloadOf, type DatumCmp } from "./bytes.js";

/** bitncmp: the first `n` bits of two addresses (network order), as memcmp then the high bits of the next byte. */
function bitncmp(a: Uint8Array, ao: number, b: Uint8Array, bo: number, n: number): number {
  const bytes = n >> 3;
  const c = cmpBytes(a, ao, bytes, b, bo, bytes);
  if (c !== 0 || (n & 7) === 0) return c;
  const mask = (0xff << (8 - (n & 7))) & 0xff;
  return (a[ao + bytes] & mask) - (b[bo + bytes] & mask);
}

/** PGSQL_AF_INET: the family byte of an IPv4 value (32 address bits; IPv6 has 128) */
const PGSQL_AF_INET = 2;

export const cmpInet: DatumCmp = (a0, ao, al, b0, bo, bl) => {
  const x = payloadOf(a0, ao, al);
  const y = payloadOf(b0, bo, bl);
  if (!x || !y || x[2] < 2 || y[2] < 2) return NaN;
  const [a, as] = x;
  const [b, bs] = y;
  const fa = a[as];
  const fb = b[bs];
  if (fa !== fb) return fa - fb;
  const maxbits = fa === PGSQL_AF_INET ? 32 : 128;
  if (x[2] < 2 + maxbits / 8 || y[2] < 2 + maxbits / 8) return NaN;
  const ba = a[as + 1];
  const bb = b[bs + 1];
  const c = bitncmp(a, as + 2, b, bs + 2, Math.min(ba, bb));
  if (c !== 0) return c;
  if (ba !== bb) return ba - bb;
  return bitncmp(a, as + 2, b, bs + 2, maxbits);
};
