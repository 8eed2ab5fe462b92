import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  compactionThreshold,
  createPressureTracker,
  estimateTokens,
  transcriptBytes,
} from "../../src/compaction/pressure.ts";
import type { Message } from "../../src/models/message.ts";
import { user } from "./fixtures.ts";

describe("transcriptBytes", () => {
  test("counts the UTF-8 size of the JSON", () => {
    const messages = [user("é😀")];
    const json = `[${JSON.stringify(messages[0])}]`;
    expect(transcriptBytes(messages)).toBe(new TextEncoder().encode(json).length);
    const two = [user("a"), user("b")];
    expect(transcriptBytes(two)).toBe(JSON.stringify(two).length);
    expect(transcriptBytes([])).toBe(2);
  });

  test("leaves image and audio payloads out", () => {
    const withImage: Message[] = [
      {
        role: "user",
        content: [{ type: "image", mimeType: "image/png", data: "A".repeat(10_000) }],
      },
    ];
    const withoutPayload: Message[] = [
      { role: "user", content: [{ type: "image", mimeType: "image/png", data: "" }] },
    ];
    expect(transcriptBytes(withImage)).toBe(transcriptBytes(withoutPayload));
  });
});

describe("compactionThreshold", () => {
  test("derives 0.66 × the window, rounded down", () => {
    expect(compactionThreshold({ contextWindow: 32_768 })).toBe(21_626);
    expect(compactionThreshold({ contextWindow: 200_000 })).toBe(132_000);
  });

  test("prefers an explicit threshold", () => {
    expect(compactionThreshold({ thresholdTokens: 5000, contextWindow: 32_768 })).toBe(5000);
  });

  test("is off with neither a threshold nor a window", () => {
    expect(compactionThreshold({})).toBeUndefined();
    expect(compactionThreshold({ contextWindow: 0 })).toBeUndefined();
  });
});

describe("createPressureTracker", () => {
  test("predicts nothing and is never over before the first observation", () => {
    const tracker = createPressureTracker();
    expect(tracker.predict(1_000_000)).toBeUndefined();
    expect(tracker.over(0, 1_000_000)).toBe(false);
  });

  test("anchors the prediction on the last reading with the marginal rate of the last two", () => {
    const tracker = createPressureTracker();
    tracker.observe(10_000, 20_000); // a big fixed prefix: a cumulative ratio would say 0.5
    tracker.observe(10_500, 22_000); // marginal rate 0.25 → clamped to 1/3
    expect(tracker.predict(25_000)).toBeCloseTo(10_500 + 3000 / 3);
    tracker.observe(12_100, 24_000); // marginal rate 0.8
    expect(tracker.predict(25_000)).toBeCloseTo(12_100 + 800);
    tracker.observe(15_000, 26_000); // marginal rate 1.45 → clamped to 1
    expect(tracker.predict(27_000)).toBeCloseTo(16_000);
  });

  test("ignores the rate of a byte change under 512", () => {
    const tracker = createPressureTracker();
    tracker.observe(100, 1000);
    tracker.observe(400, 1300);
    expect(tracker.predict(2300)).toBeCloseTo(400 + 1000 / 3);
  });

  test("lets a rewrite retire the reading it invalidated", () => {
    const tracker = createPressureTracker();
    tracker.observe(9000, 40_000);
    expect(tracker.over(8000, 40_000)).toBe(true);
    tracker.invalidate();
    expect(tracker.over(8000, 10_000)).toBe(false);
    expect(tracker.over(8000, 40_000)).toBe(true);
    tracker.observe(3000, 10_000);
    expect(tracker.over(8000, 10_000)).toBe(false);
  });

  test("fires whenever the reactive check would, and bounds the change by the byte change", () => {
    const reading = fc.record({
      tokens: fc.integer({ min: 0, max: 200_000 }),
      bytes: fc.integer({ min: 0, max: 800_000 }),
    });
    fc.assert(
      fc.property(
        fc.array(reading, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 0, max: 800_000 }),
        (readings, limit, bytes) => {
          const tracker = createPressureTracker();
          for (const r of readings) tracker.observe(r.tokens, r.bytes);
          const last = readings.at(-1) as { tokens: number; bytes: number };
          if (last.tokens >= limit) expect(tracker.over(limit, bytes)).toBe(true);
          const predicted = tracker.predict(bytes) as number;
          const delta = predicted - last.tokens;
          if (predicted > 0)
            expect(Math.abs(delta)).toBeLessThanOrEqual(Math.abs(bytes - last.bytes) + 1e-6);
          expect(Math.sign(delta) * Math.sign(bytes - last.bytes)).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});

describe("estimateTokens", () => {
  const image = (data: string): Message => ({
    role: "user",
    content: [{ type: "image", mimeType: "image/png", data }],
  });

  test("counts about four characters of English text per token", () => {
    const estimate = estimateTokens([user("word ".repeat(800))]);
    expect(estimate).toBeGreaterThanOrEqual(1000);
    expect(estimate).toBeLessThan(1050);
  });

  test("grows with the transcript, and an image's payload adds nothing", () => {
    const short = [user("a")];
    expect(estimateTokens([...short, user("more text")])).toBeGreaterThan(estimateTokens(short));
    expect(estimateTokens([image("A".repeat(40_000))])).toBe(estimateTokens([image("")]));
  });
});
