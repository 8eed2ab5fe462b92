import { describe, expect, test } from "vitest";
import { cancelledError, raceSignal } from "../src/abort.ts";
import { ToolError } from "../src/errors.ts";
import { createCountingSignal } from "./support/counting-signal.ts";

describe("raceSignal", () => {
  test("settles like the work when the signal stays quiet, and leaves no listener", async () => {
    const { signal, active } = createCountingSignal();
    await expect(raceSignal(Promise.resolve(7), signal)).resolves.toBe(7);
    await expect(raceSignal(Promise.reject(new Error("no")), signal)).rejects.toThrow("no");
    expect(active()).toBe(0);
  });

  test("rejects with the signal's reason, or the mapped one, as soon as it aborts", async () => {
    const controller = new AbortController();
    const pending = raceSignal(new Promise(() => {}), controller.signal);
    const mapped = raceSignal(new Promise(() => {}), controller.signal, () => "mapped");
    controller.abort("why");
    await expect(pending).rejects.toBe("why");
    await expect(mapped).rejects.toBe("mapped");
    await expect(raceSignal(Promise.resolve(1), controller.signal)).rejects.toBe("why");
  });
});

describe("cancelledError", () => {
  test("keeps an Error reason's message and the reason itself as cause", () => {
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    controller.abort(reason);
    const error = cancelledError("slow", controller.signal);
    expect(error.data).toEqual({ type: "cancelled", tool: "slow", reason: "user pressed stop" });
    expect(error.cause).toBe(reason);
  });

  test("keeps a string reason", () => {
    const controller = new AbortController();
    controller.abort("timeout");
    expect(cancelledError("slow", controller.signal).reason).toBe("timeout");
  });

  test("returns a cancelled ToolError reason as is", () => {
    const controller = new AbortController();
    const reason = new ToolError({ type: "cancelled", tool: "other" });
    controller.abort(reason);
    expect(cancelledError("slow", controller.signal)).toBe(reason);
  });

  test("omits the reason for a reason that is neither a string nor an Error", () => {
    const controller = new AbortController();
    controller.abort(42);
    expect(cancelledError("slow", controller.signal).data).toEqual({
      type: "cancelled",
      tool: "slow",
    });
  });
});
