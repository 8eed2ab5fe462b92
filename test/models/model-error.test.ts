import { describe, expect, test } from "vitest";
import {
  isModelError,
  MODEL_ERROR_TYPES,
  ModelError,
  type ModelErrorData,
} from "../../src/models/model-error.ts";

const samples: ModelErrorData[] = [
  { type: "http", provider: "p", status: 500, code: "api_error", message: "boom" },
  { type: "http", provider: "p", message: "fetch failed" },
  { type: "rate_limit", provider: "p", status: 429, retryAfterMs: 1000, message: "slow down" },
  { type: "context_overflow", provider: "p", status: 400, message: "too long" },
  { type: "stream", provider: "p", message: "ended early" },
  { type: "cancelled", provider: "p", reason: "stop" },
  { type: "invalid_response", provider: "p", message: "not JSON" },
  { type: "unsupported", provider: "p", missing: "WebGPU", message: "no adapter" },
];

describe("ModelError", () => {
  test("round-trips every kind through JSON", () => {
    for (const data of samples) {
      const error = new ModelError(data);
      const copy = new ModelError(JSON.parse(JSON.stringify(error)) as ModelErrorData);
      expect(copy.toJSON()).toEqual(data);
      expect(copy.message).toBe(error.message);
      expect(error.name).toBe("ModelError");
    }
    expect(new Set(samples.map((s) => s.type))).toEqual(new Set(MODEL_ERROR_TYPES));
  });

  test("puts status, retryAfterMs and code on the error only when set", () => {
    const limited = new ModelError(samples[2] as ModelErrorData);
    expect(limited).toMatchObject({
      type: "rate_limit",
      provider: "p",
      status: 429,
      retryAfterMs: 1000,
    });
    const plain = new ModelError(samples[4] as ModelErrorData);
    expect(Object.hasOwn(plain, "status")).toBe(false);
    expect(Object.hasOwn(plain, "code")).toBe(false);
  });

  test("writes messages that say what happened", () => {
    expect(new ModelError(samples[0] as ModelErrorData).message).toBe("p: HTTP 500: boom");
    expect(new ModelError(samples[1] as ModelErrorData).message).toBe(
      "p: request failed: fetch failed",
    );
    expect(new ModelError(samples[2] as ModelErrorData).message).toBe(
      "p: rate limited (retry after 1000 ms): slow down",
    );
    expect(new ModelError({ type: "cancelled", provider: "p" }).message).toBe(
      "p: request was cancelled",
    );
  });

  test("keeps cause out of the JSON", () => {
    const error = new ModelError(samples[4] as ModelErrorData, { cause: new Error("inner") });
    expect(error.cause).toBeInstanceOf(Error);
    expect(JSON.stringify(error)).not.toContain("inner");
  });
});

describe("isModelError", () => {
  test("checks the brand and, when given, the kind", () => {
    const error = new ModelError(samples[3] as ModelErrorData);
    expect(isModelError(error)).toBe(true);
    expect(isModelError(error, "context_overflow")).toBe(true);
    expect(isModelError(error, "http")).toBe(false);
    expect(isModelError(new Error("x"))).toBe(false);
    expect(isModelError(null)).toBe(false);
  });

  test("recognises an error from another copy of the module by its registry symbol", () => {
    const foreign = Object.assign(new Error("x"), { type: "stream" });
    Object.defineProperty(foreign, Symbol.for("toolwire.ModelError"), { value: true });
    expect(isModelError(foreign, "stream")).toBe(true);
  });
});
