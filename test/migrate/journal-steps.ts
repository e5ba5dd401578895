// Every step kind of the journal, in order, on the data directory argv[2], for journal.test.ts
// (run as a child process, so that PGDISK_FAULT_AT=journal-N kills it right after record N).
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Journal } from "../../migrate/journal.js";
import { clusterOwner } from "../../migrate/file-owner.js";

const pgdata = process.argv[2]!;
const owner = clusterOwner(pgdata);
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const j = Journal.create(pgdata, { test: "every step" }, owner);
j.fenceUp();
j.createFile(join(pgdata, "created.txt"), text("new\n"));
j.replaceFile(join(pgdata, "replaced.txt"), text("replacement\n"));
j.appendToFile(join(pgdata, "appended.txt"), text("more\n"));
j.removeFile(join(pgdata, "removed.txt"));
j.updateControl((f) => void (f.checkPointCopy.nextOid += 1000));
j.beginUnit("relation 99999");
const fork = join(pgdata, "base", "1", "99999");
j.guardFork(fork);
// what RelationWriter does: new segments under temporary names, renamed over the old ones
writeFileSync(`${fork}.pgdisk-tmp`, "rewritten segment 0");
writeFileSync(`${fork}.1.pgdisk-tmp`, "a new segment 1");
renameSync(`${fork}.pgdisk-tmp`, fork);
renameSync(`${fork}.1.pgdisk-tmp`, `${fork}.1`);
j.endUnit("relation 99999", { ok: true });
j.commit(null);
j.finish();
