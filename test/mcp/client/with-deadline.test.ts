import { afterEach, describe, expect, it, vi } from "vitest";
import { withDeadline } from "../../../src/mcp/client/with-deadline.ts";
import { caught } from "../../support/caught.ts";

const untilAbort = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));

describe("withDeadline", () => {
  afterEach(() => vi.useRealTimers());

  it("returns the work's value and clears its timer", async () => {
    vi.useFakeTimers();
    expect(await withDeadline("op", 1000, async () => 42)).toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("aborts the work with timeout{tool, timeoutSecs} at the deadline", async () => {
    vi.useFakeTimers();
    const pending = caught(withDeadline("tools/list", 1500, untilAbort));
    await vi.advanceTimersByTimeAsync(1500);
    const error = await pending;
    expect(error.toJSON()).toMatchObject({ type: "timeout", tool: "tools/list", timeoutSecs: 1.5 });
  });

  it("turns the caller's abort into cancelled, before and during the work", async () => {
    expect(
      (await caught(withDeadline("op", 1000, untilAbort, { signal: AbortSignal.abort() }))).type,
    ).toBe("cancelled");
    const controller = new AbortController();
    const pending = caught(withDeadline("op", 60_000, untilAbort, { signal: controller.signal }));
    controller.abort();
    expect((await pending).type).toBe("cancelled");
  });
});
