// The browser's components under ink-testing-library at a fixed size: the presentational pieces
// with plain data, then the whole app on the tiny sample driven by keys, asserting on the last
// frame. After keys, a test waits until the frame shows what the keys lead to (`until`): how
// long rendering takes never decides the outcome.
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { render } from "ink-testing-library";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tinySample, tinySampleCopy } from "../fixtures/sample.js";
import { resolveByName } from "../../inspect/dump/target.js";
import { dumpRelation } from "../../inspect/dump/dump.js";
import { deformHeapTuple } from "../../formats/heap/deform.js";
import { RelationFork } from "../../formats/storage/relfile.js";
import { at } from "../../inspect/browse/navigation.js";
import { pageRegions } from "../../inspect/browse/hex-layout.js";
import { BrowseSession } from "../../inspect/browse/session.js";
import { BrowseApp } from "../../inspect/browse/components/BrowseApp.js";
import { RowList } from "../../inspect/browse/components/RowList.js";
import { HexView } from "../../inspect/browse/components/HexView.js";
import { Minimap } from "../../inspect/browse/components/Minimap.js";
import { Footer } from "../../inspect/browse/components/Footer.js";
import { fitHints, footerHints } from "../../inspect/browse/keys.js";
import { StatusLine } from "../../inspect/browse/components/StatusLine.js";
import type { HexPageView, MinimapCell, Row } from "../../inspect/browse/rows.js";

const DOWN = "\u001B[B";
const UP = "\u001B[A";
const LEFT = "\u001B[D";
const RIGHT = "\u001B[C";
const ENTER = "\r";
const BACKSPACE = "\u007f";

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const strip = (s: string): string => s.replace(/\u001B\[[0-9;]*m/g, "");
const frame = (f: string | undefined): string[] => strip(f ?? "").split("\n");

/** Type keys one at a time, as a person at a terminal would. */
async function type(stdin: { write: (s: string) => void }, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    stdin.write(k);
    await tick(20);
  }
}

/** The UI's patience: far beyond any render; reached only when the awaited screen never comes. */
const UNTIL_LIMIT_MS = 60_000;

/** Waits until the last frame satisfies `ok` and returns it; fails with the last frame seen. */
async function until(lastFrame: () => string | undefined, ok: (f: string[]) => boolean, what: string): Promise<string[]> {
  const deadline = Date.now() + UNTIL_LIMIT_MS;
  for (;;) {
    const f = frame(lastFrame());
    if (ok(f)) return f;
    if (Date.now() > deadline) assert.fail(`never shown: ${what}\nlast frame:\n${f.join("\n")}`);
    await tick(10);
  }
}
const line0 = (re: RegExp) => (f: string[]): boolean => re.test(f[0]);
const anyLine = (re: RegExp) => (f: string[]): boolean => f.some((l) => re.test(l));

let pgdata = "";
before(async () => {
  pgdata = (await tinySample()).pgdata;
});

test("RowList: window, selection, problem marks, label column, truncation", () => {
  const rows: Row[] = Array.from({ length: 30 }, (_, i) => ({ key: `r${i}`, label: `row ${i}`, text: `text ${i} ${"x".repeat(100)}`, problem: i === 12, note: "n" }));
  const { lastFrame, unmount } = render(<RowList rows={rows} cursor={12} top={10} height={5} width={60} labelWidth={10} />);
  const lines = frame(lastFrame());
  assert.equal(lines.length, 5);
  assert.match(lines[0], /^ {2}row 10 {5}text 10 x+/);
  assert.match(lines[2], /^›!row 12 {5}text 12/);
  for (const l of lines) assert.ok(l.length <= 60, `line of ${l.length} columns: ${l}`);
  unmount();
});

test("HexView: offsets, bytes, labels of the fields starting on each line, the selected field described", () => {
  const bytes = new Uint8Array(64).map((_, i) => i);
  const view: HexPageView = {
    kind: "hex",
    title: "t",
    bytes,
    defaultCursor: 1,
    regions: [
      { key: "hdr.a", label: "pd_a", start: 0, end: 4, category: "header", value: "50462976", doc: "first field", view: "page", row: "hdr.a" },
      { key: "hdr.b", label: "pd_b", start: 4, end: 20, category: "linp", value: "x", doc: "second field", view: "page", row: "hdr.b" },
      { key: "rest", label: "rest", start: 20, end: 64, category: "free", view: "page", row: "free", problem: true },
    ],
  };
  const { lastFrame, unmount } = render(<HexView view={view} cursor={1} top={0} height={4} width={80} bytesPerLine={16} />);
  const lines = frame(lastFrame());
  assert.equal(lines[0], "0000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  pd_a, pd_b");
  assert.match(lines[1], /^0010  10 11 12 13 14 15 .*  rest$/);
  assert.match(lines[2], /^0020 .*… rest$/);
  assert.match(lines[4], /^pd_b  bytes 4\.\.19 \(16\)  = x$/);
  assert.equal(lines[5], "second field");
  unmount();
});

test("Minimap: one glyph per cell, fill as height, problems and new pages marked", () => {
  const cells: MinimapCell[] = [
    { from: 0, to: 1, sample: 0, am: "btree", kind: "meta", fill: 0.1, problem: false },
    { from: 1, to: 2, sample: 1, am: "heap", kind: "data", fill: 1, problem: false },
    { from: 2, to: 3, sample: 2, am: "heap", kind: "data", fill: 0.5, problem: false },
    { from: 3, to: 4, sample: 3, am: "heap", kind: "new", fill: 0, problem: false },
    { from: 4, to: 5, sample: 4, am: "heap", kind: "data", fill: 0.9, problem: true },
  ];
  const { lastFrame, unmount } = render(<Minimap cells={cells} lines={1} width={40} cursorBlock={1} visibleFrom={0} visibleTo={3} />);
  assert.equal(frame(lastFrame())[0], " M█▄·!");
  unmount();
});

test("Footer and StatusLine", () => {
  const f = render(<Footer hints={[["q", "quit"], ["g", "go"]]} />);
  assert.equal(frame(f.lastFrame())[0], " q  quit   g  go");
  f.unmount();
  const s = render(<StatusLine prompt={{ kind: "go", text: "(0,4" }} width={80} />);
  assert.match(frame(s.lastFrame())[0], /^go to \(block, TID b,o, or relation name\): \(0,4 ?$/);
  s.unmount();
  const m = render(<StatusLine message={{ text: "no block 99", error: true }} width={80} />);
  assert.equal(frame(m.lastFrame())[0], "no block 99");
  m.unmount();
});

function assertFits(lines: string[], cols: number, rows: number): void {
  assert.ok(lines.length <= rows - 1, `${lines.length} lines for a ${rows}-line terminal`);
  for (const l of lines) assert.ok(l.length <= cols, `line of ${l.length} columns: "${l}"`);
}

test("the app at 80x24: tree → table → page → item → TOAST → value → back, hex and back to the field", async () => {
  // What the screens must show, from the dump engine and the catalog (not hard-coded figures).
  const r = resolveByName(pgdata, "pgdisk_sample", "toast_docs");
  const toastRel = r.catalog!.classes.get(r.rel!.toastRelid)!;
  const fork = new RelationFork(r.path, r.geometry);
  const nblocks = fork.nblocks;
  const page0 = fork.readBlock(0);
  fork.close();
  let p0: any;
  for (const e of dumpRelation(r, { detoast: true, blocks: { from: 0, to: 1 } })) if (e.type === "page") p0 = e.page;
  const target = p0.items.find((it: any) => it.heap?.values?.find((v: any) => v.name === "body")?.toast);
  assert.ok(target, "block 0 of toast_docs holds a TOASTed body");
  const lp: number = target.lp;
  const bodyV = target.heap.values.find((v: any) => v.name === "body");
  const stored: number = bodyV.toast.extsize;
  const chunks = Math.ceil(stored / 1996);
  const lines = Math.ceil(bodyV.value.length / 79);
  const slot = deformHeapTuple(page0.subarray(target.lp_off, target.lp_off + target.lp_len), r.catalog!.descriptor(r.rel!.oid)).attrs[3];
  const bodyStart = target.lp_off + slot.off;
  const downs = (n: number) => Array.from({ length: n }, () => DOWN);

  const session = new BrowseSession({ pgdata, database: "pgdisk_sample" });
  const { lastFrame, stdin, unmount } = render(<BrowseApp session={session} size={{ columns: 80, rows: 24 }} />);
  try {
    let f = await until(lastFrame, anyLine(/^›.*accounts .* table/), "the tree, cursor on the first table");
    assertFits(f, 80, 24);
    assert.match(f[0], /pgdisk browse › cluster /);
    assert.ok(f.some((l) => /▾ pgdisk_sample/.test(l)), "start database expanded");
    assert.ok(f.some((l) => /^›.*accounts .* table/.test(l)), "cursor on the first table");
    assert.match(f[f.length - 1], / q {2}quit/);

    // Tree navigation: down to toast_docs (accounts, all_types, compressed_docs, embeddings, toast_docs).
    await type(stdin, DOWN, DOWN, DOWN, DOWN);
    f = await until(lastFrame, anyLine(/^›.*toast_docs/), "cursor on toast_docs");
    assert.ok(f.some((l) => /^›.*toast_docs/.test(l)), "cursor on toast_docs");
    assert.match(f[f.length - 2], /⏎ pages of public\.toast_docs/);
    // Tab expands the table: its TOAST relation and indexes appear.
    await type(stdin, "\t");
    f = await until(lastFrame, anyLine(/index toast_docs_pkey/), "toast_docs expanded");
    assert.ok(f.some((l) => new RegExp(`toast ${toastRel.name} .*\\d+(\\.\\d)? MiB`).test(l)), "TOAST relation with its size");
    assert.ok(f.some((l) => /index toast_docs_pkey/.test(l)), "index listed");
    await type(stdin, ENTER);
    f = await until(lastFrame, line0(/public\.toast_docs$/), "the pages of toast_docs");
    assert.match(f[1], new RegExp(`heap \\(relkind r\\) {2}${nblocks} blocks`));
    assert.ok(f.some((l) => new RegExp(`^›\\s+0 {2}heap\\/data\\s+${p0.items.length}\\s+${p0.header.freeSpace}`).test(l)), "block 0 listed with its items and free space");

    await type(stdin, ENTER);
    f = await until(lastFrame, line0(/public\.toast_docs › block 0/), "block 0 of toast_docs");
    assertFits(f, 80, 24);
    assert.match(f[0], /public\.toast_docs › block 0/);
    assert.ok(f.some((l) => /pd_checksum\s+49437 {2}ok/.test(l) || /pd_checksum\s+\d+ {2}ok/.test(l)), "checksum verified");
    assert.ok(f.some((l) => /^›.*lp {3}1 NORMAL/.test(l)), "cursor on the first item");

    await type(stdin, ...downs(lp - 1), ENTER);
    f = await until(lastFrame, line0(new RegExp(`block 0 › item ${lp}`)), `item ${lp}`);
    assert.match(f[0], new RegExp(`block 0 › item ${lp}`));
    assert.ok(f.some((l) => /t_infomask\s+0x0906 {2}HEAP_HASVARWIDTH\|HEAP_HASEXTERNAL/.test(l)), "flag names");
    assert.ok(f.some((l) => new RegExp(`4 body\\s+text → TOAST value \\d+, ${stored} bytes stored`).test(l)), "TOAST pointer shown");

    await type(stdin, DOWN, DOWN, DOWN, ENTER);
    f = await until(lastFrame, line0(/› body › TOAST/), "the TOAST view of body");
    assert.match(f[0], /› body › TOAST/);
    assert.ok(f.some((l) => l.includes(`chunks: ${chunks} found, ${chunks} expected`)), "chunk list");
    assert.ok(f.some((l) => /chunk_seq 0\s+\(\d+,\d+\)/.test(l)), "first chunk's TID");

    await type(stdin, ENTER);
    f = await until(lastFrame, (x) => /detoasted/.test(x[1] ?? ""), "the detoasted value");
    assert.match(f[1], new RegExp(`detoasted: ${chunks} chunks?, ${stored} bytes stored`));
    if (lines > 19) {
      assert.match(f[f.length - 2], new RegExp(`lines 1-19 of ${lines}`));
      await type(stdin, DOWN);
      await until(lastFrame, (x) => new RegExp(`lines 2-20 of ${lines}`).test(x.at(-2)!), "the value scrolled by one line");
    }

    await type(stdin, BACKSPACE, LEFT);
    f = await until(lastFrame, line0(new RegExp(`block 0 › item ${lp}$`)), `back on item ${lp}`);
    assert.match(f[0], new RegExp(`block 0 › item ${lp}$`));
    assert.ok(f.some((l) => /^›.*4 body/.test(l)), "back where we were, on body");

    // x: the selected field in hex; Enter: back to the same field.
    await type(stdin, "x");
    f = await until(lastFrame, line0(/› hex/), "the hex view");
    assertFits(f, 80, 24);
    assert.match(f[0], /› hex/);
    assert.ok(f.some((l) => l.startsWith(`item ${lp} body  bytes ${bodyStart}..${bodyStart + 17} (18)  = TOAST pointer`)), `body's bytes selected:\n${f.join("\n")}`);
    await type(stdin, UP, ENTER);
    f = await until(lastFrame, anyLine(/^›.*3 expected_chunks/), "the field before body, selected");
    assert.match(f[0], new RegExp(`block 0 › item ${lp}$`));
    assert.ok(f.some((l) => /^›.*3 expected_chunks/.test(l)), "the field before body, selected from the hex view");

    // Forward history after going back.
    await type(stdin, LEFT);
    await until(lastFrame, line0(/› hex$/), "back in the hex view");
    await type(stdin, RIGHT);
    await until(lastFrame, line0(new RegExp(`block 0 › item ${lp}$`)), "forward to the item again");

    // The go prompt, then q quits.
    await type(stdin, "g", "9", "9", ENTER);
    const noBlock = new RegExp(`no block 99: public\\.toast_docs has blocks 0\\.\\.${nblocks - 1}`);
    await until(lastFrame, (x) => noBlock.test(x.at(-2)!), "the go prompt's error");
    await type(stdin, "q");
  } finally {
    unmount();
    session.close();
  }
});

test("the app reads keys sent faster than it renders (one input chunk)", async () => {
  const session = new BrowseSession({ pgdata, database: "pgdisk_sample" });
  const { lastFrame, stdin, unmount } = render(<BrowseApp session={session} size={{ columns: 80, rows: 24 }} />);
  try {
    await until(lastFrame, line0(/pgdisk browse › cluster /), "the tree");
    stdin.write("gweb_links\rg3\r");
    const f = await until(lastFrame, line0(/public\.web_links › block 3$/), "block 3 of web_links");
    assert.ok(f.some((l) => /pd_flags\s+0x0004 ALL_VISIBLE/.test(l)), "block 3's header");
  } finally {
    unmount();
    session.close();
  }
});

test("the app on tiny and odd terminal sizes draws without crashing", async () => {
  for (const [columns, rows] of [[20, 5], [40, 8], [1, 1], [200, 60], [80, 10]] as const) {
    const session = new BrowseSession({ pgdata, database: "pgdisk_sample" });
    const { lastFrame, stdin, unmount } = render(<BrowseApp session={session} size={{ columns, rows }} />);
    try {
      await until(lastFrame, (x) => x.join("").trim().length > 0, "a first frame");
      await type(stdin, DOWN, ENTER, ENTER, "x", DOWN);
      const f = frame(lastFrame());
      if (columns < 40 || rows < 8) assert.match(f.join("\n"), /too small/);
      else assertFits(f, columns, rows);
    } finally {
      unmount();
      session.close();
    }
  }
});

test("problems are marked inline: page rows, item rows, the item's field, the hex bytes", async () => {
  const copy = await tinySampleCopy();
  try {
    // Damage toast_docs block 0: its checksum, item 2's t_hoff, item 5's lp_len.
    const file = resolveByName(copy.pgdata, "pgdisk_sample", "toast_docs").path;
    const b = new Uint8Array(readFileSync(file));
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    dv.setUint16(8, (dv.getUint16(8, true) + 1) & 0xffff, true);
    const lp = (n: number): number => dv.getUint32(24 + (n - 1) * 4, true);
    b[(lp(2) & 0x7fff) + 22] = 32;
    dv.setUint32(24 + 4 * 4, ((lp(5) & 0x1ffff) | (8000 << 17)) >>> 0, true);
    writeFileSync(file, b);

    const session = new BrowseSession({ pgdata: copy.pgdata, database: "pgdisk_sample" });
    const rel = session.findRelation(session.startDb!, "toast_docs");
    const { lastFrame, stdin, unmount } = render(<BrowseApp session={session} start={at({ view: "page", rel, block: 0 })} size={{ columns: 100, rows: 40 }} />);
    try {
      let f = await until(lastFrame, (x) => /3 problems/.test(x[1] ?? ""), "block 0's three problems");
      assert.ok(f.some((l) => /^ !! PAGE_CHECKSUM_MISMATCH: page verification failed/.test(l)), "page finding listed first");
      assert.ok(f.some((l) => /^ !pd_checksum +\d+ +MISMATCH: computed \d+/.test(l)), "pd_checksum row marked");
      assert.ok(f.some((l) => /^ {2}pd_prune_xid/.test(l)), "other header fields unmarked");
      assert.ok(f.some((l) => /^ !lp +2 NORMAL/.test(l)) && f.some((l) => /^ ! +! HEAP_BAD_T_HOFF: tuple data should begin at byte 24, but actually begins at byte 32/.test(l)), "item 2 marked, its finding under it");
      assert.ok(f.some((l) => /^ !lp +5 NORMAL +off +\d+ len 8000/.test(l)) && f.some((l) => /LP_OUTSIDE_ITEM_AREA/.test(l)), "item 5 marked");
      assert.ok(f.some((l) => /^ {2}lp +3 NORMAL/.test(l)), "item 3 unmarked");
      await type(stdin, DOWN, ENTER);
      f = await until(lastFrame, line0(/item 2$/), "item 2");
      assert.ok(f.some((l) => /^ ! +! HEAP_BAD_T_HOFF/.test(l)), "the item's finding on top");
      assert.ok(f.some((l) => /^ !t_hoff +32$/.test(l)), "t_hoff row marked");
      assert.ok(f.some((l) => /^ !data +42 bytes \(not decoded: see the problem above\)/.test(l)), "undecoded data explained");
    } finally {
      unmount();
    }
    const h = session.relation(rel);
    const regions = pageRegions(session.readPage(rel, 0), session.page(rel, 0), { desc: h.ctx.desc });
    const marked = regions.filter((r) => r.problem).map((r) => r.key);
    for (const k of ["hdr.pd_checksum", "lp.2", "item.2.t_hoff", "lp.5"]) assert.ok(marked.includes(k), `${k} marked in hex (marked: ${marked.join(" ")})`);
    for (const k of ["hdr.pd_prune_xid", "hdr.pd_lsn_xlogid", "lp.3", "item.3.t_hoff"]) assert.ok(!marked.includes(k), `${k} not marked`);
    assert.deepEqual(session.summary(rel, 0).problems.sort(), ["HEAP_BAD_T_HOFF", "LP_OUTSIDE_ITEM_AREA", "PAGE_CHECKSUM_MISMATCH"]);
    session.close();
  } finally {
    rmSync(copy.root, { recursive: true, force: true });
  }
});

test("the footer keeps quit in view when the hints do not fit", () => {
  const hints = footerHints("page", false, { index: true });
  const f = render(<Footer hints={hints} width={80} />);
  const line = frame(f.lastFrame())[0];
  assert.ok(line.length <= 80, `${line.length} columns`);
  assert.match(line, /^ ↑↓ {2}move .* q {2}quit$/);
  f.unmount();
  assert.deepEqual(fitHints(hints, 200), hints);
  assert.deepEqual(fitHints(hints, 5), [["q", "quit"]]);
});
