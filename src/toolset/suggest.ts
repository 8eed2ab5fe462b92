// What `Toolset.call` suggests when a call names a tool that does not exist.
/**
 * The nearest of the `known` names to `name` when it is at most two edits away, case aside
 * (`ad` → `add`): what a person, or a model reading the error as the call's result, needs to
 * correct the call.
 *
 * @param name The name that was asked for.
 * @param known The names that exist.
 * @returns The suggestion, if one is near.
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  let best = 3;
  let suggestion: string | undefined;
  for (const candidate of known) {
    const distance = edits(name.toLowerCase(), candidate.toLowerCase());
    if (distance < best) [best, suggestion] = [distance, candidate];
  }
  return suggestion;
}

// Levenshtein distance, one row at a time (tool names are short).
function edits(a: string, b: string): number {
  let above = [...Array(b.length + 1).keys()];
  for (let i = 0; i < a.length; i++) {
    const row = [i + 1];
    for (let j = 0; j < b.length; j++) {
      const cost = (above[j] as number) + Number(a[i] !== b[j]);
      row.push(Math.min((above[j + 1] as number) + 1, (row[j] as number) + 1, cost));
    }
    above = row;
  }
  return above[b.length] as number;
}
