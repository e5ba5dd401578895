// Seeded pseudo-random numbers for the sample generators: xoshiro128** seeded through splitmix32.
// Every table draws from its own stream, derived from (seed, label), so adding rows to one table
// or changing batch sizes never shifts another table's content.

/** FNV-1a over the label's UTF-16 code units: mixes a stream label into the seed. */
function hashLabel(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) >>> 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

const rotl = (x: number, k: number): number => ((x << k) | (x >>> (32 - k))) >>> 0;

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** A stream for `label` under `seed`; equal (seed, label) give equal streams. */
  constructor(seed: number, label = "") {
    const st = { s: (Math.trunc(seed) ^ hashLabel(label)) >>> 0 };
    // High bits of the seed matter too (seeds above 2^32).
    st.s = (st.s + Math.floor(Math.abs(seed) / 4294967296)) >>> 0;
    this.a = splitmix32(st);
    this.b = splitmix32(st);
    this.c = splitmix32(st);
    this.d = splitmix32(st);
    if ((this.a | this.b | this.c | this.d) === 0) this.d = 1;
  }

  /** A child stream, independent of how much of this one was used. */
  fork(label: string): Rng {
    return new Rng(this.a ^ hashLabel(label), label);
  }

  /** Next uniform uint32. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.b << 9) >>> 0;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c = (this.c ^ t) >>> 0;
    this.d = rotl(this.d >>> 0, 11);
    this.a >>>= 0;
    this.b >>>= 0;
    return result;
  }

  /** Uniform in [0, 1) with 32 bits of precision. */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [lo, hi] (inclusive); exact for ranges up to 2^32. */
  int(lo: number, hi: number): number {
    const span = hi - lo + 1;
    if (span <= 0) throw new RangeError(`bad range ${lo}..${hi}`);
    if (span > 4294967296) return lo + Math.floor(this.float() * span);
    return lo + Math.floor((this.u32() / 4294967296) * span);
  }

  /** Integer in [lo, hi] whose logarithm is uniform: many small values, some very large. */
  logInt(lo: number, hi: number): number {
    const l = Math.log(lo);
    const v = Math.floor(Math.exp(l + this.float() * (Math.log(hi + 1) - l)));
    return Math.min(hi, Math.max(lo, v));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }

  /** Standard normal (Box-Muller). */
  gaussian(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** `n` random bytes. */
  bytes(n: number): Buffer {
    const words = Math.ceil(n / 4);
    const buf = Buffer.allocUnsafe(words * 4);
    for (let i = 0; i < words; i++) buf.writeUInt32LE(this.u32(), i * 4);
    return buf.subarray(0, n);
  }

  /** Exactly `n` characters of incompressible base64 text ([A-Za-z0-9+/]). */
  base64(n: number): string {
    return this.bytes(Math.ceil((n * 3) / 4) + 3).toString("base64").slice(0, n);
  }

  /** Exactly `n` lowercase hex digits. */
  hex(n: number): string {
    return this.bytes(Math.ceil(n / 2)).toString("hex").slice(0, n);
  }

  /** An RFC 4122 version-4-shaped UUID drawn from this stream. */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString("hex");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

/** mulberry32: a tiny seeded stream of floats in [0, 1), for property tests and fuzz rounds. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
