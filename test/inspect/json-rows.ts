// The live rows' values of a JSON dump (`inspect dump --format json`), for the tests that hold
// them to the server's output.

/** The live rows' values of a JSON dump, in order (dropped columns left out, NULL as null). */
export function jsonRows(text: string): (string | null)[][] {
  const doc = JSON.parse(text) as { relations: { pages: { items: { heap?: { state?: string; values?: { dropped?: boolean; isnull: boolean; value?: string }[] } }[] }[] }[] };
  const rows: (string | null)[][] = [];
  for (const rel of doc.relations)
    for (const p of rel.pages)
      for (const it of p.items) {
        const h = it.heap;
        if (!h?.values || (h.state && h.state !== "live")) continue;
        rows.push(h.values.filter((v) => !v.dropped).map((v) => (v.isnull ? null : (v.value ?? "<undecoded>"))));
      }
  return rows;
}
