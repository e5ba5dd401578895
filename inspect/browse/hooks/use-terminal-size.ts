// The terminal's size, following resizes; a fixed size when given (tests).
import { useEffect, useState } from "react";
import { useStdout } from "ink";

export interface TerminalSize {
  columns: number;
  rows: number;
}

export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => fixed ?? { columns: stdout?.columns || 80, rows: stdout?.rows || 24 };
  const [size, setSize] = useState<TerminalSize>(read);
  useEffect(() => {
    if (fixed || !stdout) return;
    const onResize = (): void => setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout, fixed?.columns, fixed?.rows]);
  return fixed ?? size;
}
