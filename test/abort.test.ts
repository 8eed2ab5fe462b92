import { describe, expect, test } from "vitest";
import { raceSignal } from "../src/abort.ts";
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
