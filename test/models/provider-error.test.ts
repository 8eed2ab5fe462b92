import { describe, expect, test } from "vitest";
import { isModelError } from "../../src/models/model-error.ts";
import {
  errorFields,
  providerError,
  responseError,
  retryAfterMs,
} from "../../src/models/provider-error.ts";

describe("retryAfterMs", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const headers = (init: Record<string, string>) => new Headers(init);

  test("reads seconds, fractions, HTTP dates and retry-after-ms", () => {
    expect(retryAfterMs(headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(retryAfterMs(headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:10 GMT" }), now)).toBe(
      10_000,
    );
    expect(retryAfterMs(headers({ "retry-after": "Wed, 31 Dec 2025 00:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
  });

  test("returns undefined when absent or invalid", () => {
    expect(retryAfterMs(headers({}), now)).toBeUndefined();
    expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBeUndefined();
  });
});

describe("errorFields", () => {
  test("reads the OpenAI, Anthropic, Ollama and plain shapes", () => {
    expect(errorFields('{"error":{"message":"m","type":"t","code":"c"}}')).toEqual({
      code: "c",
      message: "m",
    });
    expect(
      errorFields('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ).toEqual({
      code: "overloaded_error",
      message: "Overloaded",
    });
    expect(errorFields('{"error":"model not found"}')).toEqual({ message: "model not found" });
    expect(errorFields("Bad Gateway ")).toEqual({ message: "Bad Gateway" });
  });
});

describe("providerError", () => {
  test("classifies rate limits, context overflow, http and mid-stream failures", () => {
    expect(providerError("p", { status: 429, message: "x", retryAfterMs: 5 }, []).toJSON()).toEqual(
      {
        type: "rate_limit",
        provider: "p",
        status: 429,
        retryAfterMs: 5,
        message: "x",
      },
    );
    expect(providerError("p", { code: "rate_limit_error", message: "x" }, []).type).toBe(
      "rate_limit",
    );
    for (const message of [
      "This model's maximum context length is 4096 tokens",
      "prompt is too long: 210000 tokens > 200000 maximum",
      "the request exceeds the available context size, try increasing it",
    ]) {
      expect(providerError("p", { status: 400, message }, []).type).toBe("context_overflow");
    }
    expect(
      providerError("p", { status: 400, code: "context_length_exceeded", message: "x" }, []).type,
    ).toBe("context_overflow");
    expect(providerError("p", { status: 503, message: "down" }, []).toJSON()).toEqual({
      type: "http",
      provider: "p",
      status: 503,
      message: "down",
    });
    expect(providerError("p", { code: "api_error", message: "x" }, []).type).toBe("stream");
  });

  test("an exhausted quota is http with its code kept, not a rate limit to wait out", () => {
    const quota = { code: "insufficient_quota", message: "You exceeded your current quota" };
    const error = providerError("p", { status: 429, retryAfterMs: 20_000, ...quota }, []);
    expect(error.toJSON()).toEqual({ type: "http", provider: "p", status: 429, ...quota });
    expect(error.retryAfterMs).toBeUndefined();
    // The same code in an error event mid-stream (no status) is a stream failure, code kept.
    expect(providerError("p", quota, []).toJSON()).toEqual({
      type: "stream",
      provider: "p",
      ...quota,
    });
    // A plain 429, or a rate-limit code, is still a rate limit.
    expect(
      providerError("p", { status: 429, code: "rate_limit_exceeded", message: "x" }, []).type,
    ).toBe("rate_limit");
  });

  test("a 529 (Anthropic overloaded) is http and always carries a code", () => {
    const overloaded = { status: 529, code: "overloaded_error", message: "Overloaded" };
    expect(providerError("p", overloaded, []).toJSON()).toEqual({
      type: "http",
      provider: "p",
      ...overloaded,
    });
    expect(providerError("p", { status: 529, message: "<html>busy</html>" }, []).toJSON()).toEqual({
      type: "http",
      provider: "p",
      status: 529,
      code: "overloaded_error",
      message: "<html>busy</html>",
    });
    // Other statuses without a code stay without one.
    expect(providerError("p", { status: 502, message: "bad gateway" }, []).code).toBeUndefined();
  });

  test("recognises each provider's context-overflow wording and code", () => {
    const overflow: [string, string, string?][] = [
      [
        "OpenAI",
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        "context_length_exceeded",
      ],
      ["Anthropic", "prompt is too long: 210000 tokens > 200000 maximum", "invalid_request_error"],
      [
        "Anthropic",
        "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again",
        "invalid_request_error",
      ],
      ["Ollama", "input exceeds context length"],
      [
        "vLLM",
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
      ],
      [
        "vLLM",
        "The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens.",
      ],
      [
        "LM Studio",
        "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.",
      ],
      [
        "llama.cpp",
        "the request exceeds the available context size, try increasing it",
        "exceed_context_size_error",
      ],
      ["llama.cpp (code only)", "request rejected", "exceed_context_size_error"],
      [
        "Gemini",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      ],
    ];
    for (const [who, message, code] of overflow) {
      const details =
        code === undefined ? { status: 400, message } : { status: 400, message, code };
      expect([who, providerError("p", details, []).type]).toEqual([who, "context_overflow"]);
    }
    const other: [number, string][] = [
      [400, "max_tokens is too large: 100000. This model supports at most 4096 completion tokens."],
      [400, "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens"],
      [401, "Incorrect API key provided"],
      [413, "Request exceeds the maximum allowed number of bytes."],
      [429, "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000."],
    ];
    expect(
      other.map(([status, message]) => providerError("p", { status, message }, []).type),
    ).toEqual(["http", "http", "http", "http", "rate_limit"]);
  });

  test("redacts secrets and truncates long messages", () => {
    const error = providerError(
      "p",
      { status: 401, code: "bad sk-1", message: `key sk-1 ${"x".repeat(900)}` },
      ["sk-1"],
    );
    expect(error.message).not.toContain("sk-1");
    expect(error.code).toBe("bad [redacted]");
    expect(error.message.length).toBeLessThan(600);
  });
});

describe("responseError", () => {
  test("reads at most 64 KiB of a huge body and redacts it", async () => {
    const big = `{"error":{"message":"sk-9 ${"y".repeat(200_000)}"}}`;
    const error = await responseError("p", new Response(big, { status: 500 }), ["sk-9"]);
    expect(isModelError(error, "http")).toBe(true);
    expect(error.message).toContain("[redacted]");
    expect(error.message.length).toBeLessThan(600);
  });

  test("falls back to the status text for an empty body", async () => {
    const error = await responseError(
      "p",
      new Response(null, { status: 502, statusText: "Bad Gateway" }),
      [],
    );
    expect(error.toJSON()).toEqual({
      type: "http",
      provider: "p",
      status: 502,
      message: "Bad Gateway",
    });
  });
});
