// The stored datums of one row, packed in one reused byte buffer (no array per value): datum i
// is buf[off[i], off[i] + len[i]), len -1 for SQL NULL. The loader encodes each row's fields
// into it (row-datums.ts), forms the heap tuple (heap-append.ts) and the index tuples
// (index-load.ts) from it; the rare paths that want one array per datum (TOAST, expressions)
// get them from datums().
import { grown } from "../../formats/schema/bytes.js";

export class RowValues {
  buf = new Uint8Array(1024);
  /** bytes of buf in use */
  used = 0;
  /** number of datums */
  n = 0;
  off: Int32Array;
  len: Int32Array;

  constructor(natts: number) {
    this.off = new Int32Array(Math.max(1, natts));
    this.len = new Int32Array(Math.max(1, natts));
  }

  /** Start a row of `n` datums. */
  reset(n: number): void {
    if (n > this.off.length) {
      this.off = new Int32Array(n);
      this.len = new Int32Array(n);
    }
    this.n = n;
    this.used = 0;
  }

  /** Room for `bound` more bytes at `used`; returns the buffer (it may have moved). */
  reserve(bound: number): Uint8Array {
    if (this.used + bound > this.buf.length) this.buf = grown(this.buf, this.used + bound, this.used);
    return this.buf;
  }

  /** Datum i is the `n` bytes written at `used`. */
  keep(i: number, n: number): void {
    this.off[i] = this.used;
    this.len[i] = n;
    this.used += n;
  }

  setNull(i: number): void {
    this.off[i] = 0;
    this.len[i] = -1;
  }

  /** Datum i is a copy of d (null: SQL NULL). */
  setBytes(i: number, d: Uint8Array | null): void {
    if (d === null) return this.setNull(i);
    const b = this.reserve(d.length);
    if (d.length <= 32) for (let k = 0, p = this.used; k < d.length; k++) b[p + k] = d[k];
    else b.set(d, this.used);
    this.keep(i, d.length);
  }

  isNull(i: number): boolean {
    return this.len[i] < 0;
  }

  /** Datum i as its own array (a copy), null for SQL NULL. */
  datum(i: number): Uint8Array | null {
    return this.len[i] < 0 ? null : this.buf.slice(this.off[i], this.off[i] + this.len[i]);
  }

  /** Every datum as its own array (copies). */
  datums(): (Uint8Array | null)[] {
    const out: (Uint8Array | null)[] = new Array(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.datum(i);
    return out;
  }

  /** Load datums given as arrays (copied). */
  setAll(datums: readonly (Uint8Array | null)[]): this {
    this.reset(datums.length);
    for (let i = 0; i < datums.length; i++) this.setBytes(i, datums[i]);
    return this;
  }
}
