// Grouping policy for BTP_PREFIX pages (new-formats.md §2.4, informative: any policy that meets §2.5
// is valid). Decides groups, anchors and leads; the codec itself is in prefix.ts.
import { INDEX_ALT_TID_MASK, tInfoRaw } from "./index-tuple.js";
import { encodeCodedItem, sharedFrom, SizeOfPrefixDirHeader, SizeOfPrefixGroupEntry, tupleKey, type PrefixGroup } from "./prefix.js";
import { maxAlign } from "../page/page.js";

export type LeadPolicy = 0 | 1 | "auto";

/** The encoder policies by their command-line names: `v9` (lead 0, the v9 rule) and `lead` (lead chosen per group). */
export const PREFIX_POLICIES = { v9: 0, lead: "auto" } as const satisfies Record<string, LeadPolicy>;
export type PrefixPolicyName = keyof typeof PREFIX_POLICIES;
export const prefixPolicyLead = (name: PrefixPolicyName): LeadPolicy => PREFIX_POLICIES[name];

export interface GroupPlan {
  groups: PrefixGroup[];
  /** group of each input tuple, -1 for posting tuples (never coded) */
  groupOf: number[];
}

const keyOf = (t: Uint8Array): Uint8Array | null => (tInfoRaw(t) & INDEX_ALT_TID_MASK ? null : tupleKey(t));

/**
 * The v9 rule, one item at a time: share with the current anchor, start a new group when an item
 * shares no byte. lead 0 reproduces v9; lead 1 lets each item keep its first byte (a short varlena
 * header); "auto" picks, per group, the lead in {0, 1} that shares more with the next codable item
 * (`next` gives it: the following item of the page, or of the stream when a page is being filled).
 */
export class GroupPlanner {
  readonly groups: PrefixGroup[] = [];
  private cur: PrefixGroup | null = null;
  /** sum of anchor lengths so far */
  private anchorBytes = 0;

  constructor(readonly policy: LeadPolicy = 0) {}

  /** The directory's length for the groups so far (MAXALIGNed). */
  get directoryLength(): number {
    return this.groups.length ? maxAlign(SizeOfPrefixDirHeader + SizeOfPrefixGroupEntry * this.groups.length + this.anchorBytes) : 0;
  }
  get anchorTotal(): number {
    return this.anchorBytes;
  }

  /**
   * Place one tuple; returns its group (-1 for a posting tuple). `next` is asked for the next
   * codable item's key only when this tuple starts a group under the "auto" policy.
   */
  push(tuple: Uint8Array, next: () => Uint8Array | null): number {
    const K = keyOf(tuple);
    if (!K) return -1;
    const cur = this.cur;
    if (cur && K.length > cur.lead && sharedFrom(K, cur.anchor, cur.lead) > 0) return this.groups.length - 1;
    let lead: number = this.policy === "auto" ? 0 : this.policy;
    if (this.policy === "auto") {
      const n = next();
      if (n && sharedFrom(n, K, 1) > sharedFrom(n, K, 0)) lead = 1;
    }
    this.cur = { anchor: K.slice(), lead: Math.min(lead, K.length) };
    this.groups.push(this.cur);
    this.anchorBytes += K.length;
    return this.groups.length - 1;
  }

  /** The coded bytes of a tuple already placed in group g (the tuple itself for a posting tuple). */
  code(tuple: Uint8Array, g: number): Uint8Array {
    if (g < 0) return tuple;
    const grp = this.groups[g]!;
    return encodeCodedItem(tuple, g, grp.anchor, grp.lead);
  }
}

/** Plan a page's groups in one pass; `after` is the codable key that follows the page, if known. */
export function planGroups(tuples: readonly Uint8Array[], policy: LeadPolicy = 0, after: Uint8Array | null = null): GroupPlan {
  const planner = new GroupPlanner(policy);
  const groupOf: number[] = new Array(tuples.length);
  for (let i = 0; i < tuples.length; i++) {
    groupOf[i] = planner.push(tuples[i]!, () => {
      for (let j = i + 1; j < tuples.length; j++) {
        const k = keyOf(tuples[j]!);
        if (k) return k;
      }
      return after;
    });
  }
  return { groups: planner.groups, groupOf };
}

/** The key of a codable tuple, null for posting and pivot tuples. */
export const codableKey = keyOf;
