// The plain chunks of one TOAST relation, by chunk_id, in the order the TOAST index returns them
// (chunk_seq, then TID; NULL chunk_seq last). Kept in typed arrays, not an object per chunk and
// an array per value: the table lives from the TOAST relation's scan to the end of its parent's
// check, and hundreds of thousands of small objects that long-lived were copied by every
// scavenge and promoted (a tenth of a TOAST unit's time went to the GC).

/** what is recorded of one chunk tuple */
export interface ChunkFacts {
  /** chunk_seq, or null when the tuple has it NULL */
  seq: number | null;
  /** the chunk's place: block * 65536 + item */
  key: number;
  /** what chunkFields makes of the tuple (CHUNK_OK ... in toast-rel.ts) */
  fields: number;
  /** chunk_data's payload length (fields = CHUNK_OK) */
  dataLen: number;
  /** the byte or word the "invalid varlena header" messages print */
  header: number;
}

/** The chunks of one value: positions [from, to) of its table's order. */
export interface ChunkRun {
  table: PlainChunkTable;
  from: number;
  to: number;
}

const SEQ_NULL = 0x80;
const FIELDS = 0x7f;

export class PlainChunkTable {
  private n = 0;
  private cap = 0;
  private seqs = new Int32Array(0);
  private keys = new Float64Array(0);
  private dataLens = new Int32Array(0);
  private headers = new Uint32Array(0);
  /** fields, | SEQ_NULL */
  private meta = new Uint8Array(0);
  /** group (value) number of each chunk, numbered as values are first seen */
  private groups = new Int32Array(0);
  private readonly groupOf = new Map<number, number>();
  /** after finish(): chunk numbers in index order, and where each group starts in it */
  private order = new Int32Array(0);
  private starts = new Int32Array(1);
  private finished = false;

  /** values (distinct chunk_ids) */
  get size(): number {
    return this.groupOf.size;
  }

  add(id: number, seq: number | null, key: number, fields: number, dataLen: number, header: number): void {
    if (this.finished) throw new Error("PlainChunkTable.add after finish");
    if (this.n === this.cap) this.grow();
    const i = this.n++;
    let g = this.groupOf.get(id);
    if (g === undefined) this.groupOf.set(id, (g = this.groupOf.size));
    this.seqs[i] = seq ?? 0;
    this.keys[i] = key;
    this.dataLens[i] = dataLen;
    this.headers[i] = header;
    this.meta[i] = fields | (seq === null ? SEQ_NULL : 0);
    this.groups[i] = g;
  }

  /** Group the chunks by value (a counting sort on the group numbers), each group in index order. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    const ng = this.groupOf.size;
    const starts = new Int32Array(ng + 1);
    for (let i = 0; i < this.n; i++) starts[this.groups[i] + 1]++;
    for (let g = 0; g < ng; g++) starts[g + 1] += starts[g];
    const fill = starts.slice(0, ng);
    const order = new Int32Array(this.n);
    for (let i = 0; i < this.n; i++) order[fill[this.groups[i]]++] = i;
    this.order = order;
    this.starts = starts;
    // chunks are nearly always stored in chunk_seq order: sort only the groups that are not
    for (let g = 0; g < ng; g++) {
      const from = starts[g];
      const to = starts[g + 1];
      let sorted = true;
      for (let k = from + 1; k < to && sorted; k++) if (this.cmp(order[k - 1], order[k]) > 0) sorted = false;
      if (!sorted) order.set(Array.from(order.subarray(from, to)).sort((a, b) => this.cmp(a, b)), from);
    }
  }

  /** The chunks of value `id`, or undefined when it has none. */
  run(id: number): ChunkRun | undefined {
    if (!this.finished) throw new Error("PlainChunkTable.run before finish");
    const g = this.groupOf.get(id);
    return g === undefined ? undefined : { table: this, from: this.starts[g], to: this.starts[g + 1] };
  }

  /** Every value id, in the order first seen. */
  valueIds(): IterableIterator<number> {
    return this.groupOf.keys();
  }

  // the chunk at position k of the order
  seqAt(k: number): number | null {
    const i = this.order[k];
    return this.meta[i] & SEQ_NULL ? null : this.seqs[i];
  }
  keyAt(k: number): number {
    return this.keys[this.order[k]];
  }
  fieldsAt(k: number): number {
    return this.meta[this.order[k]] & FIELDS;
  }
  dataLenAt(k: number): number {
    return this.dataLens[this.order[k]];
  }
  headerAt(k: number): number {
    return this.headers[this.order[k]];
  }

  /** The chunks of value `id` as objects (tests, dumps). */
  facts(id: number): ChunkFacts[] | undefined {
    const r = this.run(id);
    if (!r) return undefined;
    const out: ChunkFacts[] = [];
    for (let k = r.from; k < r.to; k++) out.push({ seq: this.seqAt(k), key: this.keyAt(k), fields: this.fieldsAt(k), dataLen: this.dataLenAt(k), header: this.headerAt(k) });
    return out;
  }

  /** TOAST index order: chunk_seq (NULL last), then TID. */
  private cmp(a: number, b: number): number {
    const an = this.meta[a] & SEQ_NULL;
    const bn = this.meta[b] & SEQ_NULL;
    if (an || bn) return an && bn ? this.keys[a] - this.keys[b] : an ? 1 : -1;
    return this.seqs[a] - this.seqs[b] || this.keys[a] - this.keys[b];
  }

  private grow(): void {
    const cap = Math.max(1024, this.cap * 2);
    const more = <T extends Uint32Array | Int32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a as never);
      return b;
    };
    this.seqs = more(this.seqs, (k) => new Int32Array(k));
    this.keys = more(this.keys, (k) => new Float64Array(k));
    this.dataLens = more(this.dataLens, (k) => new Int32Array(k));
    this.headers = more(this.headers, (k) => new Uint32Array(k));
    this.meta = more(this.meta, (k) => new Uint8Array(k));
    this.groups = more(this.groups, (k) => new Int32Array(k));
    this.cap = cap;
  }
}
