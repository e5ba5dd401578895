// End to end in a real terminal: the real `pgdisk inspect browse` in a tmux pane (80x24) on a
// copy of the tiny sample. Open a table from the tree, go to block 3, open a tuple with a
// TOASTed value, follow its pointer to the chunks, show the value, go back, quit.
// Assertions are on what `tmux capture-pane` shows. Skips (saying why) only when tmux is
// missing and cannot be installed.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tinySampleCopy } from "../fixtures/sample.js";

const BIN = join(import.meta.dirname, "../../bin/pgdisk");
const SESSION = `pgdisk-browse-e2e-${process.pid}`;
const COLS = 80;
const ROWS = 24;
let root = "";
let pgdata = "";
let tmuxMissing = "";

function haveTmux(): boolean {
  return spawnSync("tmux", ["-V"], { encoding: "utf8" }).status === 0;
}

before(async () => {
  if (!haveTmux()) {
    const r = spawnSync("apt-get", ["install", "-y", "tmux"], { encoding: "utf8", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (!haveTmux()) tmuxMissing = `tmux is not installed and \`apt-get install -y tmux\` failed (exit ${r.status}): ${(r.stderr || r.error?.message || "").trim().split("\n").pop()}`;
  }
  if (tmuxMissing) return;
  const copy = await tinySampleCopy();
  root = copy.root;
  pgdata = copy.pgdata;
});

after(() => {
  spawnSync("tmux", ["kill-session", "-t", SESSION]);
  if (root) rmSync(root, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function screen(): string {
  return execFileSync("tmux", ["capture-pane", "-p", "-t", SESSION], { encoding: "utf8" });
}

/** Poll the pane until `re` matches; fail showing the screen. */
// Generous: other test files load both cores while this one runs (startup is ~1 s when idle).
async function waitFor(re: RegExp, what: string, ms = 90_000): Promise<string> {
  const until = Date.now() + ms;
  let s = "";
  while (Date.now() < until) {
    s = screen();
    if (re.test(s)) return s;
    await sleep(100);
  }
  assert.fail(`${what}: ${re} never appeared; the screen was:\n${s}`);
}

/** Send keys one at a time (tmux key names or literal text), as typed. */
async function keys(...ks: string[]): Promise<void> {
  for (const k of ks) {
    const literal = !/^(Enter|Down|Up|Left|Right|BSpace|Escape|Tab|PageDown|PageUp)$/.test(k);
    execFileSync("tmux", ["send-keys", "-t", SESSION, ...(literal ? ["-l", k] : [k])]);
    await sleep(60);
  }
}

test("browse in a real terminal: tree → toast_docs → block 3 → a TOASTed tuple → chunks → value → back → quit", async () => {
  assert.equal(tmuxMissing, "", "tmux is needed: the test command installs it (scripts/install-postgres.sh)");
  // On block 3 of toast_docs, the first tuple whose body is TOASTed: what the browser must show,
  // as the dump engine decodes it.
  const dump = JSON.parse(execFileSync(BIN, ["inspect", "dump", "--pgdata", pgdata, "-d", "pgdisk_sample", "-t", "toast_docs", "-b", "3", "--detoast", "--format", "json"], { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] }));
  const items: { lp: number; heap?: { values: { name: string; value: string; toast?: { extsize: number } }[] } }[] = dump.relations[0].pages[0].items;
  const target = items.find((it) => it.heap?.values.find((v) => v.name === "body")?.toast);
  assert.ok(target, "block 3 of toast_docs holds a TOASTed value");
  const bodyVal = target.heap!.values.find((v) => v.name === "body")!;
  const body = bodyVal.value;
  const stored = bodyVal.toast!.extsize;
  const chunks = Math.ceil(stored / 1996);

  execFileSync("tmux", ["new-session", "-d", "-s", SESSION, "-x", String(COLS), "-y", String(ROWS), `${BIN} inspect browse --pgdata ${pgdata}; echo "EXIT=$?"; sleep 60`]);
  let s = await waitFor(/▾ pgdisk_sample/, "the cluster tree");
  assert.match(s, /pgdisk browse › cluster /);
  assert.match(s, /› +▸ accounts/);

  // accounts, all_types, compressed_docs, embeddings, toast_docs, web_links
  await keys("Down", "Down", "Down", "Down");
  await waitFor(/› +▸ toast_docs /, "cursor on toast_docs");
  await keys("Enter");
  s = await waitFor(/pgdisk browse › public\.toast_docs\s*\n.*\d+ blocks/, "toast_docs' page list");
  assert.match(s, /block +kind +items +free +fill/);

  await keys("g", "3", "Enter");
  s = await waitFor(/public\.toast_docs › block 3/, "block 3");
  assert.match(s, /pd_lower +\d+ +\(\d+ line pointers\)/);
  assert.match(s, /› +lp +1 NORMAL +off +\d+/);

  await keys(...Array.from({ length: target.lp - 1 }, () => "Down"), "Enter");
  s = await waitFor(new RegExp(`block 3 › item ${target.lp}`), `item ${target.lp}`);
  assert.match(s, /HEAP_HASEXTERNAL/);
  assert.match(s, new RegExp(`4 body +text → TOAST value \\d+, ${stored} bytes stored`));

  await keys("Down", "Down", "Down", "Enter");
  s = await waitFor(/› body › TOAST/, "the TOAST pointer's chunks");
  assert.match(s, new RegExp(`chunks: ${chunks} found, ${chunks} expected +\\(via toast index`));
  assert.match(s, /chunk_seq 0 +\(\d+,\d+\)/);

  await keys("Enter");
  s = await waitFor(new RegExp(`detoasted: ${chunks} chunks?, ${stored} bytes stored`), "the value");
  const lines = s.split("\n");
  assert.equal(lines[2], body.slice(0, COLS - 1), "first line of the value, as the dump engine detoasts it");

  await keys("BSpace");
  s = await waitFor(new RegExp(`chunks: ${chunks} found`), "back to the chunk list");
  assert.match(s, /› value +show the detoasted value/);
  await keys("Left");
  await waitFor(new RegExp(`block 3 › item ${target.lp}\\s*\\n`), "back to the item");

  await keys("q");
  await waitFor(/EXIT=0/, "clean exit after q");
});
