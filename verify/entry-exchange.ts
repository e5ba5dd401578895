// Index entry tables handed between threads. A table whose B-tree indexes are split over several
// scheduling units is read once for all their heapallindexed probes: each index unit collects its
// entries (the index checks run on whichever thread claimed the unit), groups them into shared
// memory and publishes them here; the unit that checks the table, run by the main thread, takes
// them all and feeds every probe from its own scan (docs/verify-performance.md). A unit that
// could not make an index's entries publishes that too, so the table's check never waits for
// entries that will not come.
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import type { SharedFingerprints } from "./nbtree/fingerprint.js";

/** One index's entries, or word that there are none (its check failed or found the index unusable). */
export interface EntryPayload {
  db: number;
  oid: number;
  shared?: SharedFingerprints;
  /** entries collected (the index report's stats.indexEntries) */
  entries?: number;
}

export interface EntryExchange {
  publish(p: EntryPayload): void;
  /** has (db, oid) been published? */
  has(db: number, oid: number): boolean;
  /** the payload of (db, oid), once published (undefined before); taken once, then forgotten */
  take(db: number, oid: number): EntryPayload | undefined;
}

const key = (db: number, oid: number): string => `${db}:${oid}`;

/** The main thread's side: its own publications and those the workers send over their ports. */
export class MainExchange implements EntryExchange {
  private readonly got = new Map<string, EntryPayload>();

  constructor(private readonly ports: MessagePort[] = []) {}

  publish(p: EntryPayload): void {
    this.got.set(key(p.db, p.oid), p);
  }

  has(db: number, oid: number): boolean {
    if (!this.got.has(key(db, oid))) this.drain();
    return this.got.has(key(db, oid));
  }

  take(db: number, oid: number): EntryPayload | undefined {
    this.drain();
    const p = this.got.get(key(db, oid));
    // the shared memory goes when the table's probes are done with it, not at the end of the run
    this.got.delete(key(db, oid));
    return p;
  }

  private drain(): void {
    for (const port of this.ports) {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
        const p = m.message as EntryPayload;
        this.got.set(key(p.db, p.oid), p);
      }
    }
  }
}

/** A worker's side: publications go to the main thread. */
export class WorkerExchange implements EntryExchange {
  private readonly sent = new Set<string>();

  constructor(private readonly port: MessagePort) {}

  publish(p: EntryPayload): void {
    this.sent.add(key(p.db, p.oid));
    this.port.postMessage(p);
  }

  /** published from this thread */
  has(db: number, oid: number): boolean {
    return this.sent.has(key(db, oid));
  }

  take(): EntryPayload | undefined {
    return undefined;
  }
}
