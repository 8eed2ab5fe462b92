import { describe, expect, test } from "vitest";
import { ToolError } from "../../src/errors.ts";
import { cancelledError, raceAbort } from "../../src/toolset/cancelled-error.ts";
import { caught } from "../support/caught.ts";

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

describe("raceAbort", () => {
  test("settles like the promise when the signal never aborts", async () => {
    expect(await raceAbort(Promise.resolve(1), "t", new AbortController().signal)).toBe(1);
    expect(await raceAbort(Promise.resolve(2), "t", undefined)).toBe(2);
  });

  test("rejects at once with cancelled for a pre-aborted signal", async () => {
    const error = await caught(raceAbort(new Promise(() => {}), "t", AbortSignal.abort("x")));
    expect(error.data).toEqual({ type: "cancelled", tool: "t", reason: "x" });
  });

  test("rejects with cancelled as soon as the signal aborts", async () => {
    const controller = new AbortController();
    const racing = raceAbort(new Promise(() => {}), "t", controller.signal);
    controller.abort("stop");
    expect((await caught(racing)).type).toBe("cancelled");
  });
});
