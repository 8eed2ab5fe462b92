import { ToolError } from "../errors.ts";

/**
 * Concurrency type: how the executed calls of one turn run.
 *
 * - `read-only-parallel` (default): consecutive read-only calls run together; a writing call
 *   waits for every earlier call, runs alone, and every later call waits for it.
 * - `sequential`: one call at a time, in call order.
 * - a number `n`: like `read-only-parallel`, with at most `n` read-only calls at a time.
 *
 * Writing calls therefore never overlap each other or anything else, and their side effects
 * happen in call order.
 */
export type Concurrency = "sequential" | "read-only-parallel" | number;

/**
 * Concurrent job interface: one call to run.
 */
export interface ConcurrentJob<T> {
  /** Whether it may overlap other read-only jobs. */
  readOnly: boolean;
  /** Runs it; must not reject. */
  run(): Promise<T>;
}

/**
 * Returns the parallelism cap a concurrency setting allows for read-only calls.
 *
 * @param concurrency The setting.
 * @returns The cap (`Infinity` for no cap).
 * @throws ToolError `invalid_configuration` for a number that is not a positive integer.
 */
export function concurrencyCap(concurrency: Concurrency): number {
  if (concurrency === "sequential") return 1;
  if (concurrency === "read-only-parallel") return Number.POSITIVE_INFINITY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ToolError({
      type: "invalid_configuration",
      message: `concurrency must be "sequential", "read-only-parallel" or a positive integer, got ${String(concurrency)}`,
    });
  }
  return concurrency;
}

/**
 * Runs jobs under a parallelism cap, a writing job acting as a barrier.
 *
 * @param jobs The jobs, in call order.
 * @param cap The most read-only jobs running at once.
 * @returns Their results, in call order whatever order they finished in.
 */
export async function runConcurrently<T>(
  jobs: readonly ConcurrentJob<T>[],
  cap: number,
): Promise<T[]> {
  // Hint: one call is the usual turn; it skips the worker pool and its promise layers.
  if (jobs.length === 1) return [await (jobs[0] as ConcurrentJob<T>).run()];
  const results = new Array<T>(jobs.length);
  let start = 0;
  while (start < jobs.length) {
    const job = jobs[start] as ConcurrentJob<T>;
    if (!job.readOnly || cap === 1) {
      results[start] = await job.run();
      start += 1;
      continue;
    }
    let end = start;
    while (end < jobs.length && (jobs[end] as ConcurrentJob<T>).readOnly) end += 1;
    await runGroup(jobs, start, end, cap, results);
    start = end;
  }
  return results;
}

async function runGroup<T>(
  jobs: readonly ConcurrentJob<T>[],
  start: number,
  end: number,
  cap: number,
  results: T[],
): Promise<void> {
  let next = start;
  const worker = async () => {
    while (next < end) {
      const index = next++;
      results[index] = await (jobs[index] as ConcurrentJob<T>).run();
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = Math.min(cap, end - start); i > 0; i--) workers.push(worker());
  await Promise.all(workers);
}
