// Buffered stdout: dumps write many small strings; one write per ~1 MiB keeps output cheap.
// Byte chunks (from worker threads) pass straight through after what is buffered.
export class BufferedOutput {
  private parts: string[] = [];
  private size = 0;
  constructor(private readonly limit = 1 << 20) {}

  write = (s: string): void => {
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= this.limit) this.flush();
  };

  writeBytes = (b: Uint8Array): void => {
    this.flush();
    process.stdout.write(b);
  };

  flush(): void {
    if (!this.parts.length) return;
    process.stdout.write(this.parts.join(""));
    this.parts = [];
    this.size = 0;
  }
}
