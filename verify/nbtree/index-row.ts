// A pg_index row must describe its index before heapallindexed forms index tuples from the
// table's columns with it: indnatts keys, each a column of the table (or 0, an expression).
// A damaged row (a NULL or short indkey, an attnum past the table's columns) is a finding, and
// the probe that would index the wrong columns is not run.
import type { IndexInfo } from "../../formats/catalog/cluster.js";
import type { TupleDesc } from "../../formats/heap/descriptor.js";

/** Why the row cannot drive heapallindexed on a table of `tableDesc`, or null when it can. */
export function indexRowProblem(info: IndexInfo, tableDesc: TupleDesc): string | null {
  if (info.keys.length !== info.natts) return `indkey has ${info.keys.length} entries, indnatts is ${info.natts}`;
  const bad = info.keys.find((k) => !Number.isInteger(k) || k < 0 || k > tableDesc.attrs.length);
  if (bad !== undefined) return `indkey names column ${bad}, the table has ${tableDesc.attrs.length}`;
  return null;
}
