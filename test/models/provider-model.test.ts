import { describe, expect, test } from "vitest";
import { isModelError } from "../../src/models/model-error.ts";
import {
  type ProviderModelOptions,
  providerModel,
  requestHeaders,
} from "../../src/models/provider-model.ts";
import type { ProviderDecoder } from "../../src/models/provider-stream.ts";
import { collect } from "../support/model-collect.ts";
import { createFakeFetch, sseResponse } from "../support/model-fetch.ts";

// A decoder that passes each event's data on as text and ends at `[DONE]`.
function echoDecoder(): ProviderDecoder {
  return {
    event(event, emit) {
      if (event.data === "[DONE]") {
        emit({ type: "finish", reason: "stop" });
        return true;
      }
      emit({ type: "text_delta", text: event.data });
      return false;
    },
    end() {
      throw new Error("no end marker");
    },
  };
}

function options(overrides: Partial<ProviderModelOptions> = {}): ProviderModelOptions {
  return {
    provider: "p",
    id: "m1",
    contextWindow: undefined,
    fetch: undefined,
    url: "https://x.test/v1/chat",
    headers: { accept: "text/event-stream" },
    extraHeaders: undefined,
    apiKey: undefined,
    body: (request) => ({ n: request.messages.length }),
    decoder: echoDecoder,
    ...overrides,
  };
}

const request = { messages: [], tools: [] };

describe("providerModel", () => {
  test("has the model name as id and a context window only when one was given", () => {
    const bare = providerModel(options());
    expect(bare.id).toBe("m1");
    expect("contextWindow" in bare).toBe(false);
    expect(providerModel(options({ contextWindow: 8000 })).contextWindow).toBe(8000);
  });

  test("posts the built body with the merged headers to the endpoint", async () => {
    const fake = createFakeFetch(() => sseResponse(["hi", "[DONE]"]));
    const model = providerModel(
      options({ fetch: fake.fetch, extraHeaders: { Accept: "application/x", "X-A": "1" } }),
    );
    const { events, error } = await collect(model.stream(request));
    expect(error).toBeUndefined();
    expect(fake.calls[0]?.url).toBe("https://x.test/v1/chat");
    expect(fake.calls[0]?.body).toEqual({ n: 0 });
    expect(fake.calls[0]?.headers).toEqual({ accept: "application/x", "x-a": "1" });
    expect(events).toEqual([
      { type: "text_delta", text: "hi" },
      { type: "finish", reason: "stop" },
    ]);
  });

  test("gives every stream a fresh decoder and the secrets to redact", async () => {
    const seen: (readonly string[])[] = [];
    const fake = createFakeFetch(() => sseResponse(["[DONE]"]));
    const model = providerModel(
      options({
        fetch: fake.fetch,
        apiKey: "sk-1",
        extraHeaders: { Authorization: "Bearer tok-2" },
        decoder: (secrets) => {
          seen.push(secrets);
          return echoDecoder();
        },
      }),
    );
    await collect(model.stream(request));
    await collect(model.stream(request));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual(expect.arrayContaining(["sk-1", "Bearer tok-2", "tok-2"]));
  });

  test("fails with cancelled when the stream's signal is already aborted", async () => {
    const fake = createFakeFetch(() => sseResponse(["[DONE]"]));
    const model = providerModel(options({ fetch: fake.fetch }));
    const { error } = await collect(model.stream(request, { signal: AbortSignal.abort() }));
    expect(isModelError(error, "cancelled")).toBe(true);
    expect(fake.calls).toHaveLength(0);
  });
});

describe("requestHeaders", () => {
  test("lets the user's headers replace the defaults whatever their case", () => {
    expect(
      requestHeaders({ authorization: "Bearer a", accept: "x" }, { Authorization: "Bearer b" }),
    ).toEqual({
      authorization: "Bearer b",
      accept: "x",
    });
  });
});
