// inet_in / cidr_in (src/backend/utils/adt/network.c network_in, inet_net_pton.c),
// macaddr_in (mac.c) and macaddr8_in (mac8.c): the inverse of network.ts. An address with a
// ':' is IPv6, else IPv4. inet takes a.b.c.d[/n] (fewer octets only with a mask that they
// cover); cidr also takes abbreviated networks ('10', '10.1/16', '0x0a') whose mask defaults
// from the address class, and refuses bits set to the right of the mask.
import { FormatError } from "../schema/errors.js";
import type { InputFunction } from "./input.js";
import { InetStruct } from "./network.js";
import { isSpace } from "./util.js";

const PGSQL_AF_INET = 2;
const PGSQL_AF_INET6 = 3;

/** The parse failed (ENOENT/EMSGSIZE in the server): the caller reports the type's syntax error. */
const FAIL = null;

const digit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const xdigit = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** A mask length after '/': decimal digits, at most 32, nothing after. */
function ipv4Mask(s: string, at: number): { bits: number } | null {
  if (!digit(s[at])) return FAIL;
  let bits = 0;
  while (digit(s[at])) bits = bits * 10 + Number(s[at++]);
  if (at !== s.length || bits > 32) return FAIL;
  return { bits };
}

/** The /bits after IPv4 octets that stopped at `ch` (s[i] follows it): -1 when there is none, null when malformed. */
function maskAfter(s: string, ch: string | undefined, i: number, addr: number[]): number | null {
  if (ch === "/" && digit(s[i]) && addr.length > 0) return ipv4Mask(s, i)?.bits ?? FAIL;
  if (ch !== undefined || addr.length === 0) return FAIL;
  return -1;
}

/** inet's IPv4: dotted decimal octets, a mask unless all four are given, the mask within the octets given. */
function inetIPv4(s: string): { addr: number[]; bits: number } | null {
  const addr: number[] = [];
  let i = 0;
  let ch = s[i++];
  while (digit(ch)) {
    let v = 0;
    do {
      v = v * 10 + Number(ch);
      if (v > 255) return FAIL;
      ch = s[i++];
    } while (digit(ch));
    if (addr.length === 4) return FAIL;
    addr.push(v);
    if (ch === undefined || ch === "/") break;
    if (ch !== ".") return FAIL;
    ch = s[i++];
  }
  let bits = maskAfter(s, ch, i, addr);
  if (bits === null) return FAIL;
  if (bits === -1) {
    if (addr.length !== 4) return FAIL;
    bits = 32;
  }
  if (Math.floor(bits / 8) > addr.length) return FAIL;
  while (addr.length < 4) addr.push(0);
  return { addr, bits };
}

/** cidr's IPv4: hex (0x...) or dotted decimal, possibly abbreviated; a missing mask comes from the class. */
function cidrIPv4(s: string): { addr: number[]; bits: number } | null {
  const addr: number[] = [];
  let i = 0;
  let stop: string | undefined;
  if (s[0] === "0" && (s[1] === "x" || s[1] === "X") && xdigit(s[2])) {
    i = 2;
    let nybbles = "";
    while (xdigit(s[i])) nybbles += s[i++];
    if (nybbles.length > 8) return FAIL;
    for (let k = 0; k < nybbles.length; k += 2) addr.push(parseInt(nybbles.slice(k, k + 2).padEnd(2, "0"), 16));
    stop = s[i++];
  } else if (digit(s[0])) {
    for (;;) {
      let v = 0;
      while (digit(s[i])) {
        v = v * 10 + Number(s[i++]);
        if (v > 255) return FAIL;
      }
      if (addr.length === 4) return FAIL;
      addr.push(v);
      stop = s[i++];
      if (stop === undefined || stop === "/") break;
      if (stop !== "." || !digit(s[i])) return FAIL;
    }
  } else return FAIL;
  let bits = maskAfter(s, stop, i, addr);
  if (bits === null) return FAIL;
  if (bits === -1) {
    const first = addr[0];
    bits = first >= 240 ? 32 : first >= 224 ? 8 : first >= 192 ? 24 : first >= 128 ? 16 : 8;
    if (bits < addr.length * 8) bits = addr.length * 8;
    // multicast: 224 alone is 224/4
    if (bits === 8 && first === 224) bits = 4;
  }
  if (bits > 32) return FAIL;
  while (addr.length * 8 < bits) addr.push(0);
  while (addr.length < 4) addr.push(0);
  return { addr, bits };
}

/** The embedded dotted quad of an IPv6 address (no leading zeros, at most four octets, an optional /bits). */
function embeddedIPv4(s: string): { octets: number[]; bits?: number } | null {
  const slash = s.indexOf("/");
  const quad = slash >= 0 ? s.slice(0, slash) : s;
  const parts = quad.split(".");
  if (parts.length > 4) return FAIL;
  const octets: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p) || (p.length > 1 && p[0] === "0")) return FAIL;
    const v = Number(p);
    if (v > 255) return FAIL;
    octets.push(v);
  }
  if (slash < 0) return { octets };
  const bits = ipv6Mask(s.slice(slash + 1));
  return bits === null ? FAIL : { octets, bits };
}

/** getbits: decimal, no leading zeros, at most 128. */
function ipv6Mask(s: string): number | null {
  if (!/^\d+$/.test(s) || (s.length > 1 && s[0] === "0")) return FAIL;
  const v = Number(s);
  return v > 128 ? FAIL : v;
}

/** IPv6 (the same for inet and cidr): hex groups, one '::', a trailing dotted quad, an optional /bits. */
function ipv6(s: string): { addr: number[]; bits: number } | null {
  const out: number[] = [];
  let colonAt = -1;
  let i = 0;
  if (s[0] === ":") {
    if (s[1] !== ":") return FAIL;
    i = 1;
  }
  let tokenStart = i;
  let val = 0;
  let digits = 0;
  let bits = -1;
  let sawDigit = false;
  let endedByQuad = false;
  while (i < s.length) {
    const c = s[i++];
    if (xdigit(c)) {
      val = (val << 4) | parseInt(c, 16);
      if (++digits > 4) return FAIL;
      sawDigit = true;
      continue;
    }
    if (c === ":") {
      tokenStart = i;
      if (!sawDigit) {
        if (colonAt >= 0) return FAIL;
        colonAt = out.length;
        continue;
      } else if (i >= s.length) return FAIL;
      if (out.length + 2 > 16) return FAIL;
      out.push((val >> 8) & 0xff, val & 0xff);
      sawDigit = false;
      digits = 0;
      val = 0;
      continue;
    }
    if (c === "." && out.length + 4 <= 16) {
      const q = embeddedIPv4(s.slice(tokenStart));
      if (q && q.octets.length > 0) {
        // getv4 writes the octets it read; an address needs all four
        for (const o of q.octets) out.push(o);
        for (let k = q.octets.length; k < 4; k++) out.push(0);
        if (q.bits !== undefined) bits = q.bits;
        sawDigit = false;
        endedByQuad = true;
        break;
      }
    }
    if (c === "/") {
      const b = ipv6Mask(s.slice(i));
      if (b !== null) {
        bits = b;
        break;
      }
    }
    return FAIL;
  }
  if (sawDigit && !endedByQuad) {
    if (out.length + 2 > 16) return FAIL;
    out.push((val >> 8) & 0xff, val & 0xff);
  }
  if (bits === -1) bits = 128;
  if (colonAt >= 0) {
    if (out.length === 16) return FAIL;
    const tail = out.splice(colonAt);
    while (out.length + tail.length < 16) out.push(0);
    out.push(...tail);
  }
  if (out.length !== 16) return FAIL;
  return { addr: out, bits };
}

/** cidr: no bits set right of the mask (addressOK). */
function hostBitsClear(addr: number[], bits: number): boolean {
  for (let i = 0; i < addr.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    const mask = keep === 8 ? 0 : 0xff >> keep;
    if (addr[i] & mask) return false;
  }
  return true;
}

function networkIn(isCidr: boolean): InputFunction {
  const type = isCidr ? "cidr" : "inet";
  return (text) => {
    const v6 = text.includes(":");
    const parsed = v6 ? ipv6(text) : isCidr ? cidrIPv4(text) : inetIPv4(text);
    if (!parsed || parsed.bits > (v6 ? 128 : 32)) throw new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type ${type}: "${text}"`);
    if (isCidr && !hostBitsClear(parsed.addr, parsed.bits)) throw new FormatError("DATUM_BAD_INPUT", `invalid cidr value: "${text}"`, {}, "Value has bits set to right of mask.");
    const out = new Uint8Array(InetStruct.size + parsed.addr.length);
    out[InetStruct.offsets.family] = v6 ? PGSQL_AF_INET6 : PGSQL_AF_INET;
    out[InetStruct.offsets.bits] = parsed.bits;
    out.set(parsed.addr, InetStruct.size);
    return out;
  };
}

// macaddr (sscanf's forms): six hex numbers with ':' or '-' between them, or three, two or one
// groups of two-digit hex pairs (the last of a group may have one digit)
const WS = "[ \\t\\n\\v\\f\\r]*";
const N = `${WS}([0-9a-f]+)`;
const P = "([0-9a-f]{2})";
const L = "([0-9a-f]{1,2})";
const MACADDR_FORMS = [
  `${N}:${N}:${N}:${N}:${N}:${N}`,
  `${N}-${N}-${N}-${N}-${N}-${N}`,
  `${WS}${P}${P}${L}:${P}${P}${L}`,
  `${WS}${P}${P}${L}-${P}${P}${L}`,
  `${WS}${P}${L}\\.${P}${L}\\.${P}${L}`,
  `${WS}${P}${L}-${P}${L}-${P}${L}`,
  `${WS}${P}${P}${P}${P}${P}${L}`,
].map((f) => new RegExp(`^${f}${WS}$`, "i"));

const macaddrIn: InputFunction = (text) => {
  for (const form of MACADDR_FORMS) {
    const m = form.exec(text);
    if (!m) continue;
    const octets = m.slice(1, 7).map((h) => parseInt(h, 16));
    if (octets.some((o) => o > 255)) throw new FormatError("DATUM_BAD_INPUT", `invalid octet value in "macaddr" value: "${text}"`);
    return Uint8Array.from(octets);
  }
  throw new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type macaddr: "${text}"`);
};


/** macaddr8: 6 or 8 hex pairs, one separator kind (':' '-' '.') throughout; 6 bytes gain FF:FE in the middle (EUI-64). */
const macaddr8In: InputFunction = (text) => {
  const bad = (): FormatError => new FormatError("DATUM_BAD_INPUT", `invalid input syntax for type macaddr8: "${text}"`);
  const bytes: number[] = [];
  let p = 0;
  let spacer = "";
  while (isSpace(text[p])) p++;
  while (p + 1 < text.length) {
    if (bytes.length === 8) throw bad();
    const pair = text.slice(p, p + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) throw bad();
    bytes.push(parseInt(pair, 16));
    p += 2;
    const c = text[p];
    if (c === ":" || c === "-" || c === ".") {
      if (spacer === "") spacer = c;
      else if (spacer !== c) throw bad();
      p++;
    }
    if ((bytes.length === 6 || bytes.length === 8) && isSpace(text[p])) {
      while (isSpace(text[p])) p++;
      if (p < text.length) throw bad();
    }
  }
  if (bytes.length === 6) return Uint8Array.of(bytes[0], bytes[1], bytes[2], 0xff, 0xfe, bytes[3], bytes[4], bytes[5]);
  if (bytes.length !== 8) throw bad();
  return Uint8Array.from(bytes);
};

export const NETWORK_INPUT: [number, InputFunction][] = [
  [869, networkIn(false)],
  [650, networkIn(true)],
  [829, macaddrIn],
  [774, macaddr8In],
];
