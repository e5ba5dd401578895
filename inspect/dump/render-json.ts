// Streaming JSON document, schema "pgdisk.dump/1" (docs/dump-json.md):
// {"schema":"pgdisk.dump/1","relations":[{"target":{…},"pages":[…],"findings":[…]}],"summary":{…}}
import type { DumpEvent } from "./dump.js";

export class JsonRenderer {
  private relOpen = false;
  private firstRel = true;
  private firstPage = true;
  private pendingFindings: unknown[] = [];

  constructor(
    private readonly write: (s: string) => void,
    private readonly writeBytes: (b: Uint8Array) => void = () => {
      throw new Error("no byte sink");
    },
  ) {
    this.write('{"schema":"pgdisk.dump/1","relations":[');
  }

  event(e: DumpEvent): void {
    switch (e.type) {
      case "relation":
        this.closeRel();
        this.write(`${this.firstRel ? "" : ","}\n{"target":${JSON.stringify(e.target)},"pages":[`);
        this.firstRel = false;
        this.relOpen = true;
        this.firstPage = true;
        return;
      case "page":
        this.write(`${this.firstPage ? "" : ","}\n${JSON.stringify(e.page)}`);
        this.firstPage = false;
        return;
      case "finding":
        this.pendingFindings.push(e.finding);
        return;
      case "end":
        this.closeRel();
        this.write(`\n],"summary":${JSON.stringify(e.summary)}}\n`);
        return;
    }
  }

  /** Pages rendered elsewhere (a worker): JSON objects joined by ",\n", as UTF-8; `continued`: more of the previous range. */
  fragmentBytes(bytes: Uint8Array, empty: boolean, continued = false): void {
    if (empty) return;
    if (!continued) this.write(this.firstPage ? "\n" : ",\n");
    this.writeBytes(bytes);
    this.firstPage = false;
  }

  private closeRel(): void {
    if (!this.relOpen) return;
    this.write(`],"findings":${JSON.stringify(this.pendingFindings)}}`);
    this.pendingFindings = [];
    this.relOpen = false;
  }
}
