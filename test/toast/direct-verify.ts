// Direct TOAST pointers checked the way `pgdisk verify` checks them (verify/toast/direct-check.ts,
// the one §1.5 checker), for tests that hold pointers rather than a whole cluster to verify:
// each live pointer's value is walked, dead parents' values are claimed, then every direct
// chunk reached from no pointer is reported.
import type { Finding, Location } from "../../formats/schema/errors.js";
import type { RelationFork } from "../../formats/storage/relfile.js";
import type { ToastPointer } from "../../formats/varlena/toast-pointer.js";
import { sliceCount, tierOf, type DirectTier } from "../../formats/toast/tiers.js";
import { FindingSink } from "../../verify/findings.js";
import { checkDirectPointer, checkDirectValue, checkUnreachable, claimValue, DirectState, type DirectPointer } from "../../verify/toast/direct-check.js";
import { ToastRelation } from "../../verify/toast/toast-rel.js";

export interface DirectCheck {
  findings: Finding[];
  /** values whose walk ran (a value named twice is walked once) */
  valuesWalked: number;
  /** chunks reached from some root */
  chunksReached: number;
  /** walked values by tier */
  byTier: Record<DirectTier, number>;
}

export interface PointerAt {
  pointer: ToastPointer;
  where: Location;
  /** the parent tuple is dead: its value is only claimed, not checked */
  dead?: boolean;
}

const directOf = (p: Extract<ToastPointer, { tag: 19 }>): DirectPointer => ({ rawsize: p.va_rawsize, extinfo: p.va_extinfo, toastrelid: p.va_toastrelid, rootBlock: p.root.block, rootItem: p.root.offset });

export function checkDirectPointers(heap: RelationFork, toastRelid: number, pointers: PointerAt[], isLive: (page: Uint8Array, off: number) => boolean = () => true): DirectCheck {
  const rel = new ToastRelation(heap, toastRelid, heap.basePath, isLive, false);
  const sink = new FindingSink();
  const state = new DirectState();
  const byTier: Record<DirectTier, number> = { single: 0, flat: 0, tree: 0 };
  for (const { pointer, where, dead } of pointers) {
    if (pointer.tag !== 19) continue;
    const p = directOf(pointer);
    if (dead) {
      claimValue(rel, state, p);
      continue;
    }
    if (!checkDirectPointer(p, toastRelid, where, sink)) continue;
    const before = state.walked.size;
    checkDirectValue(p, rel, where, sink, state, true);
    if (state.walked.size > before) byTier[tierOf(sliceCount(pointer.extsize, rel.maxChunk))]++;
  }
  checkUnreachable(rel, state, sink);
  const findings = sink.finish({ file: heap.basePath });
  return { findings, valuesWalked: state.walked.size, chunksReached: state.rootOf.size, byTier };
}
