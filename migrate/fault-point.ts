// Named points of a conversion where the crash tests kill pgdisk (kill -9 from inside, so the
// point is exact, not a matter of timing): PGDISK_FAULT_AT=<point> sends SIGKILL there,
// PGDISK_FAULT_AT=<point>:SIGINT (or :SIGTERM) that signal. Without the variable it does nothing.
export type FaultPoint =
  | "copy-started"
  | "copied"
  /** migrate toast: the new TOAST heap is in place, the TOAST index and the parent not yet */
  | "toast-heap-committed"
  | "relation-done"
  | "before-unfence"
  /** pgdisk load: the new heap pages staged, the indexes not yet built */
  | "load-heap-staged"
  /** pgdisk load: everything staged and fsynced, the switch (its journal) not begun */
  | "load-staged"
  /** the journal's record N is durable, its step not yet begun (migrate/journal.ts) */
  | `journal-${number}`;

export function faultPoint(point: FaultPoint): void {
  const want = process.env.PGDISK_FAULT_AT;
  if (!want) return;
  const [at, signal = "SIGKILL"] = want.split(":");
  if (at === point) process.kill(process.pid, signal as NodeJS.Signals);
}
