import { afterEach, describe, expect, test, vi } from "vitest";
import type { ModelEvent } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";
import {
  cancelled,
  type ProviderCall,
  type ProviderDecoder,
  providerStream,
} from "../../src/models/provider-stream.ts";
import { collect } from "../support/model-collect.ts";
import { byteStream, sseFrame, utf8 } from "../support/sse-wire.ts";

// A decoder that emits each event's data as text and ends at `end`.
const echo = (): ProviderDecoder => ({
  event: (event, emit) => {
    if (event.data === "end") {
      emit({ type: "finish", reason: "stop" });
      return true;
    }
    emit({ type: "text_delta", text: event.data });
    return false;
  },
  end: () => {
    throw new Error("no end marker");
  },
});

function call(fetch: typeof globalThis.fetch | undefined, secrets: string[] = []): ProviderCall {
  return {
    provider: "p",
    fetch,
    url: "https://x.test/v1",
    headers: { a: "1" },
    body: () => ({ b: 2 }),
    secrets,
    decoder: echo(),
  };
}

const sse = (...data: string[]) =>
  new Response(byteStream([utf8(data.map((d) => sseFrame(d)).join(""))]), {
    headers: { "content-type": "text/event-stream" },
  });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("providerStream", () => {
  test("POSTs the JSON body and stops at the decoder's end marker", async () => {
    const fetch = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) =>
      sse("a", "b", "end", "ignored"),
    );
    const { events, error } = await collect(providerStream(call(fetch)));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text_delta", text: "a" },
      { type: "text_delta", text: "b" },
      { type: "finish", reason: "stop" },
    ] satisfies ModelEvent[]);
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toBe("https://x.test/v1");
    expect(init).toMatchObject({ method: "POST", headers: { a: "1" }, body: '{"b":2}' });
  });

  test("looks up globalThis.fetch per request, not when the call was built", async () => {
    const built = call(undefined);
    const fetch = vi.fn(async () => sse("end"));
    vi.stubGlobal("fetch", fetch);
    await collect(providerStream(built));
    expect(fetch).toHaveBeenCalledOnce();
  });

  test("fails with cancelled before fetching when the signal is already aborted", async () => {
    const fetch = vi.fn(async () => sse("end"));
    const { error } = await collect(providerStream(call(fetch), AbortSignal.abort()));
    expect(isModelError(error, "cancelled")).toBe(true);
    expect(fetch).not.toHaveBeenCalled();
  });

  test("turns a network failure into an http error without status, redacting secrets", async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError("error sending request for url (https://x.test/?key=sk-1)");
    });
    const { error } = await collect(providerStream(call(fetch, ["sk-1"])));
    expect(isModelError(error, "http")).toBe(true);
    expect((error as Error).message).not.toContain("sk-1");
    expect((error as Error).cause).toBeUndefined();
  });

  test("aborts the fetch when the consumer cancels, and removes its abort listener", async () => {
    let seen: AbortSignal | undefined;
    const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      seen = init?.signal ?? undefined;
      return new Response(new ReadableStream({ start: (c) => c.enqueue(utf8(sseFrame("a"))) }));
    });
    const user = new AbortController();
    const remove = vi.spyOn(user.signal, "removeEventListener");
    const reader = providerStream(call(fetch), user.signal).getReader();
    await reader.read();
    await reader.cancel();
    expect(seen?.aborted).toBe(true);
    expect(remove).toHaveBeenCalledWith("abort", expect.any(Function));
  });

  test("fails with invalid_response when a 2xx response has no body", async () => {
    const { error } = await collect(providerStream(call(async () => new Response(null))));
    expect(isModelError(error, "invalid_response")).toBe(true);
  });
});

describe("cancelled", () => {
  test("keeps a meaningful reason and leaves out the generic AbortError", () => {
    expect(cancelled("p", "stop").toJSON()).toEqual({
      type: "cancelled",
      provider: "p",
      reason: "stop",
    });
    expect(cancelled("p", new DOMException("aborted", "AbortError")).toJSON()).toEqual({
      type: "cancelled",
      provider: "p",
    });
  });
});
