// Where a conversion wrote: the cluster converted in place, or the input left and the output made.
/** Where the result went. */
export function whereLines(r: { input: string; output: string; inPlace: boolean; checksums: boolean }): string[] {
  const sums = r.checksums ? " (data checksums set)" : "";
  if (r.inPlace) return [`  cluster ${r.output} (converted in place)${sums}`];
  return [`  input  ${r.input} (not changed)`, `  output ${r.output}${sums}`];
}
