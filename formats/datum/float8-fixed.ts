// float8out's common case written as bytes without Number#toString: a double whose shortest
// round-trip decimal has its first digit at 10^-4 .. 10^14 (PostgreSQL's fixed notation). The
// digits are the shortest that lie strictly inside the value's rounding interval, the closest
// to the value among them, found with exact double arithmetic:
//
// - x = |v| * 10^k, with k chosen so that 10^16 <= x < 10^17, is computed exactly as P + E
//   (Dekker's product: 10^k <= 10^20 is an exact double), and split into an integer in two
//   base-10^9 limbs and a fraction f in [0, 1).
// - The rounding interval of |v| is |v| +- ulp/2 (not at a power of two, whose lower gap is
//   halved: those go to Number#toString), which at this scale is x +- H with H = 2^(e-53) * 10^k,
//   an exact double between 0.55 and 11.1.
// - The shortest decimal is the multiple of 10^j inside (x - H, x + H) for the largest j; a
//   multiple of 10^j is one of a multiple of 10^(j-1), so j counts up from 0 until none is
//   inside. Only remainders below 12 can be inside, where the comparisons' rounding errors are
//   below 1e-14; a comparison closer than 1e-9 (none can be exact: a decimal of at most 17
//   digits is never a midpoint between two doubles of this range) gives up.
//
// Giving up returns -1, and the caller prints Number#toString's text (floats.ts), which is the
// rule this one reproduces (test/datum/floats.test.ts compares the two on many values).

const SPLIT = 134217729; // 2^27 + 1: Veltkamp's split of a double into two 26-bit halves

/** 10^k and its Veltkamp halves, k = 0 .. 22 (all exact doubles). */
const POW10: number[] = [];
const POW10_HI: number[] = [];
const POW10_LO: number[] = [];
for (let k = 0; k <= 22; k++) {
  const t = Number(`1e${k}`);
  const c = SPLIT * t;
  const hi = c - (c - t);
  POW10.push(t);
  POW10_HI.push(hi);
  POW10_LO.push(t - hi);
}

const WORDS = new Uint32Array(2);
const VALUE = new Float64Array(WORDS.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HI = LITTLE_ENDIAN ? 1 : 0;
const LO = 1 - HI;

/** "00" .. "99" */
const PAIRS = new TextEncoder().encode(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0")).join(""));
/** the 17 digits (ASCII) of x's integer part, then of the chosen decimal */
const DIGITS = new Uint8Array(17);
/** 1e-9: comparisons closer than this give up */
const NEAR = 1e-9;
/** 10^e as the nearest double, e = -4 .. 16, at e + 4 (to place a's first digit; a retry corrects a miss) */
const DECADE: number[] = Array.from({ length: 21 }, (_, i) => Number(`1e${i - 4}`));

/** The 2 * pairs digits of 0 <= n < 10^(2 * pairs) (an int32) into DIGITS from `at`. */
function putPairs(at: number, n: number, pairs: number): void {
  for (let i = pairs - 1; i >= 0; i--) {
    const q = (n / 100) | 0;
    const r = 2 * (n - q * 100);
    DIGITS[at + 2 * i] = PAIRS[r]!;
    DIGITS[at + 2 * i + 1] = PAIRS[r + 1]!;
    n = q;
  }
}

/** Add one at digit q of DIGITS, carrying; false when it carries out of the first digit. */
function bump(q: number): boolean {
  for (; q >= 0; q--) {
    if (DIGITS[q] !== 57) {
      DIGITS[q]!++;
      return true;
    }
    DIGITS[q] = 48;
  }
  return false;
}

/**
 * Write float8out's text of the finite v (1e-4 <= |v| < 1e15) at b[p] in fixed notation (at
 * most 24 bytes); returns the position after it, or -1 when this path gives up (nothing usable
 * is written then).
 */
export function putFloat8Fixed(b: Uint8Array, p: number, v: number): number {
  const a = Math.abs(v);
  VALUE[0] = a;
  const hiWord = WORDS[HI]!;
  const e2 = (hiWord >>> 20) - 1023;
  // a power of two: the interval below is half the one above
  if ((hiWord & 0xfffff) === 0 && WORDS[LO] === 0) return -1;
  // the decimal exponent of a's first digit, from the binary one (then corrected)
  let e10 = Math.floor(e2 * 0.30102999566398114);
  if (e10 >= -4 && e10 < 16 && a >= DECADE[e10 + 5]!) e10++;
  let xh = 0;
  let xl = 0;
  let f = 0;
  let k = 0;
  for (let tries = 0; ; tries++) {
    k = 16 - e10;
    if (tries === 3 || k < 0 || k > 22) return -1;
    // Dekker: P + E = a * 10^k exactly
    const c = SPLIT * a;
    const ah = c - (c - a);
    const al = a - ah;
    const th = POW10_HI[k]!;
    const tl = POW10_LO[k]!;
    const P = a * POW10[k]!;
    const E = ah * th - P + ah * tl + al * th + al * tl;
    // P >= 2^53 is an integer: P = xh * 1e9 + r exactly (xh * 1e9 is exact: 1e9 = 2^9 * 5^9)
    xh = Math.floor(P / 1e9);
    let r = P - xh * 1e9;
    if (r < 0) {
      xh -= 1;
      r += 1e9;
    } else if (r >= 1e9) {
      xh += 1;
      r -= 1e9;
    }
    const fe = Math.floor(E);
    f = E - fe;
    xl = r + fe;
    if (xl < 0) {
      xh -= 1;
      xl += 1e9;
    } else if (xl >= 1e9) {
      xh += 1;
      xl -= 1e9;
    }
    if (xh < 1e7) e10 -= 1;
    else if (xh >= 1e8) e10 += 1;
    else break;
  }
  // H = 2^(e2 - 53) * 10^k, exact
  WORDS[LO] = 0;
  WORDS[HI] = (e2 - 53 + 1023) << 20;
  const H = VALUE[0]! * POW10[k]!;
  // X's 17 digits: xh's 8 and xl's 9
  putPairs(0, xh, 4);
  const top = (xl / 1e8) | 0;
  DIGITS[8] = 48 + top;
  const low = xl - top * 1e8;
  putPairs(9, low, 4);
  // multiples of 10 and of 100 inside (x - H, x + H): R = X mod 10^j, below X - R, above X - R + 10^j
  const r2 = low % 100;
  const r1 = r2 % 10;
  let below1 = false;
  let above1 = false;
  {
    const d = r1 + f - H;
    if (d > -NEAR && d < NEAR) return -1;
    below1 = d < 0;
    const e = 10 - r1 - f - H;
    if (e > -NEAR && e < NEAR) return -1;
    above1 = e < 0;
  }
  // the number of digits kept: 17 - j
  let keep = 17;
  if (below1 || above1) {
    let below2 = false;
    let above2 = false;
    if (r2 < 12) {
      const d = r2 + f - H;
      if (d > -NEAR && d < NEAR) return -1;
      below2 = d < 0;
    } else if (r2 > 87) {
      const d = 100 - r2 - f - H;
      if (d > -NEAR && d < NEAR) return -1;
      above2 = d < 0;
    }
    if (below2 || above2) {
      // a multiple of 10^j for j > 2 too while the digit before the last two is 0 (below) or 9 (above)
      const skip = below2 ? 48 : 57;
      keep = 15;
      while (keep > 1 && DIGITS[keep - 1] === skip) keep--;
      if (above2 && !bump(keep - 1)) return -1;
    } else {
      keep = 16;
      let up = above1;
      if (below1 && above1) {
        // both inside (10 < 2H): the closer one
        const d = 2 * (r1 + f) - 10;
        if (d > -NEAR && d < NEAR) return -1;
        up = d > 0;
      }
      if (up && !bump(15)) return -1;
    }
  } else {
    // the integer nearest to x (|x - D| <= 1/2 < H: always inside)
    if (f > 0.5 - NEAR && f < 0.5 + NEAR) return -1;
    if (f > 0.5 && !bump(16)) return -1;
  }
  let n = keep;
  while (n > 1 && DIGITS[n - 1] === 48) n--;
  if (v < 0) b[p++] = 45;
  if (e10 < 0) {
    // 0.000ddd
    b[p++] = 48;
    b[p++] = 46;
    for (let i = -1; i > e10; i--) b[p++] = 48;
    for (let i = 0; i < n; i++) b[p++] = DIGITS[i]!;
    return p;
  }
  const whole = e10 + 1;
  if (n <= whole) {
    for (let i = 0; i < n; i++) b[p++] = DIGITS[i]!;
    for (let i = n; i < whole; i++) b[p++] = 48;
    return p;
  }
  for (let i = 0; i < whole; i++) b[p++] = DIGITS[i]!;
  b[p++] = 46;
  for (let i = whole; i < n; i++) b[p++] = DIGITS[i]!;
  return p;
}
