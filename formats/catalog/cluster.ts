// Offline access to a stopped cluster of any supported release: pg_control and PG_VERSION (which
// choose the version profile), the relation mapper, and the catalogs (bootstrapped through
// pg_filenode.map with the profile's descriptors), giving names, descriptors and file paths.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FormatError } from "../schema/errors.js";
import type { AttrDesc, TupleDesc } from "../heap/descriptor.js";
import { ClogReader } from "../storage/clog.js";
import { RelationFork, forkSuffix, type ForkName, type Geometry } from "../storage/relfile.js";
import { readControlFile, type ControlSummary } from "./control.js";
import { readRelMap } from "./relmap-file.js";
import { readCatalog, type CatalogProblem, type CatalogRow, type ScanOptions } from "./rows.js";
import { PG_AM_OID, PG_AMPROC_OID, PG_ATTRDEF_OID, PG_ATTRIBUTE_OID, PG_TRIGGER_OID, PG_ENUM_OID, PG_CLASS_OID, PG_COLLATION_OID, PG_DATABASE_OID, PG_INDEX_OID, PG_NAMESPACE_OID, PG_OPCLASS_OID, PG_TYPE_OID } from "./bootstrap.js";
import type { VersionProfile } from "../version/index.js";
import type { Align } from "../heap/descriptor.js";
import type { OutputCatalog } from "../datum/output-catalog.js";
import { outputCatalogFor } from "./output-catalog.js";

export const GLOBALTABLESPACE_OID = 1664;
export const DEFAULTTABLESPACE_OID = 1663;

export interface DatabaseInfo {
  oid: number;
  name: string;
  tablespace: number;
  allowConnections: boolean;
  isTemplate: boolean;
  frozenXid: number;
  minMxid: number;
  /** pg_database.encoding (6: UTF8) */
  encoding: number;
  collate: string;
  ctype: string;
}

export interface RelationInfo {
  oid: number;
  name: string;
  namespace: number;
  namespaceName: string;
  /** relkind: r table, i index, S sequence, t TOAST, v view, m matview, c composite, f foreign, p partitioned, I partitioned index */
  kind: string;
  am: number;
  amName: string;
  filenode: number;
  tablespace: number;
  persistence: string;
  shared: boolean;
  pages: number;
  tuples: number;
  toastRelid: number;
  natts: number;
  frozenXid: number;
  minMxid: number;
  options: string[] | null;
}

export interface IndexInfo {
  indexOid: number;
  tableOid: number;
  natts: number;
  nkeyatts: number;
  unique: boolean;
  /** indnullsnotdistinct (PostgreSQL 15+): NULL keys conflict in a unique index */
  nullsNotDistinct: boolean;
  primary: boolean;
  valid: boolean;
  /** table attnums, 0 = expression */
  keys: number[];
  collations: number[];
  opclasses: number[];
  opclassNames: string[];
  options: number[];
  /** nodeToString text of the expressions, if any */
  exprs: string | null;
  pred: string | null;
}

export interface TypeInfoRow {
  oid: number;
  name: string;
  namespace: number;
  len: number;
  byval: boolean;
  type: string;
  category: string;
  elem: number;
  array: number;
  align: Align;
  storage: string;
  basetype: number;
  typmod: number;
  relid: number;
  /** typinput: the pg_proc OID of the input function */
  input: number;
  /** typnotnull: a domain's NOT NULL */
  notnull: boolean;
  /** typdefaultbin: a domain's default expression (pg_node_tree), which a domain over it inherits when made */
  defaultBin?: string;
}

export interface OpclassInfo {
  name: string;
  method: number;
  /** pg_opclass.opcfamily: the operator family whose pg_amproc rows give the support functions */
  family: number;
  intype: number;
  keytype: number;
  /** opcdefault: the default opclass of its method for intype */
  isDefault: boolean;
}

export class Cluster {
  readonly control: ControlSummary;
  readonly geometry: Geometry;
  readonly clog: ClogReader;
  /** the release the cluster's PG_VERSION and pg_control name */
  readonly profile: VersionProfile;
  private dbs?: DatabaseInfo[];
  private readonly catalogs = new Map<number, DatabaseCatalog>();
  /** the pg_filenode.map files read, by directory (a catalog read no longer reads them again) */
  private readonly relmaps = new Map<string, ReadonlyMap<number, number>>();
  /**
   * With `tolerant`, catalog pages and tuples that cannot be read are left out and listed here
   * (verify reports them); without, reading such a catalog throws.
   */
  readonly catalogProblems: CatalogProblem[] | undefined;

  constructor(
    readonly pgdata: string,
    opts: { tolerant?: boolean } = {},
  ) {
    this.catalogProblems = opts.tolerant ? [] : undefined;
    if (!existsSync(join(pgdata, "global"))) {
      throw new FormatError("CLUSTER_NOT_FOUND", `${pgdata} is not a PostgreSQL data directory (no global/ folder)`, { file: pgdata });
    }
    this.control = readControlFile(pgdata);
    this.profile = this.control.profile;
    this.geometry = { blockSize: this.control.blcksz, segmentBlocks: this.control.relsegSize };
    this.clog = new ClogReader(join(pgdata, this.profile.slru.xactDir), this.control.blcksz, this.profile.slru.segmentNameDigits);
  }

  /** Path (segment 0) of a relation file. */
  relationPath(tablespace: number, dbOid: number, filenode: number, fork: ForkName = "main"): string {
    const suffix = forkSuffix(fork);
    if (tablespace === GLOBALTABLESPACE_OID) return join(this.pgdata, "global", `${filenode}${suffix}`);
    if (tablespace === 0 || tablespace === DEFAULTTABLESPACE_OID) return join(this.pgdata, "base", String(dbOid), `${filenode}${suffix}`);
    return join(this.pgdata, "pg_tblspc", String(tablespace), this.profile.tablespaceDir, String(dbOid), `${filenode}${suffix}`);
  }

  openFork(path: string): RelationFork {
    return new RelationFork(path, this.geometry);
  }

  /** oid → filenode of the pg_filenode.map in `dir` (global/ or base/<db>/), read once */
  relMap(dir: string): ReadonlyMap<number, number> {
    let map = this.relmaps.get(dir);
    if (!map) this.relmaps.set(dir, (map = readRelMap(join(dir, "pg_filenode.map"), this.profile.relmapMappings)));
    return map;
  }

  private scanMapped(dir: string, catalogOid: number, desc: TupleDesc, columns?: readonly string[], match?: ScanOptions["match"]): CatalogRow[] {
    const map = this.relMap(dir);
    const filenode = map.get(catalogOid);
    if (filenode === undefined) throw new FormatError("RELMAP_MISSING_CATALOG", `${dir}/pg_filenode.map has no entry for catalog ${catalogOid}`, { file: join(dir, "pg_filenode.map") });
    const fork = this.openFork(join(dir, String(filenode)));
    try {
      return readCatalog(fork, desc, { clog: this.clog, columns, match, problems: this.catalogProblems });
    } finally {
      fork.close();
    }
  }

  databases(): DatabaseInfo[] {
    this.dbs ??= this.scanMapped(join(this.pgdata, "global"), PG_DATABASE_OID, this.profile.catalogs.pg_database, this.catalogProblems ? undefined : DATABASE_COLUMNS)
      .map((r) => ({
        oid: r.oid as number,
        name: r.datname as string,
        tablespace: r.dattablespace as number,
        allowConnections: r.datallowconn as boolean,
        isTemplate: r.datistemplate as boolean,
        frozenXid: r.datfrozenxid as number,
        minMxid: r.datminmxid as number,
        encoding: r.encoding as number,
        collate: r.datcollate as string,
        ctype: r.datctype as string,
      }))
      .sort((a, b) => a.oid - b.oid);
    return this.dbs;
  }

  database(nameOrOid: string | number): DatabaseCatalog {
    const db = this.databases().find((d) => d.name === nameOrOid || d.oid === nameOrOid || String(d.oid) === nameOrOid);
    if (!db) {
      throw new FormatError("DATABASE_NOT_FOUND", `database "${nameOrOid}" does not exist in ${this.pgdata} (databases: ${this.databases().map((d) => d.name).join(", ")})`, { file: this.pgdata });
    }
    let cat = this.catalogs.get(db.oid);
    if (!cat) {
      cat = new DatabaseCatalog(this, db);
      this.catalogs.set(db.oid, cat);
    }
    return cat;
  }

  /** Catalog rows of a mapped catalog in a database directory (used by DatabaseCatalog). */
  mappedCatalog(db: DatabaseInfo, catalogOid: number, desc: TupleDesc, columns?: readonly string[], match?: ScanOptions["match"]): CatalogRow[] {
    return this.scanMapped(join(this.pgdata, "base", String(db.oid)), catalogOid, desc, columns, match);
  }
}

// pg_database: the columns DatabaseInfo keeps (not datacl, the locale provider's columns); a
// tolerant scan (verify) decodes every column, so that a damaged row is reported
const DATABASE_COLUMNS = ["oid", "datname", "dattablespace", "datallowconn", "datistemplate", "datfrozenxid", "datminmxid", "encoding", "datcollate", "datctype"];
// the columns DatabaseCatalog keeps (decoding only these: pg_attribute is read once per
// database and thread, and its ACLs, statistics targets and options are not needed)
const CLASS_COLUMNS = ["oid", "relname", "relnamespace", "relkind", "relam", "relfilenode", "relisshared", "reltablespace", "relpersistence", "relpages", "reltuples", "reltoastrelid", "relnatts", "relfrozenxid", "relminmxid", "reloptions"];
// pg_type: the columns TypeInfoRow keeps (not typacl, typdefault, the I/O functions but typinput)
const TYPE_COLUMNS = ["oid", "typname", "typnamespace", "typlen", "typbyval", "typtype", "typcategory", "typelem", "typarray", "typalign", "typstorage", "typbasetype", "typtypmod", "typrelid", "typinput", "typnotnull", "typdefaultbin"];
/** how many descriptors DatabaseCatalog reads one relation at a time before it reads all of pg_attribute */
const DESCRIPTORS_BY_SCAN = 4;
/** how many by-OID reads of pg_type DatabaseCatalog makes before it reads all of pg_type */
const TYPE_SCANS_BY_OID = 6;
/** A "char" catalog flag (attidentity, attgenerated) is set: neither empty nor NUL. */
export const charFlag = (v: unknown): boolean => typeof v === "string" && v !== "" && v !== "\0";
const ATTRIBUTE_COLUMNS = ["attrelid", "attnum", "attname", "atttypid", "atttypmod", "attlen", "attbyval", "attalign", "attstorage", "attisdropped", "attnotnull", "atthasmissing", "attmissingval", "attgenerated"];

export class DatabaseCatalog {
  readonly classes: Map<number, RelationInfo>;
  private typeCache?: Map<number, TypeInfoRow>;
  /** pg_type rows read by OID before typeCache is (type()); undefined: no such type */
  private readonly typeSome = new Map<number, TypeInfoRow | undefined>();
  /** OIDs the next by-OID read of pg_type takes too: the types of the descriptors read so far */
  private readonly typesWanted = new Set<number>();
  private typeScans = 0;
  readonly namespaces: Map<number, string>;
  private attrCache?: Map<number, AttrDesc[]>;
  /** descriptors read one relation at a time, before attrCache is (descriptor()) */
  private readonly attrSome = new Map<number, AttrDesc[]>();
  private indexCache?: Map<number, IndexInfo>;
  private opclassCache?: Map<number, OpclassInfo>;
  private amprocCache?: Map<string, number>;
  private enumCache?: Map<number, string>;
  private collationCache?: Map<number, { name: string; collate: string | null; provider: string; deterministic: boolean }>;
  private outputCatalogCache?: OutputCatalog;

  constructor(
    readonly cluster: Cluster,
    readonly db: DatabaseInfo,
  ) {
    const catalogs = cluster.profile.catalogs;
    const classRows = cluster.mappedCatalog(db, PG_CLASS_OID, catalogs.pg_class, CLASS_COLUMNS);
    const rawClasses = new Map(classRows.map((r) => [r.oid as number, r]));
    const nsRows = this.scanByOid(rawClasses, PG_NAMESPACE_OID, catalogs.pg_namespace);
    this.namespaces = new Map(nsRows.map((r) => [r.oid as number, r.nspname as string]));
    const amRows = this.scanByOid(rawClasses, PG_AM_OID, catalogs.pg_am);
    const amNames = new Map(amRows.map((r) => [r.oid as number, r.amname as string]));
    const map = cluster.relMap(join(cluster.pgdata, "base", String(db.oid)));
    const sharedMap = cluster.relMap(join(cluster.pgdata, "global"));
    this.classes = new Map();
    for (const r of classRows) {
      const oid = r.oid as number;
      const shared = r.relisshared as boolean;
      let filenode = r.relfilenode as number;
      if (filenode === 0) filenode = (shared ? sharedMap : map).get(oid) ?? 0;
      this.classes.set(oid, {
        oid,
        name: r.relname as string,
        namespace: r.relnamespace as number,
        namespaceName: this.namespaces.get(r.relnamespace as number) ?? String(r.relnamespace),
        kind: r.relkind as string,
        am: r.relam as number,
        amName: amNames.get(r.relam as number) ?? "",
        filenode,
        tablespace: shared ? GLOBALTABLESPACE_OID : (r.reltablespace as number) || db.tablespace,
        persistence: r.relpersistence as string,
        shared,
        pages: r.relpages as number,
        tuples: r.reltuples as number,
        toastRelid: r.reltoastrelid as number,
        natts: r.relnatts as number,
        frozenXid: r.relfrozenxid as number,
        minMxid: r.relminmxid as number,
        options: r.reloptions as string[] | null,
      });
    }
  }

  /** The names output functions print (reg*, aclitem), each catalog read on first use. */
  get outputCatalog(): OutputCatalog {
    this.outputCatalogCache ??= outputCatalogFor(this);
    return this.outputCatalogCache;
  }

  /** pg_type, every row, read on first use. */
  get types(): Map<number, TypeInfoRow> {
    this.typeCache ??= new Map(this.readTypes().map((t) => [t.oid, t]));
    return this.typeCache;
  }

  /**
   * One pg_type row. The first few lookups (a dump of one table) read only the rows asked for,
   * with the types of the descriptors read so far and the element and base types of what they
   * find (a lookup of another OID reads it then); after that, or in a tolerant scan, the whole catalog once (types).
   */
  type(oid: number): TypeInfoRow | undefined {
    if (this.typeCache) return this.typeCache.get(oid);
    if (this.typeSome.has(oid)) return this.typeSome.get(oid);
    if (this.cluster.catalogProblems || this.typeScans >= TYPE_SCANS_BY_OID) return this.types.get(oid);
    this.typesWanted.add(oid);
    // two rounds: the rows asked for, then the element and base types they name (what arrays
    // and domains print through; not typarray, which every base type has and output never needs)
    for (let round = 0; round < 2 && this.typesWanted.size; round++) {
      const want = new Set(this.typesWanted);
      this.typesWanted.clear();
      this.typeScans++;
      for (const t of this.readTypes(want)) {
        this.typeSome.set(t.oid, t);
        for (const o of [t.elem, t.basetype]) if (o && !this.typeSome.has(o) && !want.has(o)) this.typesWanted.add(o);
      }
      for (const o of want) if (!this.typeSome.has(o)) this.typeSome.set(o, undefined);
    }
    return this.typeSome.get(oid);
  }

  /** pg_type rows (TYPE_COLUMNS): all, or those of the OIDs in `oids`. */
  private readTypes(oids?: ReadonlySet<number>): TypeInfoRow[] {
    const rows = this.cluster.mappedCatalog(this.db, PG_TYPE_OID, this.cluster.profile.catalogs.pg_type, TYPE_COLUMNS, oids && { column: "oid", value: oids });
    return rows.map((r) => ({
      oid: r.oid as number,
      name: r.typname as string,
      namespace: r.typnamespace as number,
      len: r.typlen as number,
      byval: r.typbyval as boolean,
      type: r.typtype as string,
      category: r.typcategory as string,
      elem: r.typelem as number,
      array: r.typarray as number,
      align: r.typalign as Align,
      storage: r.typstorage as string,
      basetype: r.typbasetype as number,
      typmod: r.typtypmod as number,
      relid: r.typrelid as number,
      input: r.typinput as number,
      notnull: r.typnotnull as boolean,
      defaultBin: (r.typdefaultbin as string | null) ?? undefined,
    }));
  }

  /** Scan a non-mapped catalog found through pg_class. */
  private scanByOid(rawClasses: Map<number, CatalogRow>, oid: number, desc: TupleDesc): CatalogRow[] {
    const r = rawClasses.get(oid);
    if (!r) throw new FormatError("CATALOG_MISSING", `pg_class has no row for catalog ${oid}`, {});
    const path = this.cluster.relationPath((r.reltablespace as number) || this.db.tablespace, this.db.oid, r.relfilenode as number);
    const fork = this.cluster.openFork(path);
    try {
      return readCatalog(fork, desc, { clog: this.cluster.clog, problems: this.cluster.catalogProblems });
    } finally {
      fork.close();
    }
  }

  /** Live rows of any catalog (shared ones too), decoded with its pg_attribute descriptor; only `columns`. */
  catalogRows(oid: number, columns: readonly string[]): CatalogRow[] {
    return this.scanCatalog(oid, this.descriptor(oid), columns);
  }

  private scanCatalog(oid: number, desc: TupleDesc, columns?: readonly string[], match?: ScanOptions["match"]): CatalogRow[] {
    const rel = this.classes.get(oid);
    if (!rel) throw new FormatError("CATALOG_MISSING", `pg_class has no row for catalog ${oid}`, {});
    const fork = this.cluster.openFork(this.path(rel));
    try {
      return readCatalog(fork, desc, { clog: this.cluster.clog, columns, match, problems: this.cluster.catalogProblems });
    } finally {
      fork.close();
    }
  }

  path(rel: RelationInfo, fork: ForkName = "main"): string {
    return this.cluster.relationPath(rel.tablespace, rel.shared ? 0 : this.db.oid, rel.filenode, fork);
  }

  /** pg_attribute rows (ATTRIBUTE_COLUMNS) as descriptors by relation: all, or those of `relOid`. */
  private readAttributes(relOid?: number): Map<number, AttrDesc[]> {
    const rows = this.cluster.mappedCatalog(this.db, PG_ATTRIBUTE_OID, this.cluster.profile.catalogs.pg_attribute, ATTRIBUTE_COLUMNS, relOid === undefined ? undefined : { column: "attrelid", value: relOid });
    const m = new Map<number, AttrDesc[]>();
    for (const r of rows) {
      const attnum = r.attnum as number;
      if (attnum <= 0) continue; // system columns
      const list = m.get(r.attrelid as number) ?? [];
      list.push({
        attnum,
        name: r.attname as string,
        typid: r.atttypid as number,
        typmod: r.atttypmod as number,
        len: r.attlen as number,
        byval: r.attbyval as boolean,
        align: r.attalign as Align,
        storage: r.attstorage as string,
        dropped: r.attisdropped as boolean,
        notnull: r.attnotnull as boolean,
        missing: r.atthasmissing ? (r.attmissingval as Uint8Array | null) : null,
        generated: charFlag(r.attgenerated),
      });
      m.set(r.attrelid as number, list);
    }
    for (const l of m.values()) l.sort((a, b) => a.attnum - b.attnum);
    return m;
  }

  private attributes(): Map<number, AttrDesc[]> {
    this.attrCache ??= this.readAttributes();
    return this.attrCache;
  }

  /** The tuple descriptor of a relation (user attributes in attnum order, dropped ones included). */
  descriptor(relOid: number): TupleDesc {
    // The first few relations asked for (a dump of one table, its TOAST table) read only their
    // own rows of pg_attribute, without decoding the others (most of pg_attribute describes the
    // catalogs); after that, or in a tolerant scan (verify: every row's problems are reported),
    // the whole catalog once.
    if (!this.attrCache && !this.cluster.catalogProblems && this.attrSome.size < DESCRIPTORS_BY_SCAN) {
      let attrs = this.attrSome.get(relOid);
      if (!attrs) {
        attrs = this.readAttributes(relOid).get(relOid) ?? [];
        this.attrSome.set(relOid, attrs);
        if (!this.typeCache) for (const a of attrs) if (!this.typeSome.has(a.typid)) this.typesWanted.add(a.typid);
      }
      return { attrs };
    }
    return { attrs: this.attrSome.get(relOid) ?? this.attributes().get(relOid) ?? [] };
  }

  indexes(): Map<number, IndexInfo> {
    this.indexCache ??= this.readIndexes();
    return this.indexCache;
  }

  /** pg_index rows as IndexInfo by index OID: all, or those whose `match` column has the value. */
  private readIndexes(match?: ScanOptions["match"]): Map<number, IndexInfo> {
    const opc = this.opclasses();
    return new Map(
      this.scanCatalog(PG_INDEX_OID, this.cluster.profile.catalogs.pg_index, undefined, match).map((r) => {
        // a damaged row can decode with NULL arrays: empty, so that verify reports the row
        const opclasses = (r.indclass as number[] | null) ?? [];
        return [
          r.indexrelid as number,
          {
            indexOid: r.indexrelid as number,
            tableOid: r.indrelid as number,
            natts: r.indnatts as number,
            nkeyatts: r.indnkeyatts as number,
            unique: r.indisunique as boolean,
            nullsNotDistinct: (r.indnullsnotdistinct as boolean | undefined) ?? false,
            primary: r.indisprimary as boolean,
            valid: r.indisvalid as boolean,
            keys: (r.indkey as number[] | null) ?? [],
            collations: (r.indcollation as number[] | null) ?? [],
            opclasses,
            opclassNames: opclasses.map((o) => opc.get(o)?.name ?? String(o)),
            options: (r.indoption as number[] | null) ?? [],
            exprs: r.indexprs as string | null,
            pred: r.indpred as string | null,
          },
        ];
      }),
    );
  }

  opclasses(): Map<number, OpclassInfo> {
    this.opclassCache ??= new Map(
      this.scanCatalog(PG_OPCLASS_OID, this.cluster.profile.catalogs.pg_opclass).map((r) => [r.oid as number, { name: r.opcname as string, method: r.opcmethod as number, family: r.opcfamily as number, intype: r.opcintype as number, keytype: r.opckeytype as number, isDefault: r.opcdefault as boolean }]),
    );
    return this.opclassCache;
  }

  /** pg_amproc: the OID of support function `num` of operator family `family` for (left, right) types, if registered. */
  supportProc(family: number, left: number, right: number, num: number): number | undefined {
    this.amprocCache ??= new Map(this.scanCatalog(PG_AMPROC_OID, this.cluster.profile.catalogs.pg_amproc).map((r) => [`${r.amprocfamily}:${r.amproclefttype}:${r.amprocrighttype}:${r.amprocnum}`, r.amproc as number]));
    return this.amprocCache.get(`${family}:${left}:${right}:${num}`);
  }

  /** enum label of every pg_enum row, by the row's OID (the value an enum datum stores) */
  enumLabels(): Map<number, string> {
    this.enumCache ??= new Map(this.scanCatalog(PG_ENUM_OID, this.cluster.profile.catalogs.pg_enum).map((r) => [r.oid as number, r.enumlabel as string]));
    return this.enumCache;
  }

  collations(): Map<number, { name: string; collate: string | null; provider: string; deterministic: boolean }> {
    this.collationCache ??= new Map(
      this.scanCatalog(PG_COLLATION_OID, this.cluster.profile.catalogs.pg_collation).map((r) => [r.oid as number, { name: r.collname as string, collate: r.collcollate as string | null, provider: r.collprovider as string, deterministic: r.collisdeterministic !== false }]),
    );
    return this.collationCache;
  }

  /** pg_attrdef: the default expression (nodeToString text) of each column of a relation that has one, by attnum. */
  attrDefaults(relOid: number): Map<number, string> {
    const rows = this.scanCatalog(PG_ATTRDEF_OID, this.cluster.profile.catalogs.pg_attrdef).filter((r) => r.adrelid === relOid);
    return new Map(rows.map((r) => [r.adnum as number, r.adbin as string]));
  }

  /** pg_trigger rows of a relation: name, tgtype bits, enabled state, internal (constraint) or not, the other table of a foreign key. */
  triggersOf(relOid: number): { name: string; type: number; enabled: string; internal: boolean; constraintRelid: number }[] {
    return this.scanCatalog(PG_TRIGGER_OID, this.cluster.profile.catalogs.pg_trigger)
      .filter((r) => r.tgrelid === relOid)
      .map((r) => ({ name: r.tgname as string, type: r.tgtype as number, enabled: r.tgenabled as string, internal: r.tgisinternal as boolean, constraintRelid: r.tgconstrrelid as number }));
  }

  /** Find a relation by name: "name" (searched in public then pg_catalog then any schema) or "schema.name". */
  findRelation(qualified: string): RelationInfo {
    const dot = qualified.indexOf(".");
    const [schema, name] = dot >= 0 ? [qualified.slice(0, dot), qualified.slice(dot + 1)] : [undefined, qualified];
    const matches = [...this.classes.values()].filter((c) => c.name === name && (schema === undefined || c.namespaceName === schema));
    if (matches.length === 0) throw new FormatError("RELATION_NOT_FOUND", `relation "${qualified}" does not exist in database "${this.db.name}"`, {});
    if (matches.length === 1) return matches[0];
    const pref = ["public", "pg_catalog"];
    for (const p of pref) {
      const m = matches.find((c) => c.namespaceName === p);
      if (m) return m;
    }
    throw new FormatError("RELATION_AMBIGUOUS", `relation name "${qualified}" is ambiguous: ${matches.map((m) => `${m.namespaceName}.${m.name}`).join(", ")}; qualify it with a schema`, {});
  }

  /** Indexes on a table. */
  indexesOf(tableOid: number): IndexInfo[] {
    return [...this.indexes().values()].filter((i) => i.tableOid === tableOid).sort((a, b) => a.indexOid - b.indexOid);
  }

  /** The valid index of a TOAST relation. */
  toastIndexOf(toastOid: number): IndexInfo | undefined {
    // before every index is read (indexes()), and unless the scan is tolerant (verify reports
    // every row's problems), only the TOAST relation's own rows of pg_index: a dump's detoasting
    // needs no more
    const list =
      this.indexCache || this.cluster.catalogProblems
        ? this.indexesOf(toastOid)
        : [...this.readIndexes({ column: "indrelid", value: toastOid }).values()].filter((i) => i.tableOid === toastOid).sort((a, b) => a.indexOid - b.indexOid);
    return list.find((i) => i.valid) ?? list[0];
  }
}
