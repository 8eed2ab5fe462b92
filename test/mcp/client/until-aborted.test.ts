import { describe, expect, it } from "vitest";
import { untilAborted } from "../../../src/mcp/client/until-aborted.ts";

describe("untilAborted", () => {
  it("settles like the promise when the signal stays quiet", async () => {
    const controller = new AbortController();
    expect(await untilAborted(Promise.resolve(1), { signal: controller.signal })).toBe(1);
    await expect(untilAborted(Promise.reject(new Error("x")), {})).rejects.toThrow("x");
  });

  it("rejects with the reason as soon as the signal aborts, even if the work never ends", async () => {
    const controller = new AbortController();
    const guarded = untilAborted(new Promise<never>(() => {}), { signal: controller.signal });
    controller.abort("stop");
    await expect(guarded).rejects.toBe("stop");
    await expect(
      untilAborted(new Promise<never>(() => {}), { signal: AbortSignal.abort("early") }),
    ).rejects.toBe("early");
  });
});
