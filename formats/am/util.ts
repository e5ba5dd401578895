// Small shared helpers for the AM special-space modules.
/** A little-endian uint32 array held in a bytes field (the declaration layer has no arrays). */
export function u32Array(b: Uint8Array): number[] {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: number[] = new Array(b.length >>> 2);
  for (let i = 0; i < out.length; i++) out[i] = dv.getUint32(i * 4, true);
  return out;
}
export function u32ArrayBytes(values: readonly number[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  const dv = new DataView(out.buffer);
  values.forEach((v, i) => dv.setUint32(i * 4, v >>> 0, true));
  return out;
}
/** Names of the set flag bits; unknown bits as one hex entry (pageinspect style, to_hex32). */
export function flagNames(flags: number, names: readonly (readonly [number, string])[]): string[] {
  const out: string[] = [];
  let rest = flags;
  for (const [bit, name] of names) {
    if (flags & bit) out.push(name);
    rest &= ~bit;
  }
  if (rest) out.push(rest.toString(16));
  return out;
}
