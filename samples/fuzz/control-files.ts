// Fuzzing pg_control and pg_filenode.map: a declared field set to a boundary value (mutate.ts),
// the CRC made right again half of the time so that the decoders behind the CRC check run, then
// every reader of the cluster's control files: the special-file dumps and opening the cluster
// and a database's catalog. Like the page campaign, only findings or a FormatError may come out.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Rng } from "../prng.js";
import { applyPatch, mutateField, type Patch } from "./mutate.js";
import { ControlFileData } from "../../formats/storage/control-file.js";
import { RelMapFile } from "../../formats/storage/relmap.js";
import { crc32c } from "../../formats/storage/crc32c.js";
import { Cluster } from "../../formats/catalog/cluster.js";
import { FormatError } from "../../formats/schema/errors.js";
import { dumpSpecialFile } from "../../inspect/dump/special-files.js";
import type { FieldLayout } from "../../formats/schema/struct.js";

export interface ControlFuzzFailure {
  round: number;
  file: string;
  patches: Patch[];
  crcFixed: boolean;
  error: string;
}

/** Rounds of mutated pg_control / pg_filenode.map files; the files are restored after each. */
export function fuzzControlFiles(o: { pgdata: string; database: string; seed: number; rounds: number }): { rounds: number; failures: ControlFuzzFailure[]; errors: Map<string, number> } {
  const cluster = new Cluster(o.pgdata);
  const dbOid = cluster.database(o.database).db.oid;
  // each file with its declared layout and the offset of its CRC
  const control = { name: ControlFileData.name, layout: ControlFileData.layout(), crcAt: ControlFileData.offsets.crc };
  const relmap = { name: RelMapFile.name, layout: RelMapFile.layout(), crcAt: RelMapFile.offsets.crc };
  const targets: [string, { name: string; layout: FieldLayout[]; crcAt: number }][] = [
    [join(o.pgdata, "global", "pg_control"), control],
    [join(o.pgdata, "global", "pg_filenode.map"), relmap],
    [join(o.pgdata, "base", String(dbOid), "pg_filenode.map"), relmap],
  ];
  const failures: ControlFuzzFailure[] = [];
  const errors = new Map<string, number>();
  for (let round = 0; round < o.rounds; round++) {
    const rng = new Rng(o.seed, `pgdisk-fuzz/control/${round}`);
    const [file, struct] = rng.pick(targets);
    const original = new Uint8Array(readFileSync(file));
    const bytes = original.slice();
    const fields = struct.layout.filter((f) => f.path !== "crc" && f.size <= 8);
    const patches: Patch[] = [];
    for (let k = rng.int(1, 3); k > 0; k--) {
      const p = mutateField(bytes, 0, rng.pick(fields), rng, struct.name);
      applyPatch(bytes, p);
      patches.push(p);
    }
    const crcFixed = rng.chance(0.5);
    const crcAt = struct.crcAt;
    if (crcFixed) new DataView(bytes.buffer).setUint32(crcAt, crc32c(bytes.subarray(0, crcAt)), true);
    writeFileSync(file, bytes);
    try {
      for (const read of [() => dumpSpecialFile(file), () => new Cluster(o.pgdata).database(o.database).classes.size]) {
        try {
          read();
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
          errors.set(e.code, (errors.get(e.code) ?? 0) + 1);
        }
      }
    } catch (e) {
      failures.push({ round, file, patches, crcFixed, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    } finally {
      writeFileSync(file, original);
    }
  }
  return { rounds: o.rounds, failures, errors };
}
