// Column types of the bootstrap catalogs and the descriptor built from a column list: what
// pgdisk needs to deform catalog rows before it can read pg_attribute (src/include/catalog/pg_*.h).
import type { Align, AttrDesc, TupleDesc } from "../heap/descriptor.js";

export type ColType = "oid" | "name" | "int2" | "int4" | "bool" | "char" | "float4" | "xid" | "regproc" | "text" | "int2vector" | "oidvector" | "_aclitem" | "_text" | "pg_node_tree" | "anyarray" | "bytea";

const T: Record<ColType, { typid: number; len: number; byval: boolean; align: Align; storage: string }> = {
  oid: { typid: 26, len: 4, byval: true, align: "i", storage: "p" },
  name: { typid: 19, len: 64, byval: false, align: "c", storage: "p" },
  int2: { typid: 21, len: 2, byval: true, align: "s", storage: "p" },
  int4: { typid: 23, len: 4, byval: true, align: "i", storage: "p" },
  bool: { typid: 16, len: 1, byval: true, align: "c", storage: "p" },
  char: { typid: 18, len: 1, byval: true, align: "c", storage: "p" },
  float4: { typid: 700, len: 4, byval: true, align: "i", storage: "p" },
  xid: { typid: 28, len: 4, byval: true, align: "i", storage: "p" },
  regproc: { typid: 24, len: 4, byval: true, align: "i", storage: "p" },
  text: { typid: 25, len: -1, byval: false, align: "i", storage: "x" },
  int2vector: { typid: 22, len: -1, byval: false, align: "i", storage: "p" },
  oidvector: { typid: 30, len: -1, byval: false, align: "i", storage: "p" },
  _aclitem: { typid: 1034, len: -1, byval: false, align: "i", storage: "x" },
  _text: { typid: 1009, len: -1, byval: false, align: "i", storage: "x" },
  pg_node_tree: { typid: 194, len: -1, byval: false, align: "i", storage: "x" },
  anyarray: { typid: 2277, len: -1, byval: false, align: "d", storage: "x" },
  bytea: { typid: 17, len: -1, byval: false, align: "i", storage: "x" },
};

/** A catalog's columns in order: name and type. */
export type ColumnList = readonly (readonly [string, ColType])[];

/** The tuple descriptor of a catalog from its columns in order; `aclitemAlign` is the release's aclitem[] alignment. */
export function catalogDesc(cols: ColumnList, aclitemAlign: Align): TupleDesc {
  return {
    attrs: cols.map(([name, t], i): AttrDesc => ({ attnum: i + 1, name, typmod: -1, dropped: false, ...T[t], ...(t === "_aclitem" ? { align: aclitemAlign } : {}) })),
  };
}
