// Synthetic LZ4 blocks: random sequences (short and long literal runs, short and long matches,
// offsets that are fine, 0, or reach before the output start) with random block endings, so the
// decoders meet every end-of-block rule, not only what a compressor emits.
import { int, type Rng } from "./corpus.js";

export function synthBlock(r: Rng): { src: Uint8Array; size: number } {
  const b: number[] = [];
  let op = 0;
  const lenBytes = (n: number): void => {
    while (n >= 255) {
      b.push(255);
      n -= 255;
    }
    b.push(n);
  };
  const nseq = int(r, 0, r() < 0.5 ? 6 : 60);
  for (let s = 0; s < nseq; s++) {
    const lit = r() < 0.1 ? int(r, 15, 600) : int(r, 0, 20);
    const ml = r() < 0.1 ? int(r, 19, 700) : int(r, 4, 22);
    b.push((Math.min(lit, 15) << 4) | Math.min(ml - 4, 15));
    if (lit >= 15) lenBytes(lit - 15);
    for (let i = 0; i < lit; i++) b.push(int(r, 0, 255));
    op += lit;
    const off = r() < 0.03 ? 0 : r() < 0.05 ? op + int(r, 1, 5) : int(r, 1, Math.max(1, Math.min(op, 65535)));
    b.push(off & 255, off >> 8);
    if (ml - 4 >= 15) lenBytes(ml - 4 - 15);
    op += ml;
  }
  if (r() < 0.9) {
    const tail = r() < 0.8 ? int(r, 0, 30) : int(r, 0, 400);
    b.push(Math.min(tail, 15) << 4);
    if (tail >= 15) lenBytes(tail - 15);
    for (let i = 0; i < tail; i++) b.push(int(r, 0, 255));
    op += tail;
  }
  return { src: Uint8Array.from(b), size: op };
}
