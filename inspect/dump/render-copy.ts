// COPY TO's output of a dump: the header line (HEADER) on a table's relation event; the rows
// themselves are written while the pages are scanned, by `writer` given to the dump as
// DumpOptions.copyTo (copy-rows.ts).
import type { DumpEvent } from "./dump.js";
import { COPY_TEXT, CopyFieldWriter, type CopyOptions, type RowOut } from "./copy-rows.js";

export type { CopyOptions } from "./copy-rows.js";

export class CopyRenderer {
  private headerDone = false;
  /** the dump's DumpOptions.copyTo */
  readonly writer: CopyFieldWriter;

  constructor(
    out: RowOut,
    private readonly o: CopyOptions = COPY_TEXT,
  ) {
    this.writer = new CopyFieldWriter(out, o);
  }

  event(e: DumpEvent): void {
    if (e.type === "relation" && this.o.header && !this.headerDone && e.target.columns) {
      this.headerDone = true;
      this.writer.header(e.target.columns);
    }
  }
}
