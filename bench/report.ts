// One printing convention for every bench section: a figure, its same-run baseline, the ratio.

/** Prints a section heading. */
export function section(title: string): void {
  console.log(`\n## ${title}`);
}

/** Formats nanoseconds as ns, µs or ms. */
export function time(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

/** Prints one figure next to its baseline as a ratio. */
export function compare(
  label: string,
  value: string,
  baseline: string,
  ratio: number,
  goal?: string,
): void {
  const verdict = goal ? `  (goal ${goal})` : "";
  console.log(
    `${label.padEnd(44)} ${value.padStart(12)}  vs ${baseline.padStart(12)}  = ${ratio.toFixed(2)}x${verdict}`,
  );
}

/** Prints a plain figure. */
export function figure(label: string, value: string): void {
  console.log(`${label.padEnd(44)} ${value.padStart(12)}`);
}
