// Grouping policy for BTP_PREFIX pages (new-formats.md §2.4, informative: any policy that meets §2.5
// is valid). Decides groups, anchors and leads; the codec itself is in prefix.ts.
import { INDEX_ALT_TID_MASK, tInfoRaw } from "./index-tuple.js";
import { sharedFrom, tupleKey, type PrefixGroup } from "./prefix.js";


export type LeadPolicy = 0 | 1 | "auto";
export interface GroupPlan {
  groups: PrefixGroup[];
  /** group of each input tuple, -1 for posting tuples (never coded) */
  groupOf: number[];
}

/**
 * The v9 rule: walk the tuples in order, share with the current anchor, start a new group when an
 * item shares no byte. lead 0 reproduces v9; lead 1 lets each item keep its first byte (a short
 * varlena header); "auto" picks, per group, the lead in {0, 1} that shares more with the next item.
 */
export function planGroups(tuples: readonly Uint8Array[], policy: LeadPolicy = 0): GroupPlan {
  const groups: PrefixGroup[] = [];
  const groupOf: number[] = new Array(tuples.length).fill(-1);
  const keys = tuples.map((t) => (tInfoRaw(t) & INDEX_ALT_TID_MASK ? null : tupleKey(t)));
  let cur: PrefixGroup | null = null;
  for (let i = 0; i < tuples.length; i++) {
    const K = keys[i];
    if (!K) continue; // posting tuple: stays stock, belongs to no group
    if (cur && K.length > cur.lead && sharedFrom(K, cur.anchor, cur.lead) > 0) {
      groupOf[i] = groups.length - 1;
      continue;
    }
    let lead = policy === "auto" ? 0 : policy;
    if (policy === "auto") {
      let j = i + 1;
      while (j < tuples.length && !keys[j]) j++;
      const next = j < tuples.length ? keys[j]! : null;
      if (next && sharedFrom(next, K, 1) > sharedFrom(next, K, 0)) lead = 1;
    }
    cur = { anchor: K.slice(), lead: Math.min(lead, K.length) };
    groups.push(cur);
    groupOf[i] = groups.length - 1;
  }
  return { groups, groupOf };
}
