// PlainChunkTable (a TOAST relation's plain chunks by chunk_id, in typed arrays) returns each
// value's chunks in the TOAST index's order (chunk_seq, NULL last, then TID), with the facts
// recorded for each, as a plain map of arrays sorted by that order would: chunks added in scan
// order, out of order, with NULL and repeated chunk_seq, for many values at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PlainChunkTable, type ChunkFacts } from "../../verify/toast/chunk-table.js";

let seed = 4242;
const rnd = (n: number): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};

const indexOrder = (a: ChunkFacts, b: ChunkFacts): number => {
  if (a.seq === null || b.seq === null) return a.seq === b.seq ? a.key - b.key : a.seq === null ? 1 : -1;
  return a.seq - b.seq || a.key - b.key;
};

test("PlainChunkTable groups chunks by value in TOAST index order", () => {
  let checked = 0;
  for (let round = 0; round < 30; round++) {
    const t = new PlainChunkTable();
    const ref = new Map<number, ChunkFacts[]>();
    const values = 1 + rnd(400);
    let key = 1 + rnd(100);
    for (let v = 0; v < values; v++) {
      // one value's chunks, mostly in order, sometimes shuffled or damaged
      const id = 16384 + rnd(1_000_000);
      const n = 1 + rnd(rnd(10) === 0 ? 300 : 6);
      const seqs = Array.from({ length: n }, (_, i) => i as number | null);
      if (rnd(4) === 0) for (let i = n - 1; i > 0; i--) { const j = rnd(i + 1); [seqs[i], seqs[j]] = [seqs[j], seqs[i]]; }
      if (rnd(8) === 0) seqs[rnd(n)] = null;
      if (rnd(8) === 0) seqs[rnd(n)] = seqs[rnd(n)];
      for (const seq of seqs) {
        key += 1 + rnd(3) * 65536;
        const f: ChunkFacts = { seq, key: rnd(5) === 0 ? key * 7 + 3 : key, fields: rnd(10) === 0 ? 1 + rnd(3) : 0, dataLen: rnd(2000), header: rnd(2) ? 0 : 0xfffffff0 + rnd(16) };
        t.add(id, f.seq, f.key, f.fields, f.dataLen, f.header);
        ref.set(id, [...(ref.get(id) ?? []), f]);
      }
    }
    t.finish();
    assert.equal(t.size, ref.size);
    for (const [id, want] of ref) {
      assert.deepEqual(t.facts(id), [...want].sort(indexOrder), `round ${round}, value ${id}`);
      checked++;
    }
    assert.equal(t.run(1), undefined);
    assert.deepEqual([...t.valueIds()].sort(), [...ref.keys()].sort());
  }
  assert.ok(checked > 1000, `${checked} values checked`);
});
