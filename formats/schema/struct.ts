// The declaration layer: one declaration per on-disk struct gives the binary-parser decoder,
// the encoder, the size, field offsets (hex views, generated docs) and the TypeScript type.
// All integers are little-endian (x86-64 PostgreSQL).
import { Parser } from "binary-parser/dist/binary_parser.js";
import { FormatError } from "./errors.js";

export type ScalarType = "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "u64" | "i64" | "f32" | "f64" | "bool";

const SCALAR_SIZE: Record<ScalarType, number> = { u8: 1, i8: 1, bool: 1, u16: 2, i16: 2, u32: 4, i32: 4, f32: 4, u64: 8, i64: 8, f64: 8 };

type ScalarValue<T extends ScalarType> = T extends "u64" | "i64" ? bigint : T extends "bool" ? boolean : number;

interface FieldBase<N extends string> {
  readonly name: N;
  /** What the field means, with units and ranges. */
  readonly doc: string;
}
export interface ScalarField<N extends string = string, T extends ScalarType = ScalarType> extends FieldBase<N> {
  readonly kind: "scalar";
  readonly type: T;
}
export interface BytesField<N extends string = string> extends FieldBase<N> {
  readonly kind: "bytes";
  readonly length: number;
}
/** Several C bit fields packed into one little-endian word, allocated from the least significant bit (GCC x86-64). */
export interface BitsField<N extends string = string, P extends Record<string, number> = Record<string, number>> extends FieldBase<N> {
  readonly kind: "bits";
  readonly word: "u16" | "u32";
  readonly parts: P;
  readonly partDocs: { readonly [K in keyof P]?: string };
}
export interface NestField<N extends string = string, S extends AnyStruct = AnyStruct> extends FieldBase<N> {
  readonly kind: "nest";
  readonly struct: S;
}
export type Field = ScalarField | BytesField | BitsField | NestField;

type FieldValue<F> = F extends ScalarField<infer N, infer T>
  ? { [K in N]: ScalarValue<T> }
  : F extends BytesField<infer N>
    ? { [K in N]: Uint8Array }
    : F extends BitsField<string, infer P>
      ? { [K in keyof P]: number }
      : F extends NestField<infer N, infer S>
        ? { [K in N]: InferStruct<S> }
        : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Flatten<T> = { [K in keyof T]: T[K] };
export type FieldsValue<F extends readonly Field[]> = Flatten<UnionToIntersection<FieldValue<F[number]>>>;
export type InferStruct<S> = S extends Struct<infer F> ? FieldsValue<F> : never;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyStruct = Struct<any>;

/** A generated little-endian getter: the field of the struct that starts at `at` in `buf`. It
 * does not check bounds: a hot path checks the struct's extent once (`check`) and then reads. */
export type FieldGetter<V> = (buf: Uint8Array, at: number) => V;
type GetterOf<F> = F extends ScalarField<infer N, infer T>
  ? { [K in N]: FieldGetter<ScalarValue<T>> }
  : F extends BytesField<infer N>
    ? { [K in N]: FieldGetter<Uint8Array> }
    : F extends BitsField<infer N>
      ? { [K in N]: FieldGetter<number> }
      : F extends NestField<infer N, infer S>
        ? { [K in N]: S extends Struct<infer G> ? Getters<G> : never }
        : never;
/** One getter per field (a bit-field word as a whole; a nested struct as its own getters, offsets
 * already added). */
export type Getters<F extends readonly Field[]> = Flatten<UnionToIntersection<GetterOf<F[number]>>>;

/** Every name a value of the struct has (bit-field parts are flattened into the struct). */
type ValueKeys<F extends readonly Field[]> = keyof FieldsValue<F> & string;

/** One labelled byte range of a struct, for hex views and generated docs. */
export interface FieldLayout {
  /** dotted path, e.g. "checkPointCopy.nextOid" */
  path: string;
  offset: number;
  size: number;
  type: string;
  doc: string;
  /** for bit fields: the bit range within the word */
  bits?: { shift: number; width: number };
}

// Field constructors. Names are PostgreSQL's own field names, so they grep against the C headers.
export const u8 = <N extends string>(name: N, doc: string): ScalarField<N, "u8"> => ({ kind: "scalar", name, type: "u8", doc });
export const i8 = <N extends string>(name: N, doc: string): ScalarField<N, "i8"> => ({ kind: "scalar", name, type: "i8", doc });
export const bool = <N extends string>(name: N, doc: string): ScalarField<N, "bool"> => ({ kind: "scalar", name, type: "bool", doc });
export const u16 = <N extends string>(name: N, doc: string): ScalarField<N, "u16"> => ({ kind: "scalar", name, type: "u16", doc });
export const i16 = <N extends string>(name: N, doc: string): ScalarField<N, "i16"> => ({ kind: "scalar", name, type: "i16", doc });
export const u32 = <N extends string>(name: N, doc: string): ScalarField<N, "u32"> => ({ kind: "scalar", name, type: "u32", doc });
export const i32 = <N extends string>(name: N, doc: string): ScalarField<N, "i32"> => ({ kind: "scalar", name, type: "i32", doc });
export const u64 = <N extends string>(name: N, doc: string): ScalarField<N, "u64"> => ({ kind: "scalar", name, type: "u64", doc });
export const i64 = <N extends string>(name: N, doc: string): ScalarField<N, "i64"> => ({ kind: "scalar", name, type: "i64", doc });
export const f32 = <N extends string>(name: N, doc: string): ScalarField<N, "f32"> => ({ kind: "scalar", name, type: "f32", doc });
export const f64 = <N extends string>(name: N, doc: string): ScalarField<N, "f64"> => ({ kind: "scalar", name, type: "f64", doc });
export const bytes = <N extends string>(name: N, length: number, doc: string): BytesField<N> => ({ kind: "bytes", name, length, doc });
/** Padding or reserved bytes: kept verbatim so that round trips stay byte-exact. */
export const pad = <N extends string>(name: N, length: number): BytesField<N> => ({ kind: "bytes", name, length, doc: "padding (kept verbatim)" });
export const bits16 = <N extends string, P extends Record<string, number>>(name: N, parts: P, doc: string, partDocs: { [K in keyof P]?: string } = {}): BitsField<N, P> => ({ kind: "bits", name, word: "u16", parts, partDocs, doc });
export const bits32 = <N extends string, P extends Record<string, number>>(name: N, parts: P, doc: string, partDocs: { [K in keyof P]?: string } = {}): BitsField<N, P> => ({ kind: "bits", name, word: "u32", parts, partDocs, doc });
export const nest = <N extends string, S extends AnyStruct>(name: N, struct: S, doc: string): NestField<N, S> => ({ kind: "nest", name, struct, doc });

function fieldSize(f: Field): number {
  switch (f.kind) {
    case "scalar":
      return SCALAR_SIZE[f.type];
    case "bytes":
      return f.length;
    case "bits":
      return f.word === "u16" ? 2 : 4;
    case "nest":
      return f.struct.size;
  }
}

export class Struct<F extends readonly Field[]> {
  /** Size in bytes (no trailing alignment padding unless declared). */
  readonly size: number;
  /** Byte offset of every top-level field and of every bit-field part (the offset of its word). */
  readonly offsets: { readonly [K in ValueKeys<F>]: number } & { readonly [K in F[number]["name"]]: number };
  /** binary-parser decoder generated from the declaration. */
  readonly parser: Parser;
  /** Fast little-endian getters generated from the declaration, for hot paths (no DataView, no
   * allocation): `HeapTupleHeaderData.get.t_hoff(page, at)`. */
  readonly get: Getters<F>;
  private readonly bitFields: BitsField[];
  private readonly nestFields: NestField[];

  constructor(
    /** The C struct name, e.g. "PageHeaderData". */
    readonly name: string,
    /** The PostgreSQL source file that defines it. */
    readonly source: string,
    readonly fields: F,
  ) {
    const offsets: Record<string, number> = {};
    let off = 0;
    let p = new Parser().endianness("little");
    for (const f of fields as readonly Field[]) {
      if (f.name in offsets) throw new Error(`${name}: duplicate field ${f.name}`);
      offsets[f.name] = off;
      switch (f.kind) {
        case "scalar":
          p = addScalar(p, f);
          break;
        case "bytes":
          p = p.buffer(f.name, { length: f.length });
          break;
        case "bits": {
          const total = Object.values(f.parts).reduce((a, b) => a + b, 0);
          if (total !== (f.word === "u16" ? 16 : 32)) throw new Error(`${name}.${f.name}: bit widths add to ${total}`);
          for (const part of Object.keys(f.parts)) offsets[part] = off;
          p = f.word === "u16" ? p.uint16le(f.name) : p.uint32le(f.name);
          break;
        }
        case "nest":
          p = p.nest(f.name, { type: f.struct.parser });
          break;
      }
      off += fieldSize(f);
    }
    this.size = off;
    this.offsets = offsets as never;
    this.parser = p;
    this.get = getters(fields as readonly Field[], 0) as never;
    this.bitFields = (fields as readonly Field[]).filter((f): f is BitsField => f.kind === "bits");
    this.nestFields = (fields as readonly Field[]).filter((f): f is NestField => f.kind === "nest");
  }

  /** Throw STRUCT_TRUNCATED unless the whole struct fits in `buf` at `offset`; the error names
   * the struct, the first field cut off, its offset and the bytes needed. */
  check(buf: Uint8Array, offset = 0, what: string = this.name): void {
    if (offset >= 0 && offset + this.size <= buf.length) return;
    const avail = Math.max(0, buf.length - offset);
    const cut = this.layout().find((l) => l.offset + l.size > avail);
    const field = cut ? ` (${what}.${cut.path}, ${cut.size} bytes at offset ${offset + cut.offset}, is cut off)` : "";
    throw new FormatError("STRUCT_TRUNCATED", `${what} needs ${this.size} bytes at offset ${offset}, only ${avail} available${field}`, { offset, path: cut ? `${what}.${cut.path}` : what });
  }

  /** Decode from `buf` at `offset`. Throws FormatError (check()) when fewer than `size` bytes remain. */
  decode(buf: Uint8Array, offset = 0): FieldsValue<F> {
    this.check(buf, offset);
    const view = offset === 0 && buf.length === this.size ? buf : buf.subarray(offset, offset + this.size);
    const raw = this.parser.parse(view as Buffer) as Record<string, unknown>;
    return this.finish(raw) as FieldsValue<F>;
  }

  private finish(raw: Record<string, unknown>): Record<string, unknown> {
    for (const f of this.bitFields) {
      let w = raw[f.name] as number;
      delete raw[f.name];
      for (const [part, width] of Object.entries(f.parts)) {
        raw[part] = width === 32 ? w >>> 0 : w & ((1 << width) - 1);
        w = width === 32 ? 0 : w >>> width;
      }
    }
    for (const f of this.nestFields) raw[f.name] = f.struct.finish(raw[f.name] as Record<string, unknown>);
    for (const f of this.fields as readonly Field[]) {
      if (f.kind === "bytes") {
        const b = raw[f.name] as Buffer;
        raw[f.name] = new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
      }
    }
    return raw;
  }

  /** Encode into `out` at `offset` (out must have room). */
  encodeInto(value: FieldsValue<F>, out: Uint8Array, offset = 0): void {
    if (offset + this.size > out.length) throw new RangeError(`${this.name}: no room for ${this.size} bytes at ${offset}`);
    const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
    this.write(value as Record<string, unknown>, dv, out, offset);
  }

  /** Encode to a new buffer of exactly `size` bytes. */
  encode(value: FieldsValue<F>): Uint8Array {
    const out = new Uint8Array(this.size);
    this.encodeInto(value, out, 0);
    return out;
  }

  private write(v: Record<string, unknown>, dv: DataView, out: Uint8Array, base: number): void {
    let off = base;
    for (const f of this.fields as readonly Field[]) {
      switch (f.kind) {
        case "scalar":
          writeScalar(dv, off, f.type, v[f.name]);
          break;
        case "bytes": {
          const b = v[f.name] as Uint8Array | undefined;
          if (b && b.length !== f.length) throw new RangeError(`${this.name}.${f.name}: expected ${f.length} bytes, got ${b.length}`);
          if (b) out.set(b, off);
          else out.fill(0, off, off + f.length);
          break;
        }
        case "bits": {
          let w = 0;
          let shift = 0;
          for (const [part, width] of Object.entries(f.parts)) {
            const x = Number(v[part] ?? 0);
            const max = width === 32 ? 0xffffffff : (1 << width) - 1;
            if (x < 0 || x > max || !Number.isInteger(x)) throw new RangeError(`${this.name}.${part}: ${x} does not fit in ${width} bits`);
            w += x * 2 ** shift;
            shift += width;
          }
          if (f.word === "u16") dv.setUint16(off, w, true);
          else dv.setUint32(off, w >>> 0, true);
          break;
        }
        case "nest":
          f.struct.write(v[f.name] as Record<string, unknown>, dv, out, off);
          break;
      }
      off += fieldSize(f);
    }
  }

  /** Every labelled byte range, nested structs expanded and bit-field parts listed. */
  layout(prefix = "", base = 0): FieldLayout[] {
    const out: FieldLayout[] = [];
    let off = base;
    for (const f of this.fields as readonly Field[]) {
      const size = fieldSize(f);
      switch (f.kind) {
        case "scalar":
          out.push({ path: prefix + f.name, offset: off, size, type: f.type, doc: f.doc });
          break;
        case "bytes":
          out.push({ path: prefix + f.name, offset: off, size, type: `bytes[${f.length}]`, doc: f.doc });
          break;
        case "bits": {
          let shift = 0;
          for (const [part, width] of Object.entries(f.parts)) {
            out.push({ path: prefix + part, offset: off, size, type: `${f.word}:${width}`, doc: f.partDocs[part] ?? f.doc, bits: { shift, width } });
            shift += width;
          }
          break;
        }
        case "nest":
          out.push(...f.struct.layout(prefix + f.name + ".", off));
          break;
      }
      off += size;
    }
    return out;
  }
}

/** A getter per scalar type reading at a fixed offset from the struct's start. */
function scalarGetter(t: ScalarType, off: number): FieldGetter<unknown> {
  switch (t) {
    case "u8":
      return (b, at) => b[at + off]!;
    case "i8":
      return (b, at) => (b[at + off]! << 24) >> 24;
    case "bool":
      return (b, at) => b[at + off] !== 0;
    case "u16":
      return (b, at) => b[at + off]! | (b[at + off + 1]! << 8);
    case "i16":
      return (b, at) => ((b[at + off]! | (b[at + off + 1]! << 8)) << 16) >> 16;
    case "u32":
      return (b, at) => (b[at + off]! | (b[at + off + 1]! << 8) | (b[at + off + 2]! << 16) | (b[at + off + 3]! << 24)) >>> 0;
    case "i32":
      return (b, at) => b[at + off]! | (b[at + off + 1]! << 8) | (b[at + off + 2]! << 16) | (b[at + off + 3]! << 24);
    case "u64":
      return (b, at) => new DataView(b.buffer, b.byteOffset).getBigUint64(at + off, true);
    case "i64":
      return (b, at) => new DataView(b.buffer, b.byteOffset).getBigInt64(at + off, true);
    case "f32":
      return (b, at) => new DataView(b.buffer, b.byteOffset).getFloat32(at + off, true);
    case "f64":
      return (b, at) => new DataView(b.buffer, b.byteOffset).getFloat64(at + off, true);
  }
}

function getters(fields: readonly Field[], base: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let off = base;
  for (const f of fields) {
    const at = off;
    if (f.kind === "scalar") out[f.name] = scalarGetter(f.type, at);
    else if (f.kind === "bits") out[f.name] = scalarGetter(f.word, at);
    else if (f.kind === "bytes") out[f.name] = (b: Uint8Array, s: number) => b.subarray(s + at, s + at + f.length);
    else out[f.name] = getters(f.struct.fields as readonly Field[], at);
    off += fieldSize(f);
  }
  return Object.freeze(out);
}

function addScalar(p: Parser, f: ScalarField): Parser {
  switch (f.type) {
    case "u8":
      return p.uint8(f.name);
    case "i8":
      return p.int8(f.name);
    case "bool":
      return p.uint8(f.name, { formatter: (x: number) => x !== 0 });
    case "u16":
      return p.uint16le(f.name);
    case "i16":
      return p.int16le(f.name);
    case "u32":
      return p.uint32le(f.name);
    case "i32":
      return p.int32le(f.name);
    case "u64":
      return p.uint64le(f.name);
    case "i64":
      return p.int64le(f.name);
    case "f32":
      return p.floatle(f.name);
    case "f64":
      return p.doublele(f.name);
  }
}

function writeScalar(dv: DataView, off: number, t: ScalarType, x: unknown): void {
  switch (t) {
    case "u8":
      return dv.setUint8(off, Number(x));
    case "i8":
      return dv.setInt8(off, Number(x));
    case "bool":
      return dv.setUint8(off, x ? 1 : 0);
    case "u16":
      return dv.setUint16(off, Number(x), true);
    case "i16":
      return dv.setInt16(off, Number(x), true);
    case "u32":
      return dv.setUint32(off, Number(x), true);
    case "i32":
      return dv.setInt32(off, Number(x), true);
    case "u64":
      return dv.setBigUint64(off, BigInt(x as bigint), true);
    case "i64":
      return dv.setBigInt64(off, BigInt(x as bigint), true);
    case "f32":
      return dv.setFloat32(off, Number(x), true);
    case "f64":
      return dv.setFloat64(off, Number(x), true);
  }
}

/** Declare an on-disk struct. */
export function defineStruct<const F extends readonly Field[]>(name: string, source: string, fields: F): Struct<F> {
  return new Struct(name, source, fields);
}

/** Every declared struct, for generated docs (registration throws on a duplicate name). */
export const registry = new Map<string, AnyStruct>();
export function register<S extends AnyStruct>(s: S): S {
  if (registry.has(s.name)) throw new Error(`struct ${s.name} declared twice`);
  registry.set(s.name, s);
  return s;
}
