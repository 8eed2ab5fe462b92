import { afterEach, describe, expect, test, vi } from "vitest";
import { Agent } from "../../src/agent/index.ts";
import type { Model } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";

// A model endpoint that accepts the request and never answers used to leave `run.result`
// pending forever (issue 30 point 5). Each turn now has an idle deadline.
function silentModel(): Model & { cancelled: () => unknown } {
  let reason: unknown;
  return {
    id: "silent",
    stream: () =>
      new ReadableStream({
        cancel(why) {
          reason = why;
        },
      }),
    cancelled: () => reason,
  };
}

afterEach(() => vi.useRealTimers());

describe("model idle timeout", () => {
  test("by default, a model that sends nothing for five minutes stops the run with a typed error", async () => {
    vi.useFakeTimers();
    const model = silentModel();
    const run = new Agent({ model }).run("hello");
    let settled = false;
    run.result.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(299_000);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    const result = await run.result;
    expect(result.stop).toBe("error");
    expect(isModelError(result.error)).toBe(true);
    expect(result.error).toMatchObject({
      type: "stream",
      code: "idle_timeout",
      message: expect.stringContaining("modelIdleTimeoutMs"),
    });
    // The stream was cancelled, so its request is aborted rather than left open.
    expect(model.cancelled()).toBe(result.error);
  });

  test("the deadline restarts with every event, and the option sets it", async () => {
    vi.useFakeTimers();
    let push: ((text: string) => void) | undefined;
    const model: Model = {
      id: "slow",
      stream: () =>
        new ReadableStream({
          start(controller) {
            push = (text) => controller.enqueue({ type: "text_delta", text });
          },
        }),
    };
    const run = new Agent({ model, modelIdleTimeoutMs: 1_000 }).run("hello");
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(900);
      push?.("tick ");
    }
    await vi.advanceTimersByTimeAsync(1_000);
    const result = await run.result;
    expect(result.error).toMatchObject({ code: "idle_timeout" });
    expect(result.text).toBe("tick tick tick tick tick ");
  });

  test("refuses a timeout that is not a positive number", () => {
    expect(() => new Agent({ model: silentModel(), modelIdleTimeoutMs: 0 })).toThrow(
      "modelIdleTimeoutMs must be a positive number of milliseconds",
    );
  });
});
