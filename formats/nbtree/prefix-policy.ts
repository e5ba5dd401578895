// Grouping policy for BTP_PREFIX pages (new-formats.md §2.4, informative: any policy that meets §2.5
// is valid). Decides groups, anchors and leads; the codec itself is in prefix.ts.
import { codableKey, encodeCodedItem, sharedFrom, SizeOfPrefixDirHeader, SizeOfPrefixGroupEntry, type PrefixGroup } from "./prefix.js";
import { OptimalPagePlanner } from "./prefix-optimal.js";
import { maxAlign } from "../page/page.js";

/** One-pass rules: 0 (v9), 1, "auto" (lead 0 or 1 per group); "optimal": the byte-minimal coding (prefix-optimal.ts). */
export type LeadPolicy = 0 | 1 | "auto" | "optimal";

/**
 * The encoder policies by their command-line names: `lead` (the byte-minimal grouping and lead per
 * page), `v9` (the proposal's rule: one pass, lead 0), `greedy` (one pass, lead 0 or 1 per group).
 */
export const PREFIX_POLICIES = { lead: "optimal", v9: 0, greedy: "auto" } as const satisfies Record<string, LeadPolicy>;
export type PrefixPolicyName = keyof typeof PREFIX_POLICIES;
/** Every policy name, `lead` (the default) first. */
export const PREFIX_POLICY_NAMES = Object.keys(PREFIX_POLICIES) as PrefixPolicyName[];
/** What each policy does, in a few words (help texts, reports). */
export const PREFIX_POLICY_SUMMARY: Record<PrefixPolicyName, string> = {
  lead: "byte-minimal groups and leads per page",
  v9: "the proposal's rule, lead 0",
  greedy: "one pass, lead 0 or 1 per group",
};
export const prefixPolicyLead = (name: PrefixPolicyName): LeadPolicy => PREFIX_POLICIES[name];

export interface GroupPlan {
  groups: PrefixGroup[];
  /** group of each input tuple, -1 for posting tuples (never coded) */
  groupOf: number[];
}

const keyOf = codableKey;

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

  constructor(readonly policy: 0 | 1 | "auto" = 0) {}

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

/**
 * The planner of policy `lead`: the exact search, except that a group start more than 16 bytes plus
 * what a group with its anchor costs (4 + anchor_len) behind the best coding of the prefix is not
 * continued (it bounds the quadratic work; on the bench's key sets it finds the exact optimum).
 */
export const optimalPlanner = (): OptimalPagePlanner => new OptimalPagePlanner(16, 255, 1);

/** Plan a page's groups; `after` is the codable key that follows the page, if known (one-pass rules only). */
export function planGroups(tuples: readonly Uint8Array[], policy: LeadPolicy = 0, after: Uint8Array | null = null): GroupPlan {
  if (policy === "optimal") {
    const p = optimalPlanner();
    for (const t of tuples) p.push(t);
    return p.plan();
  }
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

/**
 * A page being filled item by item (rebuild): what its items take coded so far, and at the end the
 * coded items of its first n. `bytes` = sum of MAXALIGN(coded length) + the directory's length.
 * reset() starts the next page (a rebuild keeps one planner for the whole leaf level).
 */
export interface PagePlanner {
  push(tuple: Uint8Array, next: () => Uint8Array | null): void;
  readonly bytes: number;
  /** `bytes` when the page held only its first n tuples */
  bytesAt(n: number): number;
  finish(n: number): { groups: PrefixGroup[]; groupOf: number[]; coded: Uint8Array[] };
  reset(): void;
}

const codeAll = (tuples: readonly Uint8Array[], groups: readonly PrefixGroup[], groupOf: readonly number[]): Uint8Array[] =>
  tuples.map((t, i) => (groupOf[i]! < 0 ? t : encodeCodedItem(t, groupOf[i]!, groups[groupOf[i]!]!.anchor, groups[groupOf[i]!]!.lead)));

/** A PagePlanner for a policy. */
export function pagePlanner(policy: LeadPolicy): PagePlanner {
  const tuples: Uint8Array[] = [];
  if (policy === "optimal") {
    const p = optimalPlanner();
    return {
      push: (t) => (tuples.push(t), p.push(t)),
      get bytes() {
        return p.bytesOf(p.length);
      },
      bytesAt: (n) => p.bytesOf(n),
      finish: (n) => {
        const plan = p.plan(n);
        return { groups: plan.groups, groupOf: plan.groupOf, coded: codeAll(tuples.slice(0, n), plan.groups, plan.groupOf) };
      },
      reset: () => {
        tuples.length = 0;
        p.reset();
      },
    };
  }
  let g = new GroupPlanner(policy);
  const coded: Uint8Array[] = [];
  const groupOf: number[] = [];
  const bytesAt: number[] = [0];
  let csum = 0;
  return {
    push: (t, next) => {
      const k = g.push(t, next);
      const c = g.code(t, k);
      coded.push(c);
      groupOf.push(k);
      csum += maxAlign(c.length);
      bytesAt.push(csum + g.directoryLength);
    },
    get bytes() {
      return csum + g.directoryLength;
    },
    bytesAt: (n) => bytesAt[n]!,
    finish: (n) => {
      const gl = groupOf.slice(0, n);
      const ngroups = gl.reduce((m, x) => Math.max(m, x + 1), 0);
      return { groups: g.groups.slice(0, ngroups), groupOf: gl, coded: coded.slice(0, n) };
    },
    reset: () => {
      g = new GroupPlanner(policy);
      coded.length = 0;
      groupOf.length = 0;
      bytesAt.length = 1;
      csum = 0;
    },
  };
}

export { codableKey };
