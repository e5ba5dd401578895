// liblz4 (the library PostgreSQL links) as a test oracle, via python3 + ctypes (lz4_oracle.py).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "lz4_oracle.py");

export type OracleReq =
  | { op: "safe"; src: Uint8Array; capacity: number }
  | { op: "partial"; src: Uint8Array; target: number; capacity: number }
  | { op: "compress"; src: Uint8Array }
  | { op: "version" };

export interface OracleRes {
  /** liblz4's return value: bytes produced, or -(error input offset) - 1 */
  ret: number;
  out: Uint8Array;
}

/** Run requests through liblz4; a string says why the oracle is unavailable. */
export function liblz4(reqs: OracleReq[]): OracleRes[] | string {
  const parts: Buffer[] = [];
  for (const r of reqs) {
    const h = Buffer.alloc(13);
    const src = r.op === "version" ? new Uint8Array(0) : r.src;
    h.writeUInt8({ safe: 0, partial: 1, compress: 2, version: 3 }[r.op], 0);
    h.writeUInt32LE(r.op === "safe" ? r.capacity : r.op === "partial" ? r.target : 0, 1);
    h.writeUInt32LE(r.op === "partial" ? r.capacity : 0, 5);
    h.writeUInt32LE(src.length, 9);
    parts.push(h, Buffer.from(src.buffer, src.byteOffset, src.byteLength));
  }
  const p = spawnSync("python3", [SCRIPT], { input: Buffer.concat(parts), maxBuffer: 1 << 30 });
  if (p.error) return `python3 not runnable: ${p.error.message}`;
  if (p.status === 3) return p.stderr.toString().trim();
  if (p.status !== 0) throw new Error(`lz4_oracle.py failed (${p.status}): ${p.stderr}`);
  const buf = p.stdout;
  const res: OracleRes[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const ret = buf.readInt32LE(pos);
    const m = buf.readUInt32LE(pos + 4);
    res.push({ ret, out: new Uint8Array(buf.subarray(pos + 8, pos + 8 + m)) });
    pos += 8 + m;
  }
  if (res.length !== reqs.length) throw new Error(`lz4_oracle.py answered ${res.length} of ${reqs.length} requests`);
  return res;
}
