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

/** Summary statistics of one measured function, in nanoseconds. */
export interface Stats {
  p50: number;
  p99: number;
  avg: number;
}

/**
 * Measures several functions in alternating rounds and returns, for each, the median of its
 * rounds. A shared, noisy machine drifts over a run; interleaving puts every contender
 * through the same drift, so their ratio means something.
 */
export async function interleaved<K extends string>(
  contenders: Record<K, () => Promise<unknown>>,
  rounds = 3,
): Promise<Record<K, Stats>> {
  const { do_not_optimize, measure } = await import("mitata");
  const samples = {} as Record<K, Stats[]>;
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(contenders) as [K, () => Promise<unknown>][]) {
      const stats = await measure(async () => do_not_optimize(await run()));
      samples[name] = [
        ...(samples[name] ?? []),
        { p50: stats.p50, p99: stats.p99, avg: stats.avg },
      ];
    }
  }
  const median = (values: number[]) =>
    values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const result = {} as Record<K, Stats>;
  for (const name of Object.keys(samples) as K[]) {
    const list = samples[name];
    result[name] = {
      p50: median(list.map((s) => s.p50)),
      p99: median(list.map((s) => s.p99)),
      avg: median(list.map((s) => s.avg)),
    };
  }
  return result;
}
