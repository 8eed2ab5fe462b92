import * as v from "valibot";
import { defineTool, type Tool, ToolResult } from "../../src/index.ts";

/**
 * Creates the read-only `slow_task` tool: it works for a few seconds, reports progress every
 * tick, and stops as soon as `ctx.signal` aborts (the page's Stop button).
 *
 * @param tickMs How long one of its ten steps takes; tests pass a small value.
 * @returns The tool.
 */
export function slowTaskTool(tickMs = 500): Tool {
  return defineTool({
    name: "slow_task",
    title: "Slow task",
    description: "Simulates a long job (about five seconds) with progress; it can be cancelled.",
    readOnly: true,
    input: v.object({ label: v.optional(v.pipe(v.string(), v.maxLength(100))) }),
    call: async ({ label }, ctx) => {
      const total = 10;
      for (let done = 0; done < total; done += 1) {
        ctx.progress({ progress: done, total, message: `step ${done + 1} of ${total}` });
        await sleep(tickMs, ctx.signal);
      }
      ctx.progress({ progress: total, total, message: "finished" });
      return ToolResult.text(
        `The slow task${label ? ` "${label}"` : ""} finished all ${total} steps.`,
      );
    },
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      // The toolset aborts `ctx.signal` with the call's `cancelled` error.
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
