// The byte-minimal BTP_PREFIX page coding (new-formats.md §2.2-2.4; policy `lead`): over a page's
// items in order, choose where groups start (each group's anchor is the key of the member that
// starts it, §2.2) and each group's lead, so that C - 4 (the directory's and the data items'
// MAXALIGNed lengths with their line pointers) is as small as the format allows.
//
// Exact dynamic programming over group boundaries: best[k][r] = the least cost of coding the first
// k codable items (posting tuples are never coded and belong to no group: they only add their
// fixed size) where r = (sum over groups of 4 + anchor_len) mod 8, which is what the directory's
// MAXALIGN depends on. A group [s, k) anchored at item s costs 4 + |K_s| directory bytes plus
// min over lead L of sum_i cost(i, s, L). That minimum is exact over every lead 0..min(255,
// |K_s| - 1) (lead = anchor_len shares nothing and is never better than lead 0). Each item's cost
// is its coded MAXALIGNed length + 4 with the shorter of its two codings (share the longest run
// anchor[L..] allows, or nshared = 0), as encodeCodedItem writes it.
//
// The planner is incremental (push one item at a time, ask the cost of every prefix), so a
// rebuild can fill a page in coded sizes: the cost of a prefix never decreases as items are added.
// The work is quadratic in the page's items (every item may start a group) times the leads tried;
// a start whose members share only a first run (no byte again after the first mismatch) keeps
// saved[0] alone, since lead 0 is then the best; once a member shares a later run it keeps saved[L]
// only at lead 0 and the leads where some member's later run starts (the first best lead is one of
// them), with each member's runs recorded to value a new such lead, and every saved[L] only past
// tuning.maxCandidates of them or when the first later run is short (then updating each lead is
// cheaper); the DP visits only the residues a row has reached. The planner keeps its own
// copy of every key at a word boundary and finds runs of equal bytes four bytes at a time.
// with a finite margin, group starts that fall far behind are dropped (policy lead: optimalPlanner
// in prefix-policy.ts). test/nbtree/prefix-optimal.test.ts checks both against exhaustive search.
import { IndexAttributeBitMapData, INDEX_NULL_MASK, tInfoRaw } from "./index-tuple.js";
import { codableKey, SizeOfCodedItemHeader, SizeOfPrefixDirHeader, SizeOfPrefixGroupEntry, type PrefixGroup } from "./prefix.js";
import { maxAlign } from "../page/page.js";
import { grown } from "../schema/bytes.js";

/** Largest lead a group entry can hold (u8). */
const MAX_LEAD = 0xff;
const INF = 0x7fffffff;
/** How a start keeps its savings; any choice gives the same plan (tests try several). */
export interface PlannerTuning {
  /** candidate leads a start keeps before it keeps every saved[L] (addByCandidates) */
  maxCandidates: number;
  /** a start whose first later run saves at fewer leads than this keeps every saved[L] at once */
  shortRun: number;
}
const TUNING: PlannerTuning = { maxCandidates: 8, shortRun: 16 };
/** (20 + r) rounded up to MAXALIGN, minus 20 - r: the directory's padding for a residue r. */
const DIR_PAD = Array.from({ length: 8 }, (_, r) => maxAlign(SizeOfPrefixDirHeader + r) - SizeOfPrefixDirHeader - r);

interface Codable {
  key: Uint8Array;
  /** coded header: 14, or 18 with the original's null bitmap */
  head: number;
  /** key length without trailing zero bytes (what a coding that shares nothing stores) */
  trimmed: number;
  /** where the planner's copy of the key starts in its key arena (a multiple of 4) */
  ko: number;
}

/** One open group start s: what its members save per lead, saved[L] = arena[at + L] for L < nL. */
interface Start {
  item: number;
  /** the anchor: the key of item */
  anchor: Uint8Array;
  /** the anchor's copy in the key arena */
  ao: number;
  /**
   * saved[L] is kept for every lead; until a member shares a later run (after a mismatch) only
   * saved[0] is, and each member's first run is recorded (recs) instead (addMember)
   */
  full: boolean;
  /** the last of this start's run records, -1 for none */
  rec: number;
  /** candidate leads kept (lead, saved) at cands[ca..], 0 while only first runs were seen */
  nc: number;
  ca: number;
  at: number;
  nL: number;
  /** 4 + anchor_len: what the group's directory entry and anchor add */
  inc: number;
  /** the margin this start may fall behind the best coding and still be continued */
  keep: number;
  /** lcp(anchor, the last member added) */
  lcp: number;
  /** the members' plain costs summed, and the lead that saves most on them (the first such) */
  plainSum: number;
  bestSaved: number;
  bestLead: number;
  /** the least cost of the prefix so far with its last group started here */
  via: number;
}

/** The plan of a page prefix: groups and each tuple's group (-1 for posting tuples). */
export interface OptimalPlan {
  groups: PrefixGroup[];
  groupOf: number[];
  /** sum of MAXALIGN(coded length) over data items + the directory's length (no line pointers) */
  bytes: number;
}

const trimmedLength = (k: Uint8Array): number => {
  let e = k.length;
  while (e > 0 && k[e - 1] === 0) e--;
  return e;
};

/** Incremental exact planner; see the file comment. */
export class OptimalPagePlanner {
  private readonly tuples: Uint8Array[] = [];
  /** index into `codables` of each tuple, -1 for posting tuples */
  private readonly codableOf: number[] = [];
  private readonly codables: Codable[] = [];
  /** codables[0, ncodables) are this page's; the objects (and those of pool) are reused page after page */
  private ncodables = 0;
  private readonly pool: Start[] = [];
  private readonly starts: Start[] = [];
  /** best[k * 8 + r] for k codable items; back pointers beside it */
  private best = new Int32Array(8 * 64).fill(INF);
  private fromStart = new Int32Array(8 * 64);
  private fromLead = new Int32Array(8 * 64);
  private fromR = new Int8Array(8 * 64);
  /** reach[k]: bit r set when best[k * 8 + r] is finite (the residues worth continuing from) */
  private reach = new Uint8Array(64);
  /** MAXALIGNed sizes of posting tuples so far */
  private postingBytes = 0;
  /** running totals per prefix length (tuples), for bytesOf(n) */
  private readonly prefixBytes: number[] = [0];
  /** every start's saved[], one after another (starts are never reopened, so the arena only grows until reset) */
  private arena = new Int32Array(1 << 14);
  private arenaUsed = 0;
  /** saving runs recorded for starts not yet full: 5 ints each (previous record, lo, hi, base, plain) */
  private recs = new Int32Array(1 << 14);
  private recsUsed = 0;
  /** every start's candidate leads, 2 * tuning.maxCandidates ints per start */
  private cands = new Int32Array(1 << 12);
  /** the runs of the member being added (lo, hi, base) */
  private memberRuns = new Int32Array(3 * 64);
  private bestS = 0;
  private bestL = 0;
  /** lcp of the last two codable keys */
  private lcpPrev = 0;
  /**
   * every codable key of the page copied at a multiple of 4, so that runs of equal bytes are found
   * four bytes at a time (keys32 views the same bytes)
   */
  private keys = new Uint8Array(1 << 14);
  private keys32 = new Int32Array(this.keys.buffer);
  private keysUsed = 0;

  /** results of addMember: the group's best lead and its members' summed cost */
  private memberLead = 0;
  private memberCost = 0;

  /**
   * margin: how far behind the best coding of a prefix (in bytes) a group start may fall and still
   * be continued. Infinity gives the exact optimum; a finite margin bounds the work on large pages
   * (a start that far behind would need its later members to share that much more than any other
   * grouping lets them).
   */
  constructor(
    readonly margin = Infinity,
    /** the largest lead tried (at most 255, the exact search) */
    readonly leadLimit = MAX_LEAD,
    /** added to margin per byte a new group with this start's anchor would cost */
    readonly anchorMargin = 0,
    readonly tuning: PlannerTuning = TUNING,
  ) {
    this.best[0] = 0;
    this.reach[0] = 1;
  }

  /** Forget every tuple: the planner starts a new page (its buffers are kept). */
  reset(): void {
    this.tuples.length = 0;
    this.codableOf.length = 0;
    this.ncodables = 0;
    this.starts.length = 0;
    this.best.fill(INF, 0, Math.min(this.best.length, 8 * 2));
    this.best[0] = 0;
    this.reach[0] = 1;
    this.postingBytes = 0;
    this.prefixBytes.length = 1;
    this.arenaUsed = 0;
    this.recsUsed = 0;
    this.keysUsed = 0;
  }

  get length(): number {
    return this.tuples.length;
  }

  /** Add the next tuple of the page. */
  push(tuple: Uint8Array): void {
    const key = codableKey(tuple);
    this.tuples.push(tuple);
    if (!key) {
      this.codableOf.push(-1);
      this.postingBytes += maxAlign(tuple.length);
      this.prefixBytes.push(this.prefixBytes[this.prefixBytes.length - 1]! + maxAlign(tuple.length));
      return;
    }
    const head = SizeOfCodedItemHeader + (tInfoRaw(tuple) & INDEX_NULL_MASK ? IndexAttributeBitMapData.size : 0);
    const ko = this.keysUsed;
    // room for the key, padded to a word, and one word more (a scan may read a word past the end)
    if (ko + key.length + 8 > this.keys.length) {
      const n = new Uint8Array(Math.max(this.keys.length * 2, ko + key.length + 8));
      n.set(this.keys.subarray(0, ko));
      this.keys = n;
      this.keys32 = new Int32Array(n.buffer);
    }
    this.keys.set(key, ko);
    this.keysUsed = (ko + key.length + 3) & ~3;
    const k = this.ncodables++; // this item's codable index; the prefix grows to k + 1
    let c = this.codables[k];
    if (c) {
      c.key = key;
      c.head = head;
      c.trimmed = trimmedLength(key);
      c.ko = ko;
    } else c = this.codables[k] = { key, head, trimmed: trimmedLength(key), ko };
    this.codableOf.push(k);
    const nL = Math.max(1, Math.min(this.leadLimit, key.length - 1) + 1);
    this.arena = grown(this.arena, this.arenaUsed + nL, this.arenaUsed);
    this.arena[this.arenaUsed] = 0;
    const inc = SizeOfPrefixGroupEntry + key.length;
    // lcp(previous codable key, this key): with a start's lcp(anchor, previous key) it gives the
    // start's lcp(anchor, this key) without comparing bytes (addMember)
    const prev = k > 0 ? this.codables[k - 1]! : null;
    this.lcpPrev = prev ? this.equalTo(prev.ko, ko, 0, prev.key.length < key.length ? prev.key.length : key.length) : 0;
    let st = this.pool[k];
    if (st) {
      st.item = k;
      st.anchor = key;
      st.ao = ko;
      st.full = false;
      st.rec = -1;
      st.nc = 0;
      st.ca = 2 * this.tuning.maxCandidates * k;
      st.at = this.arenaUsed;
      st.nL = nL;
      st.inc = inc;
      st.keep = this.margin + this.anchorMargin * inc;
      st.lcp = 0;
      st.plainSum = 0;
      st.bestSaved = 0;
      st.bestLead = 0;
      st.via = 0;
    } else {
      st = this.pool[k] = { item: k, anchor: key, ao: ko, full: false, rec: -1, nc: 0, ca: 2 * this.tuning.maxCandidates * k, at: this.arenaUsed, nL, inc, keep: this.margin + this.anchorMargin * inc, lcp: 0, plainSum: 0, bestSaved: 0, bestLead: 0, via: 0 };
    }
    this.starts.push(st);
    this.arenaUsed += nL;
    const nc = 2 * this.tuning.maxCandidates;
    if (nc * (k + 1) > this.cands.length) this.cands = grown(this.cands, nc * (k + 1), nc * k);
    this.grow(k + 2);
    const best = this.best;
    const base = (k + 1) * 8;
    for (let r = 0; r < 8; r++) best[base + r] = INF;
    const reach = this.reach;
    let reached = 0;
    let kept = 0;
    let bestHere = INF;
    for (const st of this.starts) {
      this.addMember(st, c);
      const s = st.item;
      const inc = st.inc;
      const add = inc + this.memberCost;
      let via = INF;
      // the finite residues of row s, in increasing order (ties go to the first, as before)
      for (let bits = reach[s]!; bits !== 0; bits &= bits - 1) {
        const r = 31 - Math.clz32(bits & -bits);
        const b = best[s * 8 + r]!;
        const r2 = (r + inc) & 7;
        const v = b + add;
        if (v < via) via = v;
        if (v < best[base + r2]!) {
          best[base + r2] = v;
          reached |= 1 << r2;
          this.fromStart[base + r2] = s;
          this.fromLead[base + r2] = this.memberLead;
          this.fromR[base + r2] = r;
        }
      }
      st.via = via;
      if (via < bestHere) bestHere = via;
    }
    reach[k + 1] = reached;
    // a group start whose every continuation is already more than `margin` bytes behind the best
    // coding of this prefix is dropped (never, with margin Infinity: the search is then exact)
    for (const st of this.starts) if (st.via - bestHere <= st.keep) this.starts[kept++] = st;
    this.starts.length = kept;
    this.prefixBytes.push(this.postingBytes + this.codedBytes(k + 1));
  }

  /** What the first n pushed tuples take coded (MAXALIGNed items + directory, no line pointers). */
  bytesOf(n: number): number {
    return this.prefixBytes[n]!;
  }

  /** MAXALIGNed coded items + directory for the first k codable items (0 when k = 0). */
  private codedBytes(k: number): number {
    if (k === 0) return 0;
    let v = INF;
    for (let r = 0; r < 8; r++) {
      const b = this.best[k * 8 + r]!;
      if (b !== INF && b + DIR_PAD[r]! < v) v = b + DIR_PAD[r]!;
    }
    return v + SizeOfPrefixDirHeader;
  }

  /**
   * Add item c to group st; sets memberLead and memberCost (the group's best lead: the first with
   * the least summed cost; that cost). For a lead L < |K| the item shares anchor[L, p) with p the
   * first position >= L where K and the anchor differ (or the end of the shorter): coded, it keeps
   * L + what follows p of K without trailing zeros, and takes the shorter of that and its plain
   * coding (nshared = 0). Leads >= |K| and leads at a mismatch share nothing.
   * Kept as savings: the group's cost with lead L is plainSum - saved[L], where saved[L] sums
   * plain - cost over the members, so a member only touches the leads where it saves (the runs of
   * matching bytes, up to where alignment eats the saving), and the best lead moves only to a lead
   * just touched (savings only grow; ties go to the smaller lead, as a first minimum would).
   */
  private addMember(st: Start, c: Codable): void {
    const saved = this.arena;
    const at = st.at;
    const A = st.anchor;
    const K = c.key;
    const nL = st.nL;
    const kl = K.length;
    const head = c.head;
    const trimmed = c.trimmed;
    const plain = maxAlign(head + trimmed);
    const lim = kl < A.length ? kl : A.length;
    // leads that can save: L < |K|, and head + L <= plain - 8 (a coded length is at least
    // MAXALIGN(head + L) and must undercut plain by a MAXALIGN step); coded <= lim
    let coded = nL < kl ? nL : kl;
    if (coded > plain - 7 - head) coded = plain - 7 - head;
    let bestS = st.bestSaved;
    let bestL = st.bestLead;
    // lcp(A, K) from lcp(A, K') and lcp(K', K) for the previous member K': the smaller of the two
    // when they differ (the strings part there), else at least that much, compared on from there
    // (a start's first member is its anchor itself)
    let p = lim;
    if (A !== K) {
      const x = st.lcp;
      const y = this.lcpPrev;
      p = x < y ? x : y;
      if (x === y) p = this.equalTo(st.ao, c.ko, p, lim);
    }
    st.lcp = p;
    // the first run [0, p): leads L < e save plain - MAXALIGN(c0 + L) (cs < plain below plain - 7 - c0)
    const c0 = head + (trimmed > p ? trimmed - p : 0);
    let e = p < coded ? p : coded;
    if (e > plain - 7 - c0) e = plain - 7 - c0;
    if (st.full) {
      for (let L = 0; L < e; L++) {
        const v = (saved[at + L] += plain - ((c0 + L + 7) & ~7));
        if (v > bestS || (v === bestS && L < bestL)) {
          bestS = v;
          bestL = L;
        }
      }
      // the later runs [L, p) after a mismatch
      let L = p + 1; // lead p sits on a mismatch
      const ao = st.ao;
      const ko = c.ko;
      while (L < coded) {
        L = this.differentTo(ao, ko, L, coded);
        if (L >= coded) break;
        p = this.equalTo(ao, ko, L + 1, lim);
        const end = p < coded ? p : coded;
        const tail = trimmed > p ? trimmed - p : 0;
        for (; L < end; L++) {
          const cs = (head + L + tail + 7) & ~7;
          if (cs >= plain) break; // cs grows with L: no later lead of this run saves
          const v = (saved[at + L] += plain - cs);
          if (v > bestS || (v === bestS && L < bestL)) {
            bestS = v;
            bestL = L;
          }
        }
        L = p + 1;
      }
    } else {
      // this member's saving runs (lo, hi, base: it saves max(0, plain - MAXALIGN(base + L)) for
      // lo <= L < hi), the first run first, without touching a lead
      let nr = 0;
      let mr = this.memberRuns;
      if (e > 0) {
        mr[0] = 0;
        mr[1] = e;
        mr[2] = c0;
        nr = 1;
      }
      let L = p + 1;
      const ao = st.ao;
      const ko = c.ko;
      // the most leads one later run saves at
      let longest = 0;
      while (L < coded) {
        L = this.differentTo(ao, ko, L, coded);
        if (L >= coded) break;
        p = this.equalTo(ao, ko, L + 1, lim);
        const end = p < coded ? p : coded;
        const base = head + (trimmed > p ? trimmed - p : 0);
        if (L < end && ((base + L + 7) & ~7) < plain) {
          const n = (end < plain - 7 - base ? end : plain - 7 - base) - L;
          if (n > longest) longest = n;
          if (3 * nr + 3 > mr.length) mr = this.memberRuns = grown(mr, 3 * nr + 3, 3 * nr);
          mr[3 * nr] = L;
          mr[3 * nr + 1] = end;
          mr[3 * nr + 2] = base;
          nr++;
        }
        L = p + 1;
      }
      if (st.nc === 0 && (nr === 0 || (nr === 1 && e > 0))) {
        // first runs only so far: a saving that never grows with L, lead 0 is the best
        if (nr) {
          const v = (saved[at] += plain - ((c0 + 7) & ~7));
          if (v > bestS) {
            bestS = v;
            bestL = 0;
          }
          this.record(st, 0, e, c0, plain);
        }
      } else if (st.nc === 0 && longest < this.tuning.shortRun) {
        // the first later run saves at few leads: updating each is cheaper than candidates
        this.makeFull(st, nr, plain);
        bestS = this.bestS;
        bestL = this.bestL;
      } else if (nr > 0) {
        this.addByCandidates(st, nr, plain);
        bestS = this.bestS;
        bestL = this.bestL;
      }
    }
    st.plainSum += plain;
    st.bestSaved = bestS;
    st.bestLead = bestL;
    this.memberLead = bestL;
    this.memberCost = st.plainSum - bestS;
  }

  /** Record one saving run of a member of st (st not full): 5 ints (previous record, lo, hi, base, plain). */
  private record(st: Start, lo: number, hi: number, base: number, plain: number): void {
    const r = this.recsUsed;
    if (r + 5 > this.recs.length) this.recs = grown(this.recs, r + 5, r);
    const recs = this.recs;
    recs[r] = st.rec;
    recs[r + 1] = lo;
    recs[r + 2] = hi;
    recs[r + 3] = base;
    recs[r + 4] = plain;
    st.rec = r;
    this.recsUsed = r + 5;
  }

  /** What the recorded runs of st's members save at lead L. */
  private recordedAt(st: Start, L: number): number {
    const recs = this.recs;
    let v = 0;
    for (let r = st.rec; r >= 0; r = recs[r]!) {
      if (L < recs[r + 1]! || L >= recs[r + 2]!) continue;
      const d = recs[r + 4]! - ((recs[r + 3]! + L + 7) & ~7);
      if (d > 0) v += d;
    }
    return v;
  }

  /**
   * Add a member with a later saving run (memberRuns, nr of them, sorted) to a start that is not
   * full: saved[L] is kept only at the candidate leads, lead 0 and every lead where a member's
   * later run starts, since between two candidates saved[] never grows with L (each member's
   * saving falls or stays within a run and is 0 outside), so the first best lead is a candidate.
   * Past tuning.maxCandidates the start becomes full (every saved[L] from the records). Sets bestS and
   * bestL.
   */
  private addByCandidates(st: Start, nr: number, plain: number): void {
    const mr = this.memberRuns;
    const cands = this.cands;
    const ca = st.ca;
    if (st.nc === 0) {
      cands[ca] = 0;
      cands[ca + 1] = this.arena[st.at]!;
      st.nc = 1;
    }
    // new candidates: the starts of this member's later runs, valued over the members before it
    for (let q = 0; q < nr; q++) {
      const lo = mr[3 * q]!;
      if (lo === 0) continue;
      let n = st.nc;
      let i = 0;
      while (i < n && cands[ca + 2 * i]! < lo) i++;
      if (i < n && cands[ca + 2 * i] === lo) continue;
      if (n === this.tuning.maxCandidates) return this.makeFull(st, nr, plain);
      for (let j = n; j > i; j--) {
        cands[ca + 2 * j] = cands[ca + 2 * j - 2]!;
        cands[ca + 2 * j + 1] = cands[ca + 2 * j - 1]!;
      }
      cands[ca + 2 * i] = lo;
      cands[ca + 2 * i + 1] = this.recordedAt(st, lo);
      st.nc = ++n;
    }
    // this member's saving at every candidate (runs and candidates both in lead order)
    let bestS = -1;
    let bestL = 0;
    let q = 0;
    for (let i = 0; i < st.nc; i++) {
      const L = cands[ca + 2 * i]!;
      while (q < nr && mr[3 * q + 1]! <= L) q++;
      let v = cands[ca + 2 * i + 1]!;
      if (q < nr && mr[3 * q]! <= L) {
        const d = plain - ((mr[3 * q + 2]! + L + 7) & ~7);
        if (d > 0) cands[ca + 2 * i + 1] = v += d;
      }
      if (v > bestS) {
        bestS = v;
        bestL = L;
      }
    }
    for (let i = 0; i < nr; i++) this.record(st, mr[3 * i]!, mr[3 * i + 1]!, mr[3 * i + 2]!, plain);
    this.bestS = bestS;
    this.bestL = bestL;
  }

  /** Make st full: every saved[L] from its records and this member's runs; sets bestS and bestL (the first best lead). */
  private makeFull(st: Start, nr: number, plain: number): void {
    for (let i = 0; i < nr; i++) this.record(st, this.memberRuns[3 * i]!, this.memberRuns[3 * i + 1]!, this.memberRuns[3 * i + 2]!, plain);
    const saved = this.arena;
    const recs = this.recs;
    const at = st.at;
    saved.fill(0, at, at + st.nL);
    for (let r = st.rec; r >= 0; r = recs[r]!) {
      const hi = recs[r + 2]!;
      const base = recs[r + 3]!;
      const pl = recs[r + 4]!;
      for (let L = recs[r + 1]!; L < hi; L++) {
        const d = pl - ((base + L + 7) & ~7);
        if (d <= 0) break;
        saved[at + L] += d;
      }
    }
    let bestS = saved[at]!;
    let bestL = 0;
    for (let L = 1; L < st.nL; L++) {
      if (saved[at + L]! > bestS) {
        bestS = saved[at + L]!;
        bestL = L;
      }
    }
    st.full = true;
    this.bestS = bestS;
    this.bestL = bestL;
  }

  /**
   * The first position q in [p, lim) where the keys at arena offsets a and b differ, or lim:
   * four bytes at a time (both offsets are multiples of 4, so position p is a word boundary of
   * both when p is one).
   */
  private equalTo(a: number, b: number, p: number, lim: number): number {
    const k32 = this.keys32;
    if (p >= lim) return lim;
    const q = p & 3;
    if (q) {
      // the rest of p's word
      const w = (k32[(a + p) >> 2]! ^ k32[(b + p) >> 2]!) >>> (q << 3);
      if (w !== 0) {
        p += (31 - Math.clz32(w & -w)) >> 3;
        return p < lim ? p : lim;
      }
      p += 4 - q;
    }
    while (p < lim) {
      const w = k32[(a + p) >> 2]! ^ k32[(b + p) >> 2]!;
      if (w !== 0) {
        p += (31 - Math.clz32(w & -w)) >> 3;
        return p < lim ? p : lim;
      }
      p += 4;
    }
    return lim;
  }

  /** The first position q in [p, end) where the keys at arena offsets a and b are equal, or end (or more). */
  private differentTo(a: number, b: number, p: number, end: number): number {
    const k32 = this.keys32;
    if (p >= end) return p;
    const q = p & 3;
    if (q) {
      // the rest of p's word, the bytes before p made unequal (no borrow into the test below)
      const x = k32[(a + p) >> 2]! ^ k32[(b + p) >> 2]! | ((1 << (q << 3)) - 1);
      const t = (x - 0x01010101) & ~x & 0x80808080;
      if (t !== 0) return p - q + ((31 - Math.clz32(t & -t)) >> 3);
      p += 4 - q;
    }
    while (p < end) {
      const x = k32[(a + p) >> 2]! ^ k32[(b + p) >> 2]!;
      // a zero byte of x is an equal byte; the lowest flag of this test is always a true zero byte
      const t = (x - 0x01010101) & ~x & 0x80808080;
      if (t !== 0) return p + ((31 - Math.clz32(t & -t)) >> 3);
      p += 4;
    }
    return p;
  }

  private grow(rows: number): void {
    if (rows * 8 <= this.best.length) return;
    const n = Math.max(rows * 8, this.best.length * 2);
    const g = <T extends Int32Array | Int8Array>(a: T, fill?: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      if (fill !== undefined) b.fill(fill);
      b.set(a);
      return b;
    };
    this.best = g(this.best, INF);
    this.fromStart = g(this.fromStart);
    this.fromLead = g(this.fromLead);
    this.fromR = g(this.fromR);
    const reach = new Uint8Array(n >> 3);
    reach.set(this.reach);
    this.reach = reach;
  }

  /** The optimal plan for the first n pushed tuples. */
  plan(n = this.tuples.length): OptimalPlan {
    let k = 0;
    for (let i = 0; i < n; i++) if (this.codableOf[i]! >= 0) k++;
    const groupOf: number[] = new Array(n).fill(-1);
    if (k === 0) return { groups: [], groupOf, bytes: this.bytesOf(n) };
    let r = 0;
    let v = INF;
    for (let q = 0; q < 8; q++) {
      const b = this.best[k * 8 + q]!;
      if (b !== INF && b + DIR_PAD[q]! < v) {
        v = b + DIR_PAD[q]!;
        r = q;
      }
    }
    // walk back: runs of codable items [s, k) with their leads
    const runs: { s: number; e: number; lead: number }[] = [];
    while (k > 0) {
      const at = k * 8 + r;
      const s = this.fromStart[at]!;
      runs.push({ s, e: k, lead: this.fromLead[at]! });
      r = this.fromR[at]!;
      k = s;
    }
    runs.reverse();
    const groups: PrefixGroup[] = runs.map((x) => ({ anchor: this.codables[x.s]!.key.slice(), lead: x.lead }));
    let g = 0;
    for (let i = 0; i < n; i++) {
      const ci = this.codableOf[i]!;
      if (ci < 0) continue;
      while (ci >= runs[g]!.e) g++;
      groupOf[i] = g;
    }
    return { groups, groupOf, bytes: this.bytesOf(n) };
  }
}

/** Plan a whole page at once. */
export function planOptimal(tuples: readonly Uint8Array[]): OptimalPlan {
  const p = new OptimalPagePlanner();
  for (const t of tuples) p.push(t);
  return p.plan();
}
