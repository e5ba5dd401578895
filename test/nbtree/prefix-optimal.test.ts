// The byte-minimal BTP_PREFIX encoder (policy `lead`, formats/nbtree/prefix-optimal.ts): on small
// pages its coding is as small as an exhaustive search over every grouping and every lead finds
// (an independent cost model that tries every nshared too); on adversarial pages every coding
// decodes to exactly the original tuples and a recoded page passes every §2.5 check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkTuple, prng } from "./helpers.js";
import { computeTM, decodeCodedItem, decodeDirectory, encodeCodedItem, encodeDirectory, splitFitOk, highKeyTerm } from "../../formats/nbtree/prefix.js";
import { optimalPlanner, planGroups } from "../../formats/nbtree/prefix-policy.js";
import { OptimalPagePlanner } from "../../formats/nbtree/prefix-optimal.js";
import { formPosting } from "../../formats/nbtree/posting.js";
import { layoutLeafPage, readPrefixLeafPage } from "../../formats/nbtree/prefix-page.js";
import { initBtreePage } from "../../formats/nbtree/stock-page.js";
import { BTP_LEAF, BTP_PREFIX } from "../../formats/nbtree/opaque.js";
import { LP_NORMAL } from "../../formats/page/item-id.js";
import { maxAlign } from "../../formats/page/page.js";

/** A plain varlena-flagged index tuple with key bytes K. */
const mk = (K: Uint8Array, o: { nulls?: number; tid?: [number, number] } = {}): Uint8Array => mkTuple(K, { nullBits: o.nulls, var: true, tid: o.tid });
const keyOf = (t: Uint8Array): Uint8Array => t.subarray(t[7]! & 0x80 ? 16 : 8, (t[6]! | (t[7]! << 8)) & 0x1fff);
const isPost = (t: Uint8Array): boolean => (t[7]! & 0x20) !== 0;

/** Independent model: the least residual any valid (nshared, residual) gives K against (A, L) under §2.3. */
function leastResidual(K: Uint8Array, A: Uint8Array, L: number): number {
  let e = K.length;
  while (e > 0 && K[e - 1] === 0) e--;
  let best = e; // nshared = 0: K without its trailing zeros
  for (let ns = 1; L + ns <= A.length; ns++) {
    // K' = R[0,L) + A[L, L+ns) + R[L..], cut or zero-filled to |K|; cut bytes must be zero
    let ok = true;
    for (let j = L; j < L + ns; j++) if (j < K.length ? A[j] !== K[j] : A[j] !== 0) ok = false;
    if (!ok) continue;
    let len: number;
    if (K.length <= L) len = L;
    else {
      let t = K.length;
      while (t > L + ns && K[t - 1] === 0) t--;
      len = L + Math.max(0, t - L - ns);
    }
    best = Math.min(best, len);
  }
  return best;
}

/** Exhaustive: every split of the codable items into runs, every lead of every run; returns the least C. */
function exhaustiveC(tuples: Uint8Array[]): number {
  const cod = tuples.filter((t) => !isPost(t));
  const fixed = tuples.filter(isPost).reduce((s, t) => s + maxAlign(t.length) + 4, 0);
  if (cod.length === 0) return fixed;
  const m = cod.length;
  let best = Infinity;
  for (let mask = 0; mask < 1 << (m - 1); mask++) {
    // bit i set: a group starts at item i + 1
    const startsAt = [0, ...Array.from({ length: m - 1 }, (_, i) => i + 1).filter((i) => mask & (1 << (i - 1)))];
    let total = fixed;
    let anchors = 0;
    startsAt.forEach((s, g) => {
      const e = g + 1 < startsAt.length ? startsAt[g + 1]! : m;
      const A = keyOf(cod[s]!);
      anchors += A.length;
      let runBest = Infinity;
      for (let L = 0; L <= Math.min(255, A.length); L++) {
        let sum = 0;
        for (let i = s; i < e; i++) {
          const t = cod[i]!;
          const head = 14 + (t[7]! & 0x80 ? 4 : 0);
          sum += maxAlign(head + leastResidual(keyOf(t), A, L)) + 4;
        }
        runBest = Math.min(runBest, sum);
      }
      total += runBest;
    });
    total += maxAlign(20 + 4 * startsAt.length + anchors) + 4;
    best = Math.min(best, total);
  }
  return best;
}

/** Code a page with the optimal plan; check it decodes exactly; returns C as written. */
function codeAndCheck(tuples: Uint8Array[], label: string): { C: number; groups: number } {
  const plan = planGroups(tuples, "optimal");
  const { T, M } = computeTM(tuples.map((t) => (t[6]! | (t[7]! << 8)) & 0x1fff));
  let C = 0;
  if (plan.groups.length === 0) {
    for (const t of tuples) C += maxAlign(t.length) + 4;
    return { C, groups: 0 };
  }
  const dirBytes = encodeDirectory(plan.groups, T, M);
  const dir = decodeDirectory(dirBytes);
  C = dirBytes.length + 4;
  let lastGroup = -1;
  tuples.forEach((t, i) => {
    const g = plan.groupOf[i]!;
    if (g < 0) {
      assert.ok(isPost(t), `${label}: only posting tuples stay uncoded`);
      C += maxAlign(t.length) + 4;
      return;
    }
    assert.ok(g >= lastGroup, `${label}: group numbers never decrease`);
    lastGroup = g;
    assert.ok(plan.groups[g]!.lead <= plan.groups[g]!.anchor.length && plan.groups[g]!.lead <= 255);
    const c = encodeCodedItem(t, g, plan.groups[g]!.anchor, plan.groups[g]!.lead);
    assert.deepEqual(decodeCodedItem(c, dir), t, `${label}: item ${i} decodes to the original`);
    C += c.length + 4;
  });
  // each group's anchor is the key of the member that starts it
  plan.groups.forEach((g, k) => {
    const first = plan.groupOf.indexOf(k);
    assert.ok(first >= 0, `${label}: group ${k} has members`);
    assert.deepEqual(g.anchor, keyOf(tuples[first]!), `${label}: group ${k}'s anchor`);
  });
  return { C, groups: plan.groups.length };
}

function randomPage(rnd: () => number, maxItems: number, maxKey: number): Uint8Array[] {
  const int = (n: number) => Math.floor(rnd() * n);
  const n = 1 + int(maxItems);
  const alphabet = 1 + int(3);
  // one or two bases: a page whose keys switch prefix part-way (where a restart pays)
  const bases = [0, 1].map((b) => Uint8Array.from({ length: maxKey }, () => 1 + ((int(alphabet) + b) % 3)));
  const switchAt = int(n + 1);
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const base = bases[i < switchAt ? 0 : 1]!;
    const len = int(2) ? maxKey - int(3) : int(maxKey + 1);
    // mostly a mutation of a common base (shared prefixes), sometimes random; zero runs
    const K = Uint8Array.from({ length: len }, (_, j) => (int(4) === 0 ? int(alphabet) : int(6) === 0 ? 0 : base[j]!));
    const t = mk(K, { nulls: int(5) === 0 ? int(8) : undefined, tid: [i, 1] });
    out.push(int(7) === 0 && int(2) === 0 ? formPosting(t, [{ block: i, offset: 1 }, { block: i, offset: 2 }]) : t);
  }
  return out;
}

/**
 * However a start keeps its savings (candidate leads only, how many, or every lead at once), the
 * planner makes the same plan, prefix by prefix, as policy lead's planner.
 */
const TUNINGS = [
  { maxCandidates: 1, shortRun: 0 },
  { maxCandidates: 2, shortRun: 0 },
  { maxCandidates: 8, shortRun: 0 },
  { maxCandidates: 1000, shortRun: 0 },
  { maxCandidates: 8, shortRun: 1000 },
];
function samePlanAllTunings(tuples: Uint8Array[], label: string): void {
  const ref = optimalPlanner();
  const others = TUNINGS.map((tu) => new OptimalPagePlanner(ref.margin, ref.leadLimit, ref.anchorMargin, tu));
  tuples.forEach((x, i) => {
    ref.push(x);
    const want = ref.plan(i + 1);
    others.forEach((q, j) => {
      q.push(x);
      assert.deepEqual(q.plan(i + 1), want, `${label}: tuning ${JSON.stringify(TUNINGS[j])}, first ${i + 1} tuples`);
    });
  });
}

test("optimal coding: as small as an exhaustive search over every grouping and lead (small pages)", (t) => {
  const rnd = prng(2026);
  let pages = 0;
  let groupsTotal = 0;
  let multiGroup = 0;
  let gainOverV9 = 0;
  for (let round = 0; round < 1500; round++) {
    const tuples = randomPage(rnd, 7, round % 3 === 0 ? 12 : 7);
    const want = exhaustiveC(tuples);
    const got = codeAndCheck(tuples, `round ${round}`);
    assert.equal(got.C, want, `round ${round}: optimal C ${got.C}, exhaustive ${want}`);
    // the planner's own figure is what was written; the exact search (no pruning) finds the same
    for (const p of [optimalPlanner(), new OptimalPagePlanner()]) {
      tuples.forEach((x) => p.push(x));
      assert.equal(p.bytesOf(tuples.length) + 4 * tuples.length + (got.groups ? 4 : 0), got.C, `round ${round}: planner bytes (margin ${p.margin})`);
    }
    samePlanAllTunings(tuples, `round ${round}`);
    // no other policy does better
    for (const policy of [0, 1, "auto"] as const) {
      const q = planGroups(tuples, policy);
      if (!q.groups.length) continue;
      const { T, M } = computeTM(tuples.map((x) => (x[6]! | (x[7]! << 8)) & 0x1fff));
      let C = encodeDirectory(q.groups, T, M).length + 4;
      tuples.forEach((x, i) => (C += (q.groupOf[i]! < 0 ? maxAlign(x.length) : encodeCodedItem(x, q.groupOf[i]!, q.groups[q.groupOf[i]!]!.anchor, q.groups[q.groupOf[i]!]!.lead).length) + 4));
      assert.ok(got.C <= C, `round ${round}: policy ${policy} gives ${C} < optimal ${got.C}`);
      if (policy === 0) gainOverV9 += C - got.C;
    }
    pages++;
    groupsTotal += got.groups;
    if (got.groups > 1) multiGroup++;
  }
  t.diagnostic(`${pages} pages, ${groupsTotal} groups (${multiGroup} pages with several), ${gainOverV9} bytes less than v9 in all`);
  assert.ok(multiGroup > 50, "the search space includes restarts");
});

test("optimal coding: adversarial pages decode exactly and pass every §2.5 check as laid out", () => {
  const rnd = prng(99);
  const int = (n: number) => Math.floor(rnd() * n);
  const bytes = (n: number, f: (j: number) => number) => Uint8Array.from({ length: n }, (_, j) => f(j));
  const pages: Record<string, Uint8Array[]> = {
    allEqual: Array.from({ length: 120 }, (_, i) => mk(bytes(40, (j) => 65 + (j % 5)), { tid: [i, 1] })),
    allZero: Array.from({ length: 100 }, (_, i) => mk(new Uint8Array(24), { tid: [i, 2] })),
    empty: Array.from({ length: 50 }, (_, i) => mk(new Uint8Array(0), { nulls: i % 2 ? 1 : undefined })),
    noShared: Array.from({ length: 150 }, (_, i) => mk(bytes(1 + (i % 30), (j) => (i * 31 + j * 7 + 1) & 0xff))),
    // little-endian int4 then text: the first bytes differ, what follows is shared (a lead > 1 pays)
    leadingCounter: Array.from({ length: 150 }, (_, i) => mk(Uint8Array.from([(i * 2039) & 0xff, ((i * 2039) >> 8) & 0xff, 0, 0, 43, ...Buffer.from(`tenant-region-eu-west-${i % 3}`)]))),
    long: Array.from({ length: 2 }, (_, i) => mk(bytes(2696, (j) => (j < 2000 ? 7 : int(256)) ^ (j === 2690 ? i : 0)))),
    drifting: Array.from({ length: 140 }, (_, i) => mk(Buffer.from(`/usr/share/${["doc", "man/man1", "locale/de/LC_MESSAGES", "zoneinfo"][i >> 5]}/${"f".repeat(i % 7)}${i}`))),
    trailingZeros: Array.from({ length: 100 }, (_, i) => mk(bytes(16, (j) => (j < 4 ? 1 + (i >> 3) : j < 6 ? i : 0)))),
    postingsAmid: Array.from({ length: 80 }, (_, i) => {
      const t = mk(Buffer.from(`key-${(i >> 2).toString().padStart(5, "0")}`), { tid: [i, 1] });
      return i % 5 === 0 ? formPosting(t, [{ block: i, offset: 1 }, { block: i, offset: 3 }]) : t;
    }),
  };
  for (const [name, tuples] of Object.entries(pages)) {
    const { C } = codeAndCheck(tuples, name);
    samePlanAllTunings(tuples, name);
    // on these pages the pruned search of policy lead finds the exact optimum
    const exact = new OptimalPagePlanner();
    tuples.forEach((x) => exact.push(x));
    assert.equal(C, exact.bytesOf(tuples.length) + 4 * tuples.length + (exact.plan().groups.length ? 4 : 0), `${name}: pruned = exact`);
    const plan = planGroups(tuples, "optimal");
    if (!plan.groups.length) continue;
    const { T, M } = computeTM(tuples.map((x) => (x[6]! | (x[7]! << 8)) & 0x1fff));
    if (!(16 * C <= 15 * T) || !splitFitOk(T, highKeyTerm(null), M)) continue;
    const dir = encodeDirectory(plan.groups, T, M);
    const coded = tuples.map((x, i) => (plan.groupOf[i]! < 0 ? x : encodeCodedItem(x, plan.groupOf[i]!, plan.groups[plan.groupOf[i]!]!.anchor, plan.groups[plan.groupOf[i]!]!.lead)));
    const page = layoutLeafPage(initBtreePage(8192, 0, BTP_LEAF | BTP_PREFIX), [{ lpFlags: LP_NORMAL, tuple: dir }, ...coded.map((tuple) => ({ lpFlags: LP_NORMAL, tuple }))], BTP_LEAF | BTP_PREFIX);
    if (!page) continue;
    const r = readPrefixLeafPage(page, { btmVersion: 4 });
    assert.deepEqual(r.findings.map((f) => f.code), [], name);
    assert.equal(r.C, C, `${name}: C as read back`);
    assert.deepEqual(r.items.map((x) => x.tuple), tuples, `${name}: items decode to the originals`);
  }
  // a lead that skips the differing leading counter: the four-byte int and the text header stay, the rest is shared
  const lc = planGroups(pages.leadingCounter!, "optimal");
  assert.ok(lc.groups.some((g) => g.lead >= 2), `leads ${lc.groups.map((g) => g.lead).join(",")}`);
});

test("optimal coding: the same plans however starts keep their savings (long keys, many later runs)", () => {
  const rnd = prng(7);
  for (let round = 0; round < 60; round++) {
    const tuples = randomPage(rnd, 60, 24 + (round % 4) * 20);
    samePlanAllTunings(tuples, `round ${round}`);
  }
});
