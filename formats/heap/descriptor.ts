// A tuple descriptor: what the catalog says about each attribute (pg_attribute + pg_type).

export type Align = "c" | "s" | "i" | "d";
export const alignBytes = (a: Align): number => (a === "c" ? 1 : a === "s" ? 2 : a === "i" ? 4 : 8);

export interface AttrDesc {
  attnum: number;
  name: string;
  /** pg_type OID (0 for a dropped column) */
  typid: number;
  typmod: number;
  /** attlen: > 0 fixed, -1 varlena, -2 cstring */
  len: number;
  byval: boolean;
  align: Align;
  /** attstorage: p, e, m, x */
  storage: string;
  dropped: boolean;
  notnull?: boolean;
  /** attgenerated is set (a generated column: stored, or virtual on 18): COPY TO leaves it out */
  generated?: boolean;
  /** fast default (attmissingval element) as raw datum bytes, when atthasmissing */
  missing?: Uint8Array | null;
}

export interface TupleDesc {
  attrs: AttrDesc[];
}
