import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createIdleTimer } from "../../../src/mcp/client/idle-timer.ts";

describe("createIdleTimer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("fires once after ms without activity, and each arm starts over", () => {
    let fired = 0;
    const timer = createIdleTimer(100, () => fired++);
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(0);
    timer.arm();
    vi.advanceTimersByTime(99);
    timer.arm();
    vi.advanceTimersByTime(99);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(1);
  });

  it("never fires while disarmed and leaves no timer behind", () => {
    let fired = 0;
    const timer = createIdleTimer(100, () => fired++);
    timer.arm();
    timer.disarm();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(0);
  });
});
