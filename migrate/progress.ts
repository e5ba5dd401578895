// Progress of a conversion in bytes of the input relations read (the CLI's -P): done, total, the
// rate since the start and the time left at that rate. Plain figures; the CLI prints them.
export interface ProgressFigures {
  bytesDone: number;
  bytesTotal: number;
  /** bytes per second since the run began converting */
  rate: number;
  /** seconds left at that rate (null before anything was done) */
  eta: number | null;
}

export class ProgressMeter {
  private done = 0;
  private readonly t0 = performance.now();

  constructor(
    private readonly total: number,
    private readonly report?: (p: ProgressFigures) => void,
  ) {}

  /** Count bytes of a finished unit and report. */
  add(bytes: number): void {
    this.done += bytes;
    if (!this.report) return;
    const seconds = (performance.now() - this.t0) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    this.report({ bytesDone: this.done, bytesTotal: this.total, rate, eta: rate > 0 ? Math.max(0, this.total - this.done) / rate : null });
  }
}
