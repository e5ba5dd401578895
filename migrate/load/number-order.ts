// The order of a sort by numeric key without a comparator: a stable LSD radix sort (four 16-bit
// passes) over the keys' IEEE 754 bits, mapped so that unsigned order is numeric order (negative
// numbers have every bit inverted, the others their sign bit set). Equal keys keep index order,
// as the loader's stable sort of new index tuples needs (heap TID order among equal keys).
// Keys already in order are returned as they are, and integer keys in a range of at most four
// times their number are sorted by counting (one pass instead of up to four). For a million keys
// this is a few tens of milliseconds, against seconds of comparator calls.

/** the widest key range sorted by counting (its count array: 64 MiB) */
const COUNTING_MAX_RANGE = 1 << 24;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The indexes 0..n-1 ordered by keys[i] ascending (no NaN), ties in index order; -0 equals 0. */
export function orderByNumber(keys: ArrayLike<number>): Uint32Array {
  const n = keys.length;
  let order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // keys already in order (a serial key loaded in key order): the identity, ties in index order
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if (keys[i] < keys[i - 1]) {
      sorted = false;
      break;
    }
  }
  if (sorted) return order;
  // integer keys within a narrow range (ids, small codes, dates): one counting pass and one
  // stable scatter by key - min, instead of the bit passes
  let min = Infinity;
  let max = -Infinity;
  let integers = true;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k !== Math.floor(k)) {
      integers = false;
      break;
    }
    if (k < min) min = k;
    if (k > max) max = k;
  }
  if (integers && max - min < COUNTING_MAX_RANGE && max - min <= 4 * n) {
    const count = new Uint32Array(max - min + 2);
    for (let i = 0; i < n; i++) count[keys[i] - min + 1]++;
    for (let d = 1; d < count.length; d++) count[d] += count[d - 1];
    for (let i = 0; i < n; i++) order[count[keys[i] - min]++] = i;
    return order;
  }
  // the keys' bits through a Uint32Array over a copy of them (no DataView call per key)
  const f = Float64Array.from(keys);
  const w = new Uint32Array(f.buffer);
  const H = LITTLE_ENDIAN ? 1 : 0;
  const L = 1 - H;
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    if (f[i] === 0) f[i] = 0; // -0 becomes 0
    const h = w[2 * i + H];
    const l = w[2 * i + L];
    if (h & 0x80000000) {
      hi[i] = ~h >>> 0;
      lo[i] = ~l >>> 0;
    } else {
      hi[i] = (h | 0x80000000) >>> 0;
      lo[i] = l;
    }
  }
  let next = new Uint32Array(n);
  const count = new Uint32Array(65537);
  for (const [word, shift] of [[lo, 0], [lo, 16], [hi, 0], [hi, 16]] as const) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[((word[i] >>> shift) & 0xffff) + 1]++;
    // a pass where every key has the same digit changes nothing
    if (n === 0 || count[((word[0] >>> shift) & 0xffff) + 1] === n) continue;
    for (let d = 1; d <= 65536; d++) count[d] += count[d - 1];
    for (let i = 0; i < n; i++) {
      const o = order[i];
      next[count[(word[o] >>> shift) & 0xffff]++] = o;
    }
    [order, next] = [next, order];
  }
  return order;
}

/**
 * For `len`-byte records buf[i * len, (i + 1) * len) with integer keys[i] in a range the counting
 * sort takes (as orderByNumber decides it): the records in key order, ties in index order, in a
 * new buffer, scattered straight to their places (no order array, no second pass); null when
 * the keys are already in order or not such integers (orderByNumber then).
 */
export function sortRecordsByNumber(keys: ArrayLike<number>, buf: Uint8Array, len: number): Uint8Array | null {
  const n = keys.length;
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if (keys[i] < keys[i - 1]) {
      sorted = false;
      break;
    }
  }
  if (sorted || len % 4 !== 0 || buf.byteOffset % 4 !== 0) return null;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k !== Math.floor(k)) return null;
    if (k < min) min = k;
    if (k > max) max = k;
  }
  if (!(max - min < COUNTING_MAX_RANGE && max - min <= 4 * n)) return null;
  const count = new Uint32Array(max - min + 2);
  for (let i = 0; i < n; i++) count[keys[i] - min + 1]++;
  for (let d = 1; d < count.length; d++) count[d] += count[d - 1];
  // four bytes at a time (records are index tuples: MAXALIGNed)
  const w = len >>> 2;
  const src = new Int32Array(buf.buffer, buf.byteOffset, n * w);
  const out = new Uint8Array(n * len);
  const dst = new Int32Array(out.buffer);
  for (let i = 0; i < n; i++) {
    const to = count[keys[i] - min]++ * w;
    const from = i * w;
    for (let k = 0; k < w; k++) dst[to + k] = src[from + k];
  }
  return out;
}
